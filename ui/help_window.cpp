#include "ui/help_window.h"

#include "ui/theme.h"
#include "ui/tinted_icon.h"
#include "ui/window_size.h"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImageReader>
#include <QLabel>
#include <QRegularExpression>
#include <QStyle>
#include <QTextBlock>
#include <QTextCursor>
#include <QTextDocument>
#include <QToolBar>
#include <QVBoxLayout>

#include <algorithm>

namespace coh::ui {

namespace {

const QString kDocs = QStringLiteral(":/docs");
constexpr int kMaxImageWidth = 760; // a 1600-px screenshot still fits beside the text
constexpr QSize kPreferredSize(900, 700);

QString firstHeading(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return QFileInfo(path).completeBaseName();
    const QString line = QString::fromUtf8(file.readLine()).trimmed();
    return line.startsWith(QLatin1Char('#')) ? line.section(QLatin1Char(' '), 1) : QFileInfo(path).completeBaseName();
}

} // namespace

HelpBrowser::HelpBrowser(QWidget* parent)
    : QTextBrowser(parent)
{
    setOpenExternalLinks(true); // http(s) and mailto go to the desktop's browser
    setObjectName(QStringLiteral("helpBrowser"));
    // The Markdown importer bakes the link colour in: read the page again in the new palette.
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, [this] {
        if (!source().isEmpty())
            reload();
    });
}

QString HelpBrowser::anchorFor(const QString& heading)
{
    QString slug;
    for (const QChar c : heading.toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
            slug += c;
        else if (c == QLatin1Char(' '))
            slug += QLatin1Char('-');
    }
    return slug;
}

void HelpBrowser::doSetSource(const QUrl& name, QTextDocument::ResourceType type)
{
    // Only guides compiled in can be shown; "../README.md" or a source file is not one of them.
    const QUrl resolved = source().isValid() ? source().resolved(name) : name;
    if (resolved.scheme() == QLatin1String("qrc") && !QFile::exists(QLatin1Char(':') + resolved.path())) {
        emit message(tr("%1 is not one of the guides shown here; it is in the project's source tree.")
                         .arg(resolved.path().section(QLatin1Char('/'), -1)));
        return;
    }
    QTextBrowser::doSetSource(name, type);
    addHeadingAnchors();
    fitImages();
    // The base class looked for the fragment before the headings had anchors.
    if (!name.fragment().isEmpty())
        scrollToAnchor(name.fragment());
    emit message(QString());
}

void HelpBrowser::addHeadingAnchors()
{
    for (QTextBlock block = document()->begin(); block.isValid(); block = block.next()) {
        if (block.blockFormat().headingLevel() == 0 || block.text().isEmpty())
            continue;
        QTextCursor cursor(block);
        cursor.movePosition(QTextCursor::EndOfBlock, QTextCursor::KeepAnchor);
        QTextCharFormat anchor;
        anchor.setAnchor(true);
        anchor.setAnchorNames({anchorFor(block.text())});
        cursor.mergeCharFormat(anchor);
    }
}

void HelpBrowser::fitImages()
{
    for (QTextBlock block = document()->begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            QTextImageFormat image = fragment.charFormat().toImageFormat();
            if (!image.isValid())
                continue;
            // The header alone gives the size: decoding every 1600-px picture on each load would only learn its width.
            const QSize picture = QImageReader(QLatin1Char(':') + source().resolved(QUrl(image.name())).path()).size();
            if (!picture.isValid() || picture.width() <= kMaxImageWidth)
                continue;
            image.setWidth(kMaxImageWidth);
            image.setHeight(double(picture.height()) * kMaxImageWidth / picture.width());
            QTextCursor cursor(document());
            cursor.setPosition(fragment.position());
            cursor.setPosition(fragment.position() + fragment.length(), QTextCursor::KeepAnchor);
            cursor.setCharFormat(image);
        }
    }
}

HelpWindow::HelpWindow(QWidget* parent)
    : QWidget(parent, Qt::Window)
    , m_browser(new HelpBrowser(this))
    , m_status(new QLabel(this))
{
    setObjectName(QStringLiteral("helpWindow"));
    setWindowTitle(tr("Coherence Studio Help"));
    auto* bar = new QToolBar(this);
    QAction* back =
        bar->addAction(tintedIcon(QStringLiteral(":/icons/back.svg")), tr("Back"), m_browser, &QTextBrowser::backward);
    back->setShortcut(QKeySequence::Back);
    back->setToolTip(tr("Back (%1)").arg(back->shortcut().toString(QKeySequence::NativeText)));
    QAction* forward = bar->addAction(tintedIcon(QStringLiteral(":/icons/forward.svg")), tr("Forward"), m_browser,
                                      &QTextBrowser::forward);
    forward->setShortcut(QKeySequence::Forward);
    forward->setToolTip(tr("Forward (%1)").arg(forward->shortcut().toString(QKeySequence::NativeText)));
    bar->addAction(tintedIcon(QStringLiteral(":/icons/help.svg")), tr("Contents"), this,
                   [this] { showGuide(QStringLiteral("gui.md")); })
        ->setToolTip(tr("The desktop app's guide"));
    back->setEnabled(false);
    forward->setEnabled(false);
    connect(m_browser, &QTextBrowser::backwardAvailable, back, &QAction::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, forward, &QAction::setEnabled);
    connect(m_browser, &QTextBrowser::sourceChanged, this, [this] {
        setWindowTitle(tr("%1 — Coherence Studio Help")
                           .arg(m_browser->documentTitle().isEmpty()
                                    ? firstHeading(QLatin1Char(':') + m_browser->source().path())
                                    : m_browser->documentTitle()));
    });
    connect(m_browser, &HelpBrowser::message, m_status, &QLabel::setText);
    connect(m_browser, qOverload<const QUrl&>(&QTextBrowser::highlighted), m_status,
            [this](const QUrl& url) { m_status->setText(url.toString()); });
    auto* closeHelp = new QAction(tr("Close"), this);
    closeHelp->setShortcuts({QKeySequence(QKeySequence::Close), QKeySequence(Qt::Key_Escape)});
    connect(closeHelp, &QAction::triggered, this, &QWidget::close);
    addAction(closeHelp);
    m_status->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addWidget(bar);
    layout->addWidget(m_browser, 1);
    layout->addWidget(m_status);
    // A page and a picture beside each other at ease where there is room; on a 1024x700 screen, inside it.
    resize(fittedSizeOver(this, kPreferredSize));
}

QString HelpWindow::resourcePath(const QString& file)
{
    return kDocs + QLatin1Char('/') + file;
}

QList<std::pair<QString, QString>> HelpWindow::guides()
{
    QList<std::pair<QString, QString>> list;
    const QFileInfoList files = QDir(kDocs).entryInfoList({QStringLiteral("*.md")}, QDir::Files, QDir::Name);
    for (const QFileInfo& file : files)
        list.append({file.fileName(), firstHeading(file.absoluteFilePath())});
    const auto rank = [](const QString& file) {
        return file == QLatin1String("gui.md") ? 0 : file.startsWith(QLatin1String("gui-")) ? 1 : 2;
    };
    std::stable_sort(list.begin(), list.end(), [rank](const auto& a, const auto& b) {
        return rank(a.first) != rank(b.first) ? rank(a.first) < rank(b.first) : a.second < b.second;
    });
    return list;
}

void HelpWindow::showGuide(const QString& file)
{
    m_browser->setSource(QUrl(QStringLiteral("qrc") + resourcePath(file)));
    show();
    raise();
    activateWindow();
}

} // namespace coh::ui

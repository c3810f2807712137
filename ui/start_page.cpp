#include "ui/start_page.h"

#include "core/scenario/datasets_dir.h"
#include "ui/lesson.h"
#include "ui/main_actions.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace coh::ui {

namespace {

constexpr int kPathRole = Qt::UserRole;
constexpr int kDescriptionRole = Qt::UserRole + 1; // a scenario's description row, drawn in the muted tone

// A list that opens its item on double-click or Enter.
QListWidget* makeList(QWidget* parent)
{
    auto* list = new QListWidget(parent);
    list->setWordWrap(true);
    list->setAlternatingRowColors(true);
    return list;
}

QGroupBox* boxed(const QString& title, QWidget* content, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(content);
    return box;
}

} // namespace

StartPage::StartPage(QWidget* parent)
    : QWidget(parent)
{
    auto* title = new QLabel(tr("<h2>Coherence Studio</h2>"
                                "<p>Simulate where the KV-cache of disaggregated LLM serving lives and what keeping "
                                "its copies coherent costs: draw a topology, pick a protocol, run, and watch every "
                                "message.</p>"),
                             this);
    title->setWordWrap(true);
    m_current = new QLabel(this);
    m_current->setWordWrap(true);
    m_run = new QPushButton(tr("Run it (F5)"), this);
    m_run->setObjectName(QStringLiteral("startRun"));
    m_run->setDefault(true);
    connect(m_run, &QPushButton::clicked, this, &StartPage::runRequested);

    m_scenarios = makeList(this);
    m_scenarios->setObjectName(QStringLiteral("startScenarios"));
    m_recent = makeList(this);
    m_recent->setObjectName(QStringLiteral("startRecent"));
    m_lessons = makeList(this);
    m_lessons->setObjectName(QStringLiteral("startLessons"));
    const auto openPath = [this](QListWidgetItem* item) {
        if (item && item->data(kPathRole).isValid())
            emit openRequested(item->data(kPathRole).toString());
    };
    connect(m_scenarios, &QListWidget::itemActivated, this, openPath);
    connect(m_recent, &QListWidget::itemActivated, this, openPath);
    connect(m_lessons, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        if (item && item->data(kPathRole).isValid())
            emit lessonRequested(item->data(kPathRole).toString());
    });

    auto* top = new QHBoxLayout;
    top->addWidget(m_current, 1);
    top->addWidget(m_run);
    auto* grid = new QGridLayout;
    grid->addWidget(boxed(tr("Scenarios and presets (double-click to open)"), m_scenarios, this), 0, 0, 2, 1);
    grid->addWidget(boxed(tr("Recent files"), m_recent, this), 0, 1);
    grid->addWidget(boxed(tr("Protocol Lab lessons"), m_lessons, this), 1, 1);
    grid->setColumnStretch(0, 3);
    grid->setColumnStretch(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(title);
    layout->addLayout(top);
    layout->addLayout(grid, 1);
    refresh();
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, &StartPage::colourDescriptions);
}

void StartPage::setRunState(bool enabled, const QString& tip)
{
    m_run->setEnabled(enabled);
    m_run->setToolTip(tip);
}

void StartPage::refresh()
{
    fillScenarios();
    refreshRecent();
    fillLessons();
}

void StartPage::setCurrentScenario(const QString& name)
{
    m_currentName = name;
    showCurrent();
}

void StartPage::setRunWords(const QString& button, const QString& verb)
{
    m_run->setText(button);
    m_verb = verb;
    showCurrent();
}

void StartPage::showCurrent()
{
    m_current->setText(tr("<b>Open:</b> %1. Press <b>Run</b> to %2, then watch its coherence traffic in "
                          "<b>Replay</b> and its latencies in <b>Charts</b>.")
                           .arg(m_currentName.toHtmlEscaped(), m_verb.isEmpty() ? tr("simulate it") : m_verb));
}

void StartPage::fillScenarios()
{
    m_scenarios->clear();
    const QDir datasets(toQString(core::datasetsDir()));
    for (const QString& folder : {QStringLiteral("scenarios"), QStringLiteral("presets")}) {
        const QDir dir(datasets.filePath(folder));
        for (const QFileInfo& file : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
            // The description is the scenario's own; a file that does not parse still shows, by name.
            QFile in(file.absoluteFilePath());
            QString description;
            if (in.open(QIODevice::ReadOnly))
                description =
                    QJsonDocument::fromJson(in.readAll()).object().value(QStringLiteral("description")).toString();
            auto* item = new QListWidgetItem(QStringLiteral("%1/%2").arg(folder, file.completeBaseName()), m_scenarios);
            item->setData(kPathRole, file.absoluteFilePath());
            item->setToolTip(description.isEmpty() ? file.absoluteFilePath() : description);
            QFont bold = item->font();
            bold.setBold(true);
            item->setFont(bold);
            if (!description.isEmpty()) {
                auto* detail = new QListWidgetItem(QStringLiteral("    ") + description, m_scenarios);
                detail->setData(kPathRole, file.absoluteFilePath());
                detail->setData(kDescriptionRole, true);
            }
        }
    }
    colourDescriptions();
}

void StartPage::colourDescriptions()
{
    // Muted, yet readable on both row colours of the alternating list, in whichever palette is current.
    const QPalette palette = QApplication::palette(m_scenarios);
    const QColor muted = readableOn(toneColor(Tone::Muted, palette, palette.color(QPalette::Base)),
                                    palette.color(QPalette::AlternateBase));
    for (int i = 0; i < m_scenarios->count(); ++i)
        if (QListWidgetItem* item = m_scenarios->item(i); item->data(kDescriptionRole).toBool())
            item->setForeground(muted);
}

void StartPage::refreshRecent()
{
    m_recent->clear();
    for (const QString& path : MainActions::recentFiles()) {
        if (!QFileInfo::exists(path))
            continue;
        auto* item = new QListWidgetItem(QFileInfo(path).fileName(), m_recent);
        item->setData(kPathRole, path);
        item->setToolTip(path);
    }
    if (m_recent->count() == 0)
        new QListWidgetItem(tr("(none yet: files you open or save appear here)"), m_recent);
}

void StartPage::fillLessons()
{
    m_lessons->clear();
    QStringList errors; // a broken lesson is reported by the Lab itself
    for (const Lesson& lesson : loadLessons(errors)) {
        auto* item = new QListWidgetItem(lessonListTitle(lesson), m_lessons);
        item->setData(kPathRole, lesson.id);
        item->setToolTip(lessonListToolTip(lesson));
    }
}

} // namespace coh::ui

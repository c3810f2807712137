// The window's own actions offscreen: Save As's key, Open Recent on a first launch, where Export starts, F1's
// in-app help with links between guides, the toolbar and its palette-tinted icons.
#include "ui/document_files.h"
#include "ui/export_folder.h"
#include "ui/help_window.h"
#include "ui/main_actions.h"
#include "ui/main_window.h"
#include "ui/run_history_widget.h"
#include "ui/scenario_document.h"
#include "ui/theme.h"
#include "ui/topology_editor.h"
#include "window_fixture.h"

#include <QAction>
#include <QApplication>
#include <QDialog>
#include <QFileDialog>
#include <QListWidget>
#include <QMenu>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTextBlock>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QtTest>

#include <functional>

using coh::ui::MainWindow;

class TstWindowActions : public QObject, coh::ui::test::WindowFixture {
    Q_OBJECT
  private slots:
    void initTestCase() { isolate("tst_window_actions"); }
    void init() { openWindow(); }
    void cleanup() { closeWindow(); }

    void saveAsHasItsShortcut()
    {
        // The generic X11 key scheme has no Save As key: Ctrl+Shift+S did nothing. It opens the save dialog.
        QVERIFY(m_window->actions().saveAs->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S)));
        QVERIFY(m_window->actions().quit->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Q)));
        QVERIFY(m_window->actions().redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
        QSignalSpy triggered(m_window->actions().saveAs, &QAction::triggered);
        QString dialogTitle;
        closeNextDialog([&dialogTitle](QDialog* dialog) { dialogTitle = dialog->windowTitle(); });
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
        QCOMPARE(triggered.count(), 1);
        QCOMPARE(dialogTitle, QStringLiteral("Save scenario"));
    }

    void openRecentIsEnabledOnTheFirstLaunch()
    {
        // A first launch: no recent files yet, so the menu starts disabled...
        m_window->document()->undoStack()->setClean();
        m_window.reset();
        QSettings().remove(QStringLiteral("recentFiles"));
        m_window = std::make_unique<MainWindow>(m_db);
        const auto& a = m_window->actions();
        QVERIFY(!a.recent->isEnabled());
        // ...and opening a file lists it there at once, as on the Start page.
        const QString path = coh::ui::DocumentFiles::defaultScenarioPath();
        QVERIFY(m_window->openScenario(path));
        QVERIFY(a.recent->isEnabled());
        QCOMPARE(a.recent->actions().constFirst()->text(), QFileInfo(path).fileName());
        QCOMPARE(m_window->findChild<QListWidget*>(QStringLiteral("startRecent"))->item(0)->text(),
                 QFileInfo(path).fileName());
        // Clear List empties both.
        const auto items = a.recent->actions();
        QAction* clear = items.constLast();
        QCOMPARE(clear->text(), QStringLiteral("Clear List"));
        clear->trigger();
        QVERIFY(!a.recent->isEnabled());
        QVERIFY(m_window->findChild<QListWidget*>(QStringLiteral("startRecent"))->item(0)->data(Qt::UserRole).isNull());
    }

    void exportStartsInTheLastExportFolderNotTheSourceTree()
    {
        // Started from a checkout, the working directory is the source tree: the dialog used to open there.
        const QString before = QDir::currentPath();
        QVERIFY(QDir::setCurrent(QStringLiteral(COH_TEST_DATA_DIR)));
        QSettings().remove(QStringLiteral("export/lastFolder"));
        const auto exportDialogFolder = [this] {
            QString folder;
            closeNextDialog([&folder](QDialog* dialog) {
                if (auto* files = qobject_cast<QFileDialog*>(dialog))
                    folder = files->directory().absolutePath();
            });
            coh::ui::RunHistoryWidget::exportWithDialog(m_window.get(), m_db, 1,
                                                        coh::ui::RunHistoryWidget::ExportFormat::RequestsCsv, {});
            return folder;
        };
        const QString first = exportDialogFolder();
        QCOMPARE(first, QDir(coh::ui::exportFolder()).absolutePath());
        QVERIFY(first != QDir::currentPath());
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        QVERIFY(first == QDir(documents).absolutePath() || first == QDir::homePath());
        // After an export, the next one starts where that one went.
        coh::ui::rememberExportFolder(m_dir.filePath(QStringLiteral("run-1.csv")));
        QCOMPARE(exportDialogFolder(), QDir(m_dir.path()).absolutePath());
        QDir::setCurrent(before);
    }

    void f1ShowsTheGuidesInsideTheApp()
    {
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QTest::keyClick(m_window.get(), Qt::Key_F1);
        coh::ui::HelpWindow* help = m_window->helpWindow();
        QVERIFY(help);
        QVERIFY(help->isVisible());
        coh::ui::HelpBrowser* browser = help->browser();
        QCOMPARE(browser->source().fileName(), QStringLiteral("scenario-format.md"));
        QVERIFY(browser->document()->toPlainText().startsWith(QStringLiteral("Scenario format")));
        QVERIFY(browser->document()->toPlainText().contains(QStringLiteral("topology")));

        // A link to another guide, clicked, opens that guide in the same viewer; Back returns.
        QTextCursor link = findLink(browser->document(), QStringLiteral("engine.md"));
        QVERIFY(!link.isNull());
        browser->setTextCursor(link);
        browser->ensureCursorVisible();
        const QPoint at = browser->cursorRect(link).center();
        QTest::mouseClick(browser->viewport(), Qt::LeftButton, {}, at);
        QTRY_COMPARE(browser->source().fileName(), QStringLiteral("engine.md"));
        QVERIFY(browser->document()->toPlainText().startsWith(QStringLiteral("The serving engine")));
        QVERIFY(browser->isBackwardAvailable());
        browser->backward();
        QCOMPARE(browser->source().fileName(), QStringLiteral("scenario-format.md"));

        // A heading anchor lands on the heading; a link outside the guides says so and keeps the page.
        help->showGuide(QStringLiteral("engine.md#prefix-pool"));
        QVERIFY(browser->verticalScrollBar()->value() > 0);
        browser->setSource(QUrl(QStringLiteral("../README.md")));
        QCOMPARE(browser->source().fileName(), QStringLiteral("engine.md"));

        // Every guide is in the Help menu, the desktop app's first.
        const auto guides = coh::ui::HelpWindow::guides();
        QVERIFY(guides.size() >= 10);
        QCOMPARE(guides.constFirst().first, QStringLiteral("gui.md"));
        QStringList menu;
        const auto entries = m_window->actions().help->actions();
        for (const QAction* a : entries)
            menu << a->text();
        for (const auto& [file, title] : guides)
            QVERIFY2(file == QLatin1String("scenario-format.md") || menu.contains(title), qPrintable(title));
        // Pictures in the guides are compiled in with them.
        help->showGuide(QStringLiteral("gui.md"));
        bool picture = false;
        for (QTextBlock b = browser->document()->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it)
                if (const auto image = it.fragment().charFormat().toImageFormat(); image.isValid()) {
                    const QUrl url = browser->source().resolved(QUrl(image.name()));
                    picture |= !QImage(QLatin1Char(':') + url.path()).isNull();
                }
        QVERIFY(picture);

        // Readable in both palettes, links included (the Markdown importer colours them when it reads the page,
        // so a palette change reads it again).
        for (const bool dark : {true, false}) {
            coh::ui::MainActions::applyPalette(dark);
            const QColor base = QApplication::palette().color(QPalette::Base);
            QCOMPARE(browser->palette().color(QPalette::Base), base);
            int links = 0;
            for (QTextBlock b = browser->document()->begin(); b.isValid(); b = b.next())
                for (auto it = b.begin(); !it.atEnd(); ++it) {
                    const QTextCharFormat format = it.fragment().charFormat();
                    if (it.fragment().text().trimmed().isEmpty() || format.isImageFormat())
                        continue;
                    const QColor fg = format.foreground().style() == Qt::NoBrush
                                          ? QApplication::palette().color(QPalette::Text)
                                          : format.foreground().color();
                    links += format.isAnchor() && !format.anchorHref().isEmpty();
                    QVERIFY2(coh::ui::contrastRatio(fg, base) >= 4.5,
                             qPrintable(QStringLiteral("\"%1\" %2 on %3")
                                            .arg(it.fragment().text().left(30), fg.name(), base.name())));
                }
            QVERIFY(links > 0);
        }
        help->close();
    }

    void toolbarHasTheCommonActionsWithTintedIcons()
    {
        QToolBar* bar = m_window->toolBar();
        QVERIFY(bar && bar->isVisible());
        const auto& a = m_window->actions();
        const auto& canvas = m_window->findChild<coh::ui::TopologyEditor*>()->canvasActions();
        QAction* linkMode = canvas.linkMode;
        const QList<QAction*> expected{a.open,   a.save,   a.undo,     a.redo,        a.run,
                                       a.cancel, linkMode, canvas.fit, canvas.zoomIn, canvas.zoomOut};
        const auto shown = bar->actions();
        for (QAction* action : expected) {
            QVERIFY(action);
            QVERIFY2(shown.contains(action), qPrintable(action->text()));
            QVERIFY2(!action->icon().isNull(), qPrintable(action->text()));
            // The tooltip names the key.
            if (!action->shortcut().isEmpty())
                QVERIFY2(action->toolTip().contains(action->shortcut().toString(QKeySequence::NativeText)),
                         qPrintable(action->toolTip()));
        }
        // The icon is the application's, set once in app/cohstudio/main.cpp (here as it does): the window sets no
        // second copy of it.
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/app.svg")));
        QVERIFY(!m_window->windowIcon().isNull());
        QCOMPARE(m_window->windowIcon().cacheKey(), QApplication::windowIcon().cacheKey());

        // The editor's actions act on the canvas: enabled on the Topology tab only.
        m_window->tabs()->setCurrentIndex(0);
        for (QAction* action : {canvas.linkMode, canvas.fit, canvas.zoomIn, canvas.zoomOut})
            QVERIFY(!action->isEnabled());
        m_window->tabs()->setCurrentWidget(m_window->findChild<coh::ui::TopologyEditor*>());
        for (QAction* action : {canvas.linkMode, canvas.fit, canvas.zoomIn, canvas.zoomOut})
            QVERIFY(action->isEnabled());

        // Icons are drawn in the palette's button text, so they read in either palette; Link Mode, checked,
        // is drawn in the highlight colour on a pressed button.
        const auto inkOf = [](const QIcon& icon, QIcon::State state = QIcon::Off) {
            const QImage image = icon.pixmap(QSize(24, 24), QIcon::Normal, state).toImage();
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    if (qAlpha(image.pixel(x, y)) == 255)
                        return QColor(image.pixel(x, y));
            return QColor();
        };
        for (const bool dark : {false, true}) {
            coh::ui::MainActions::applyPalette(dark);
            const QPalette p = QApplication::palette();
            QCOMPARE(inkOf(a.run->icon()), p.color(QPalette::ButtonText));
            QVERIFY(coh::ui::contrastRatio(inkOf(a.run->icon()), p.color(QPalette::Button)) >= 4.5);
            const QColor on = inkOf(linkMode->icon(), QIcon::On);
            QVERIFY(on != inkOf(linkMode->icon()));
            QVERIFY(coh::ui::contrastRatio(on, p.color(QPalette::Button)) >= 3.0);
        }
        coh::ui::MainActions::applyPalette(false);
        auto* button = qobject_cast<QToolButton*>(bar->widgetForAction(linkMode));
        QVERIFY(button && button->isCheckable());
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(linkMode->isChecked());
        QVERIFY(button->isChecked());
        QTest::mouseClick(button, Qt::LeftButton);
        QVERIFY(!linkMode->isChecked());
    }

  private:
    // Runs `inspect` on the next modal dialog once it shows, then closes it (its exec() returns).
    static void closeNextDialog(std::function<void(QDialog*)> inspect)
    {
        auto* timer = new QTimer;
        timer->setInterval(10);
        QObject::connect(timer, &QTimer::timeout, timer, [timer, inspect] {
            if (auto* dialog = qobject_cast<QDialog*>(QApplication::activeModalWidget())) {
                timer->stop();
                inspect(dialog);
                dialog->reject();
                timer->deleteLater();
            }
        });
        timer->start();
    }

    // A cursor on the first link whose target ends with `target`.
    static QTextCursor findLink(QTextDocument* document, const QString& target)
    {
        for (QTextBlock b = document->begin(); b.isValid(); b = b.next())
            for (auto it = b.begin(); !it.atEnd(); ++it) {
                const QTextFragment f = it.fragment();
                if (f.charFormat().isAnchor() && f.charFormat().anchorHref().endsWith(target)) {
                    QTextCursor cursor(document);
                    cursor.setPosition(f.position() + f.length() / 2);
                    return cursor;
                }
            }
        return {};
    }
};

QTEST_MAIN(TstWindowActions)
#include "tst_window_actions.moc"

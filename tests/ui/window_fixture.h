#pragma once
// What the tests that open the main window (or its settings) share: everything the app stores goes under a
// temporary folder, never the user's (XDG_DATA_HOME, XDG_CONFIG_HOME, QStandardPaths' test mode, an application
// name of the test's own for QSettings), and a window on the default scenario, shown, and closed again without
// the "save changes?" question. A test class derives from it beside QObject and calls these from its slots.
#include "ui/document_files.h"
#include "ui/main_window.h"
#include "ui/scenario_document.h"

#include <QApplication>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <memory>

namespace coh::ui::test {

class WindowFixture {
  protected:
    // From initTestCase().
    void isolate(const char* application)
    {
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.filePath(QStringLiteral("data")).toUtf8());
        qputenv("XDG_CONFIG_HOME", m_dir.filePath(QStringLiteral("config")).toUtf8());
        QStandardPaths::setTestModeEnabled(true);
        QApplication::setOrganizationName(QStringLiteral("CoherenceStudioTests"));
        QApplication::setApplicationName(QLatin1String(application));
    }

    // From init() (or initTestCase() for one window per suite): the default scenario in a window of `size` (the
    // window's own default when invalid), shown.
    void openWindow(QSize size = {})
    {
        m_window = std::make_unique<MainWindow>(m_db);
        QVERIFY(m_window->openScenario(DocumentFiles::defaultScenarioPath()));
        if (size.isValid())
            m_window->resize(size);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
    }

    // From cleanup(): the tests' edits are thrown away.
    void closeWindow()
    {
        if (m_window)
            m_window->document()->undoStack()->setClean();
        m_window.reset();
    }

    QTemporaryDir m_dir;
    const QString m_db = m_dir.filePath(QStringLiteral("runs.db"));
    std::unique_ptr<MainWindow> m_window;
};

} // namespace coh::ui::test

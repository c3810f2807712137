// Showing a run in the replay without building its model on the GUI thread: loadRun() returns with the previous
// run still on show, the model arrives from a worker, and a later request always wins over an earlier build
// that finishes after it.
#include "replay_fixtures.h"
#include "ui/replay_model.h"
#include "ui/replay_widget.h"
#include "ui/timeline_bar.h"

#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>

using namespace coh;

class TestReplayLoading : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void theModelArrivesFromAWorker();
    void theLatestRequestWins();
    void aShownModelIsSwappedInAsItIs();

  private:
    // Every queued build done and its result delivered (or dropped) on this thread.
    static void settle()
    {
        QThreadPool::globalInstance()->waitForDone();
        QCoreApplication::processEvents();
        QCoreApplication::processEvents();
    }

    nlohmann::ordered_json m_json;
    std::shared_ptr<const core::RunResult> m_small, m_large;
};

void TestReplayLoading::initTestCase()
{
    const std::string path = test::datasetPath("scenarios/default.json");
    m_json = test::loadJson(path);
    m_json["coherence"] = {{"decode", "msi-directory"}};
    m_small = test::runJson(m_json, path, 5);
    m_large = test::runJson(m_json, path, 200);
    QVERIFY(m_large->messages.size() > 10 * m_small->messages.size());
}

void TestReplayLoading::theModelArrivesFromAWorker()
{
    ui::ReplayWidget widget;
    widget.setRun(m_small, m_json, {1, QStringLiteral("small"), {}});
    QSignalSpy shown(&widget, &ui::ReplayWidget::runShown);
    widget.loadRun(m_large, m_json, {2, QStringLiteral("large"), {}});
    // loadRun did not build it here: the small run is still on show, and the tab says a run is coming.
    QCOMPARE(widget.run(), m_small);
    QVERIFY(widget.isLoading());
    QVERIFY(widget.statusText().contains(QStringLiteral("Preparing")));
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Run #1 · small")));
    QVERIFY(shown.wait(20000));
    QCOMPARE(shown.count(), 1);
    QCOMPARE(widget.run(), m_large);
    QCOMPARE(widget.model()->run(), m_large.get());
    QVERIFY(!widget.isLoading());
    QVERIFY(!widget.statusText().contains(QStringLiteral("Preparing")));
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Run #2 · large")));
    // What the views show is the new run's.
    QCOMPARE(widget.time(), 0);
    QCOMPARE(widget.timeline()->end(), widget.model()->endTime());
}

void TestReplayLoading::theLatestRequestWins()
{
    ui::ReplayWidget widget;
    // The large run's build is started first and takes longer: whichever finishes last, the small one stays.
    widget.loadRun(m_large, m_json, {1, QStringLiteral("large"), {}});
    widget.loadRun(m_small, m_json, {2, QStringLiteral("small"), {}});
    settle();
    QCOMPARE(widget.run(), m_small);
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Run #2 · small")));
    QVERIFY(!widget.isLoading());

    // A run shown at once (setRun) wins over a build still running.
    widget.loadRun(m_large, m_json, {3, QStringLiteral("large"), {}});
    widget.setRun(m_small, m_json, {4, QStringLiteral("small again"), {}});
    QVERIFY(!widget.isLoading());
    settle();
    QCOMPARE(widget.run(), m_small);
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Run #4 · small again")));

    // No run: shown at once, and an earlier build does not bring one back.
    widget.loadRun(m_large, m_json, {5, QStringLiteral("large"), {}});
    widget.loadRun(nullptr, m_json);
    settle();
    QCOMPARE(widget.run(), nullptr);
    QVERIFY(widget.headerText().startsWith(QStringLiteral("No run")));
}

void TestReplayLoading::aShownModelIsSwappedInAsItIs()
{
    // The model built elsewhere (as a loading job would) is the one the views read: not rebuilt.
    auto model = std::make_shared<const ui::ReplayModel>(m_small, m_json);
    ui::ReplayWidget widget;
    widget.setRun(model, {7, QStringLiteral("prebuilt"), {}});
    QCOMPARE(widget.model(), model);
    QCOMPARE(widget.run(), m_small);
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Run #7 · prebuilt")));
}

QTEST_MAIN(TestReplayLoading)
#include "tst_replay_loading.moc"

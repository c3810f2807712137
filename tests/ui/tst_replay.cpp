// The replay view on real runs of the default scenario: in-flight sets, marker geometry, the transport
// controls driven through their widgets, and the level-of-detail switch.
#include "core/coherence/protocol_registry.h"
#include "core/scenario/scenario_loader.h"
#include "core/serving/serving_engine.h"
#include "core/workload/workload_builder.h"
#include "ui/replay_canvas.h"
#include "ui/replay_legend.h"
#include "ui/replay_model.h"
#include "ui/replay_state_style.h"
#include "ui/replay_widget.h"
#include "ui/timeline_bar.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTest>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <random>
#include <set>

using namespace coh;

namespace {

const std::string kScenarioPath = std::string(COH_TEST_DATA_DIR) + "/../../datasets/scenarios/default.json";

nlohmann::ordered_json loadJson(const std::string& path)
{
    std::ifstream in(path);
    return nlohmann::ordered_json::parse(in);
}

std::shared_ptr<const core::RunResult> runJson(const nlohmann::ordered_json& json)
{
    core::Scenario scenario = core::parseScenario(nlohmann::json::parse(json.dump()), kScenarioPath);
    core::limitRequests(scenario.workload, 60); // enough traffic for every check, quick in a debug build
    const core::Workload workload = core::buildWorkload(scenario.workload, scenario.seed);
    return std::make_shared<const core::RunResult>(core::runScenario(scenario, workload));
}

std::size_t bruteForceInFlight(const core::RunResult& run, qint64 t)
{
    return static_cast<std::size_t>(std::count_if(run.messages.begin(), run.messages.end(),
                                                  [t](const auto& m) { return m.start <= t && t < m.end; }));
}

QPointF jsonPosition(const nlohmann::ordered_json& json, const std::string& id)
{
    for (const auto& node : json["topology"]["nodes"])
        if (node["id"] == id)
            return QPointF(node["position"][0].get<double>(), node["position"][1].get<double>());
    return QPointF(-1e9, -1e9);
}

bool near(QPointF a, QPointF b)
{
    return std::abs(a.x() - b.x()) < 1e-6 && std::abs(a.y() - b.y()) < 1e-6;
}

} // namespace

class TestReplay : public QObject {
    Q_OBJECT

  private slots:
    void legendShowsMessagesWithNoRoleOnlyWhenThereAreSome()
    {
        // A zero of a protocol role is shown greyed; the "other" entry only when some message had no role.
        ui::ReplayLegend legend;
        legend.show();
        core::RunSummary summary;
        summary.messagesByKind = {{"Data", true, 5, 5.0, "data"}};
        legend.setSummary(summary);
        QVERIFY(legend.roleButton(ui::MessageRole::BiasFlip)->isVisible());
        QVERIFY(!legend.roleButton(ui::MessageRole::Other)->isVisible());
        summary.messagesByKind.push_back({"Mystery", false, 3, 3.0, "no-such-role"});
        legend.setSummary(summary);
        QVERIFY(legend.roleButton(ui::MessageRole::Other)->isVisible());
        QVERIFY(legend.roleButton(ui::MessageRole::Other)->text().contains(QStringLiteral("(3)")));
    }

    void initTestCase();
    void inFlightMatchesBruteForce();
    void markerFollowsPath();
    void unplacedNodesGetALayout();
    void scrubbingTheSliderMovesTime();
    void stepLandsOnMessageStarts();
    void playAdvancesTime();
    void skipIdleJumpsToTheNextMessage();
    void levelOfDetailAggregatesAboveThreshold();
    void legendAndStatusShowTheRun();
    void nodesShowTheBlocksTheyHoldNow();
    void everyProtocolsStatesGetColours();

  private:
    nlohmann::ordered_json m_json;
    std::shared_ptr<const core::RunResult> m_run; // msi-directory: every role the protocol uses
};

void TestReplay::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    m_json = loadJson(kScenarioPath);
    m_json["coherence"] = {{"decode", "msi-directory"}};
    m_run = runJson(m_json);
    QVERIFY(m_run->messages.size() > 100);
    bool invalidations = false;
    for (const auto& kind : m_run->summary.messagesByKind)
        invalidations = invalidations || (kind.role == "invalidation" && kind.count > 0);
    QVERIFY2(invalidations, "the msi-directory run should invalidate");
}

void TestReplay::inFlightMatchesBruteForce()
{
    ui::ReplayModel model(m_run, m_json);
    std::vector<qint64> times = {0, model.endTime(), model.endTime() / 2};
    for (std::size_t i = 0; i < m_run->messages.size(); i += m_run->messages.size() / 50) {
        const auto& m = m_run->messages[i];
        times.insert(times.end(), {m.start, m.end, m.start + (m.end - m.start) / 2, m.end - 1});
    }
    std::mt19937_64 rng(7);
    std::uniform_int_distribution<qint64> any(0, model.endTime());
    for (int i = 0; i < 200; ++i)
        times.push_back(any(rng));

    std::size_t busiest = 0;
    std::vector<std::uint32_t> got;
    for (qint64 t : times) {
        const std::size_t expected = bruteForceInFlight(*m_run, t);
        busiest = std::max(busiest, expected);
        QCOMPARE(model.inFlightCount(t), expected);
        got.clear();
        model.inFlight(t, got);
        QCOMPARE(got.size(), expected);
        for (auto id : got)
            QVERIFY(m_run->messages[id].start <= t && t < m_run->messages[id].end);
    }
    QVERIFY2(busiest > 1, "the chosen times should catch concurrent messages");

    ui::ReplayWidget widget;
    QVERIFY(!widget.run());
    widget.setRun(m_run, m_json);
    QCOMPARE(widget.run(), m_run);
    const qint64 t = m_run->messages[m_run->messages.size() / 3].start;
    widget.setTime(t);
    QCOMPARE(static_cast<std::size_t>(widget.inFlightCount()), bruteForceInFlight(*m_run, t));
}

void TestReplay::markerFollowsPath()
{
    ui::ReplayModel model(m_run, m_json);
    // A message crossing the switch: two hops, from one GPU to another.
    auto it = std::find_if(m_run->messages.begin(), m_run->messages.end(), [&](const auto& m) {
        return m_run->paths[m.path].links.size() == 2 && m.end - m.start >= 2;
    });
    QVERIFY(it != m_run->messages.end());
    const auto index = static_cast<std::uint32_t>(it - m_run->messages.begin());
    const QPointF src = jsonPosition(m_json, m_run->nodeIds[it->src]);
    const QPointF dst = jsonPosition(m_json, m_run->nodeIds[it->dst]);
    const QPointF hub = jsonPosition(m_json, "nvswitch");

    QVERIFY(near(model.marker(index, it->start).pos, src));
    QVERIFY(near(model.marker(index, it->end).pos, dst));
    const QPolygonF poly = model.polyline(index);
    QCOMPARE(poly.size(), 3);
    QVERIFY(near(poly[0], src));
    QVERIFY(near(poly[1], hub));
    QVERIFY(near(poly[2], dst));

    // Halfway in time is halfway along the polyline's length.
    const double l1 = std::hypot(hub.x() - src.x(), hub.y() - src.y());
    const double l2 = std::hypot(dst.x() - hub.x(), dst.y() - hub.y());
    const double halfTime = static_cast<double>(it->end - it->start) / 2;
    const qint64 mid = it->start + static_cast<qint64>(halfTime);
    const double along = (static_cast<double>(mid - it->start) / static_cast<double>(it->end - it->start)) * (l1 + l2);
    const QPointF expected = along <= l1 ? src + (hub - src) * (along / l1) : hub + (dst - hub) * ((along - l1) / l2);
    const ui::ReplayModel::Marker marker = model.marker(index, mid);
    QVERIFY2(near(marker.pos, expected), qPrintable(QStringLiteral("(%1, %2) vs (%3, %4)")
                                                        .arg(marker.pos.x())
                                                        .arg(marker.pos.y())
                                                        .arg(expected.x())
                                                        .arg(expected.y())));
    const auto& path = m_run->paths[it->path];
    QCOMPARE(marker.link, static_cast<int>(path.links[along <= l1 ? 0 : 1]));
}

void TestReplay::unplacedNodesGetALayout()
{
    nlohmann::ordered_json json = m_json;
    for (auto& node : json["topology"]["nodes"])
        node.erase("position");
    ui::ReplayModel model(m_run, json);
    const auto& nodes = model.scene().nodes;
    QCOMPARE(nodes.size(), m_run->nodeIds.size());
    for (std::size_t i = 0; i < nodes.size(); ++i)
        for (std::size_t j = i + 1; j < nodes.size(); ++j)
            QVERIFY2(QLineF(nodes[i].pos, nodes[j].pos).length() > 10, "automatic layout must not stack nodes");
    QCOMPARE(nodes[0].kind, QStringLiteral("cpu_socket"));
}

void TestReplay::scrubbingTheSliderMovesTime()
{
    ui::ReplayWidget widget;
    widget.resize(900, 600);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QSignalSpy spy(&widget, &ui::ReplayWidget::timeChanged);
    QSlider* slider = widget.timeline()->slider();
    const qint64 end = widget.model()->endTime();

    slider->setFocus();
    QTest::keyClick(slider, Qt::Key_End);
    QCOMPARE(widget.time(), end);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.last().at(0).toLongLong(), end);

    QTest::keyClick(slider, Qt::Key_Home);
    QCOMPARE(widget.time(), 0);
    QTest::keyClick(slider, Qt::Key_PageUp);
    const qint64 page = widget.time();
    QVERIFY(page > 0 && page < end);
    QCOMPARE(spy.last().at(0).toLongLong(), page);

    // A click on the groove far right moves the handle towards it, whatever the style's click policy.
    const int before = spy.count();
    QTest::mouseClick(slider, Qt::LeftButton, {}, QPoint(slider->width() - 4, slider->height() / 2));
    QTRY_VERIFY(spy.count() > before);
    QVERIFY(widget.time() > page);
    QVERIFY(widget.timeline()->time() == widget.time());
}

void TestReplay::stepLandsOnMessageStarts()
{
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    std::vector<qint64> starts;
    for (const auto& m : m_run->messages)
        starts.push_back(m.start);
    std::sort(starts.begin(), starts.end());
    const qint64 from = starts[starts.size() / 2] + 1;
    widget.setTime(from);
    QTest::mouseClick(widget.timeline()->stepForwardButton(), Qt::LeftButton);
    QCOMPARE(widget.time(), *std::upper_bound(starts.begin(), starts.end(), from));
    const qint64 here = widget.time();
    QTest::mouseClick(widget.timeline()->stepBackButton(), Qt::LeftButton);
    QCOMPARE(widget.time(), *(std::lower_bound(starts.begin(), starts.end(), here) - 1));
}

void TestReplay::playAdvancesTime()
{
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QSignalSpy spy(&widget, &ui::ReplayWidget::timeChanged);
    widget.timeline()->setSpeed(1e-3); // a millisecond of simulated time per second
    QCOMPARE(widget.timeline()->speed(), 1e-3);
    QTest::mouseClick(widget.timeline()->playButton(), Qt::LeftButton);
    QVERIFY(widget.timeline()->isPlaying());
    QTRY_VERIFY_WITH_TIMEOUT(widget.time() > 0, 10000);
    QTRY_VERIFY_WITH_TIMEOUT(spy.count() >= 3, 10000); // the 60 Hz pull keeps going
    QTest::mouseClick(widget.timeline()->playButton(), Qt::LeftButton);
    QVERIFY(!widget.timeline()->isPlaying());
    const qint64 paused = widget.time();
    QTest::qWait(100);
    QCOMPARE(widget.time(), paused);
}

void TestReplay::skipIdleJumpsToTheNextMessage()
{
    // A moment with nothing in flight, a millisecond before the next message starts.
    std::vector<qint64> starts;
    for (const auto& m : m_run->messages)
        starts.push_back(m.start);
    std::sort(starts.begin(), starts.end());
    qint64 idle = -1, next = -1;
    for (std::size_t i = 1; i < starts.size() && idle < 0; ++i) {
        const qint64 t = starts[i] - 1'000'000;
        if (t > starts[i - 1] && bruteForceInFlight(*m_run, t) == 0) {
            idle = t;
            next = starts[i];
        }
    }
    QVERIFY(idle > 0);

    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    widget.timeline()->setSpeed(1e-6); // a microsecond per second: the gap alone would take 1,000 s
    QVERIFY(widget.timeline()->skipIdleBox()->isChecked());
    widget.setTime(idle);
    QTest::mouseClick(widget.timeline()->playButton(), Qt::LeftButton);
    QTRY_VERIFY_WITH_TIMEOUT(widget.time() >= next, 10000);
    QVERIFY(widget.inFlightCount() > 0);
    widget.timeline()->pause();

    // With skipping off, playing from the same idle moment crawls: after several ticks it is still idle.
    QTest::mouseClick(widget.timeline()->skipIdleBox(), Qt::LeftButton);
    QVERIFY(!widget.timeline()->skipIdle());
    widget.setTime(idle);
    QSignalSpy spy(&widget, &ui::ReplayWidget::timeChanged);
    widget.timeline()->play();
    QTRY_VERIFY_WITH_TIMEOUT(spy.count() >= 3, 10000);
    QVERIFY(widget.time() > idle && widget.time() < next);
    widget.timeline()->pause();
}

void TestReplay::levelOfDetailAggregatesAboveThreshold()
{
    // A synthetic run on the same topology with 3,000 long messages all in flight at once: above the default.
    auto synthetic = std::make_shared<core::RunResult>(*m_run);
    const core::MessageRecord sample = m_run->messages.front();
    synthetic->messages.assign(3000, sample);
    for (std::size_t i = 0; i < synthetic->messages.size(); ++i) {
        synthetic->messages[i].start = static_cast<qint64>(i);
        synthetic->messages[i].end = 1'000'000 + static_cast<qint64>(i);
    }
    auto model = std::make_shared<const ui::ReplayModel>(synthetic, m_json);
    ui::ReplayCanvas canvas;
    canvas.resize(900, 600);
    canvas.setModel(model);
    canvas.setTime(500'000);
    QImage image(canvas.size(), QImage::Format_ARGB32_Premultiplied);
    auto paint = [&] {
        QPainter painter(&image);
        canvas.paintFrame(painter, canvas.rect());
    };
    paint();
    QCOMPARE(canvas.visibleMarkerCount(), 3000);
    QVERIFY(canvas.isAggregated());

    canvas.setLodThreshold(5000);
    paint();
    QVERIFY(!canvas.isAggregated());

    // Zoomed far into an empty corner, no marker is on screen: individual markers again at the default.
    canvas.setLodThreshold(ui::ReplayCanvas::kDefaultLodThreshold);
    canvas.zoomBy(50, QPointF(1, 1));
    paint();
    QVERIFY(canvas.visibleMarkerCount() < ui::ReplayCanvas::kDefaultLodThreshold);
    QVERIFY(!canvas.isAggregated());

    // On the real run at its busiest sampled moment, a threshold just below the count flips the mode.
    ui::ReplayModel real(m_run, m_json);
    qint64 busiest = 0;
    std::size_t most = 0;
    for (const auto& m : m_run->messages)
        if (auto n = real.inFlightCount(m.start); n > most) {
            most = n;
            busiest = m.start;
        }
    canvas.setModel(std::make_shared<const ui::ReplayModel>(m_run, m_json));
    canvas.setTime(busiest);
    canvas.setLodThreshold(static_cast<int>(most) - 1);
    paint();
    QCOMPARE(static_cast<std::size_t>(canvas.visibleMarkerCount()), most);
    QVERIFY(canvas.isAggregated());
    canvas.setLodThreshold(static_cast<int>(most));
    paint();
    QVERIFY(!canvas.isAggregated());
}

void TestReplay::legendAndStatusShowTheRun()
{
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    std::uint64_t invalidations = 0;
    for (const auto& kind : m_run->summary.messagesByKind)
        if (kind.role == "invalidation")
            invalidations += kind.count;
    QCOMPARE(widget.legend()->roleText(static_cast<int>(ui::MessageRole::Invalidation)),
             QStringLiteral("invalidation (%1)").arg(invalidations));
    const qint64 t = m_run->messages[10].start;
    widget.setTime(t);
    QVERIFY(widget.statusText().contains(ui::TimelineBar::formatTime(t)));
    QVERIFY(widget.statusText().contains(QStringLiteral("in flight: %1").arg(widget.inFlightCount())));
    QCOMPARE(ui::TimelineBar::formatTime(1'500'000), QStringLiteral("1.500 ms"));
    QCOMPARE(ui::TimelineBar::formatTime(830), QStringLiteral("830 ns"));
}

void TestReplay::nodesShowTheBlocksTheyHoldNow()
{
    const ui::ReplayModel model(m_run, m_json);
    QVERIFY(!m_run->nodeBlocks.empty());
    QVERIFY(model.exactNodeBlocks());
    // The steps are the count itself: averaged over each bucket they give the engine's bucket averages.
    const qint64 width = m_run->linkInterval;
    for (const auto& series : m_run->nodeBlocks) {
        QVERIFY(series.state != "I" && series.state != "IS^D" && series.state != "IM^AD");
        QCOMPARE(series.stepResolution, 1);
        for (std::size_t b = 0; b < series.blocksPerBucket.size(); ++b) {
            const qint64 from = static_cast<qint64>(b) * width, to = from + width;
            double blockNs = 0;
            for (std::size_t i = 0; i < series.steps.size(); ++i) {
                const qint64 begin = std::max<qint64>(from, series.steps[i].at);
                const qint64 end = std::min(to, i + 1 < series.steps.size() ? series.steps[i + 1].at : to);
                if (end > begin)
                    blockNs += series.steps[i].blocks * static_cast<double>(end - begin);
            }
            QVERIFY2(std::abs(blockNs / static_cast<double>(width) - series.blocksPerBucket[b]) <=
                         1e-9 * std::max(1.0, series.peakBlocks),
                     qPrintable(QStringLiteral("%1 bucket %2").arg(QString::fromStdString(series.state)).arg(b)));
        }
    }

    // At t = 0, before any message, no node holds anything and the canvas draws no counts.
    ui::ReplayCanvas canvas;
    canvas.resize(900, 600);
    canvas.setModel(std::make_shared<const ui::ReplayModel>(m_run, m_json));
    QImage image(canvas.size(), QImage::Format_ARGB32_Premultiplied);
    const auto paintAt = [&](qint64 t) {
        canvas.setTime(t);
        QPainter painter(&image);
        canvas.paintFrame(painter, canvas.rect());
    };
    paintAt(0);
    for (std::uint32_t node = 0; node < m_run->nodeIds.size(); ++node)
        QVERIFY(model.nodeBlocks(node, 0).empty());
    QVERIFY(canvas.lastBadges().empty());

    // When the first KV transfer completes, the decode node holds that request's blocks, readable (MSI's S).
    const auto first = std::min_element(m_run->requests.begin(), m_run->requests.end(),
                                        [](const auto& a, const auto& b) { return a.kvReady < b.kvReady; });
    std::uint32_t decodeNode = 0;
    for (const auto& m : m_run->messages)
        if (m.request == first->id && m.end <= first->kvReady &&
            model.role(static_cast<std::uint32_t>(&m - m_run->messages.data())) == ui::MessageRole::Data)
            decodeNode = m.dst;
    const core::Scenario scenario = core::parseScenario(nlohmann::json::parse(m_json.dump()), kScenarioPath);
    const std::uint32_t blockTokens = scenario.serving.blockTokens;
    // Its full blocks are in S; the open tail block (if any) is on its way to decode's write (MSI's SM^AD).
    const double blocks = std::floor(static_cast<double>(first->promptTokens) / blockTokens);
    const double all = std::ceil(static_cast<double>(first->promptTokens) / blockTokens);
    paintAt(first->kvReady);
    const auto held = model.nodeBlocks(decodeNode, first->kvReady);
    const auto shared =
        std::find_if(held.begin(), held.end(), [](const auto& b) { return b.state == QStringLiteral("S"); });
    QVERIFY(shared != held.end());
    QCOMPARE(shared->blocks, blocks);
    double total = 0;
    for (const auto& h : held)
        total += h.blocks;
    QCOMPARE(total, all);
    QVERIFY(std::any_of(canvas.lastBadges().begin(), canvas.lastBadges().end(), [&](const auto& badge) {
        return badge.node == decodeNode && badge.state == QStringLiteral("S") && badge.blocks == blocks;
    }));
    // A moment before the first change at that node it held nothing.
    qint64 firstChange = std::numeric_limits<qint64>::max();
    for (const auto& series : m_run->nodeBlocks)
        if (series.node == decodeNode && !series.steps.empty())
            firstChange = std::min<qint64>(firstChange, series.steps.front().at);
    QVERIFY(model.nodeBlocks(decodeNode, firstChange - 1).empty());

    // The plain copy has no protocol states: nothing to show.
    nlohmann::ordered_json direct = m_json;
    direct.erase("coherence");
    const auto plain = runJson(direct);
    const ui::ReplayModel plainModel(plain, direct);
    for (std::uint32_t node = 0; node < plain->nodeIds.size(); ++node)
        QVERIFY(plainModel.nodeBlocks(node, plain->summary.makespan / 2).empty());
}

void TestReplay::everyProtocolsStatesGetColours()
{
    // Colours come from what a state allows, not from its letters: the protocols whose states are not M/E/O/S.
    for (const char* protocol : {"cxl-asymmetric", "sealed-lease", "lazy-causal", "moesi-directory"}) {
        nlohmann::ordered_json json = m_json;
        json["coherence"] = {{"decode", protocol}};
        const auto run = runJson(json);
        ui::ReplayCanvas canvas;
        canvas.resize(900, 600);
        canvas.setModel(std::make_shared<const ui::ReplayModel>(run, json));
        QImage image(canvas.size(), QImage::Format_ARGB32_Premultiplied);
        const core::coherence::Protocol& table = core::coherence::findProtocol(protocol);
        std::set<QString> seen;
        for (const auto& series : run->nodeBlocks)
            for (const auto& step : series.steps) {
                canvas.setTime(step.at);
                QPainter painter(&image);
                canvas.paintFrame(painter, canvas.rect());
                for (const auto& badge : canvas.lastBadges()) {
                    seen.insert(badge.state);
                    float h = 0, sat = 0, l = 0;
                    badge.colour.getHslF(&h, &sat, &l);
                    QVERIFY2(
                        sat > 0.3f,
                        qPrintable(QStringLiteral("%1 %2 is grey").arg(QString::fromLatin1(protocol), badge.state)));
                    const int state = table.cache.findState(badge.state.toStdString());
                    QVERIFY(state >= 0);
                    QCOMPARE(badge.colour, ui::blockStateColor(table.cache.states[static_cast<std::size_t>(state)],
                                                               canvas.palette()));
                }
                if (seen.size() > 1)
                    break;
            }
        QVERIFY2(!seen.empty(), protocol);
    }
    // The colours are worked out once per palette, not per badge and frame: a new palette gets its own.
    {
        ui::ReplayCanvas canvas;
        canvas.resize(900, 600);
        canvas.setModel(std::make_shared<const ui::ReplayModel>(m_run, m_json));
        const auto& series = m_run->nodeBlocks.front();
        canvas.setTime(series.steps.back().at);
        QImage image(canvas.size(), QImage::Format_ARGB32_Premultiplied);
        QPalette dark = canvas.palette();
        dark.setColor(QPalette::Base, QColor(0x20, 0x20, 0x24));
        dark.setColor(QPalette::Text, QColor(0xe8, 0xe8, 0xe8));
        const auto& msi = core::coherence::findProtocol("msi-directory");
        for (const QPalette& palette : {canvas.palette(), dark, QApplication::palette()}) {
            canvas.setPalette(palette);
            QPainter painter(&image);
            canvas.paintFrame(painter, canvas.rect());
            QVERIFY(!canvas.lastBadges().empty());
            for (const auto& badge : canvas.lastBadges())
                QCOMPARE(badge.colour,
                         ui::blockStateColor(
                             msi.cache.states[static_cast<std::size_t>(msi.cache.findState(badge.state.toStdString()))],
                             palette));
        }
    }
    // Writable, readable and held states differ; a state's class is read from its table row.
    const auto& msi = core::coherence::findProtocol("msi-directory");
    const auto state = [&](const char* name) {
        return msi.cache.states[static_cast<std::size_t>(msi.cache.findState(name))];
    };
    QCOMPARE(ui::blockStateClass(state("M")), ui::BlockStateClass::Writable);
    QCOMPARE(ui::blockStateClass(state("S")), ui::BlockStateClass::Readable);
    QCOMPARE(ui::blockStateClass(state("MI^A")), ui::BlockStateClass::Held);
    const QPalette p = QApplication::palette();
    QVERIFY(ui::blockStateColor(ui::BlockStateClass::Writable, p) !=
            ui::blockStateColor(ui::BlockStateClass::Readable, p));
    QVERIFY(ui::blockStateColor(ui::BlockStateClass::Held, p) != ui::blockStateColor(ui::BlockStateClass::Readable, p));
}

QTEST_MAIN(TestReplay)
#include "tst_replay.moc"

// Failures in the replay: a run of the default scenario given one synthetic failure (a GPU down from a quarter
// of the run, detected a little later, back at half) shows the node down on the canvas, in its tooltip and the
// status line inside that interval only, and a band on the scrubber; a link given the same interval is dashed in the
// error tone; a run without failures shows none of it.
#include "replay_fixtures.h"
#include "ui/main_actions.h"
#include "ui/replay_canvas.h"
#include "ui/replay_canvas_style.h"
#include "ui/replay_model.h"
#include "ui/replay_tooltips.h"
#include "ui/replay_widget.h"
#include "ui/theme.h"
#include "ui/timeline_bar.h"

#include <QApplication>
#include <QImage>
#include <QPainter>
#include <QSlider>
#include <QTest>

#include <array>
#include <cmath>

using namespace coh;

namespace {

const std::string kScenario = "scenarios/default.json";

// Whether a pixel is of the error tone's hue, pure red (either palette's is): more red than green, green and blue
// alike. The busy links' orange, the switch icon's and the writable state's vermillion have far less blue than green.
bool reddish(const QColor& c)
{
    return c.red() > c.green() + 40 && std::abs(c.green() - c.blue()) < 30;
}

int reddishPixels(const QImage& image, const QRect& area)
{
    int count = 0;
    const QRect r = area.intersected(image.rect());
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x)
            count += reddish(image.pixelColor(x, y)) ? 1 : 0;
    return count;
}

} // namespace

class TestReplayFailures : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void cleanup() { ui::MainActions::applyPalette(false); }
    void theModelHasTheNodeDownInsideTheIntervalOnly();
    void aFailureNeverRepairedLastsToTheEnd();
    void aFailureOfAnUnknownNodeIsLeftOut();
    void aLinkFailureDashesTheLinkAndNamesIt_data();
    void aLinkFailureDashesTheLinkAndNamesIt();
    void theCanvasDrawsTheNodeDown_data();
    void theCanvasDrawsTheNodeDown();
    void theNodeToolTipSaysSinceWhen();
    void theTimelineBandsTheFailure();
    void aRunWithoutFailuresShowsNone();

  private:
    std::shared_ptr<const core::RunResult> withFailure(qint64 repaired) const;

    nlohmann::ordered_json m_json;
    std::shared_ptr<const core::RunResult> m_plain;
    std::uint32_t m_node = 0; // gpu3
    qint64 m_end = 0, m_failed = 0, m_detected = 0, m_repaired = 0;
};

void TestReplayFailures::initTestCase()
{
    const std::string path = test::datasetPath(kScenario);
    m_json = test::loadJson(path);
    m_plain = test::runJson(m_json, path, 30);
    QVERIFY(!m_plain->summary.failures.enabled);
    QVERIFY(m_plain->summary.failures.failures.empty());
    const auto it = std::find(m_plain->nodeIds.begin(), m_plain->nodeIds.end(), "gpu3");
    QVERIFY(it != m_plain->nodeIds.end());
    m_node = static_cast<std::uint32_t>(it - m_plain->nodeIds.begin());
    m_end = ui::ReplayModel(m_plain, m_json).endTime();
    QVERIFY(m_end > 1000);
    m_failed = m_end / 4;
    m_detected = m_failed + m_end / 20;
    m_repaired = m_end / 2;
}

std::shared_ptr<const core::RunResult> TestReplayFailures::withFailure(qint64 repaired) const
{
    auto run = std::make_shared<core::RunResult>(*m_plain);
    run->summary.failures.enabled = true;
    core::FailureRecord record;
    record.node = "gpu3";
    record.instances = {"decode1"};
    record.failed = m_failed;
    record.detected = m_detected;
    record.repaired = repaired;
    record.requestsLost = 4;
    run->summary.failures.failures.push_back(record);
    return run;
}

void TestReplayFailures::theModelHasTheNodeDownInsideTheIntervalOnly()
{
    const ui::ReplayModel model(withFailure(m_repaired), m_json);
    QCOMPARE(model.failures().size(), std::size_t(1));
    const ui::ReplayModel::Failure& f = model.failures().front();
    QCOMPARE(f.node, m_node);
    QCOMPARE(f.failed, m_failed);
    QCOMPARE(f.detected, m_detected);
    QCOMPARE(f.repaired, m_repaired);
    QCOMPARE(f.record, std::size_t(0));

    QVERIFY(!model.nodeDown(m_node, 0));
    QVERIFY(!model.nodeDown(m_node, m_failed - 1));
    QVERIFY(model.nodeDown(m_node, m_failed));
    QVERIFY(!model.nodeFailureAt(m_node, m_failed)->detectedAt(m_failed));
    QVERIFY(!model.nodeFailureAt(m_node, m_detected - 1)->detectedAt(m_detected - 1));
    QVERIFY(model.nodeFailureAt(m_node, m_detected)->detectedAt(m_detected));
    QVERIFY(model.nodeDown(m_node, m_repaired - 1));
    QVERIFY(!model.nodeDown(m_node, m_repaired));
    QVERIFY(!model.nodeDown(m_node, m_end));
    // Every other node stays up throughout.
    for (std::uint32_t n = 0; n < model.scene().nodes.size(); ++n)
        if (n != m_node)
            for (qint64 t : {qint64(0), m_failed, m_detected, m_repaired - 1, m_end})
                QVERIFY(!model.nodeDown(n, t));
}

void TestReplayFailures::aFailureNeverRepairedLastsToTheEnd()
{
    const ui::ReplayModel model(withFailure(-1), m_json);
    QVERIFY(!model.nodeDown(m_node, m_failed - 1));
    QVERIFY(model.nodeDown(m_node, m_repaired));
    QVERIFY(model.nodeDown(m_node, m_end));
    QVERIFY(ui::downText(*model.nodeFailureAt(m_node, m_end), m_end).contains(QStringLiteral("not back")));
    ui::ReplayWidget widget;
    widget.setRun(std::make_shared<const ui::ReplayModel>(withFailure(-1), m_json));
    QCOMPARE(widget.timeline()->bands().size(), std::size_t(1));
    QCOMPARE(widget.timeline()->bands().front().to, widget.model()->endTime());
    QVERIFY(widget.timeline()->bands().front().toolTip.contains(QStringLiteral("to the end of the run")));
}

void TestReplayFailures::aFailureOfAnUnknownNodeIsLeftOut()
{
    auto run = std::make_shared<core::RunResult>(*withFailure(m_repaired));
    run->summary.failures.failures.front().node = "no-such-node";
    const ui::ReplayModel model(run, m_json);
    QVERIFY(model.failures().empty());
    for (std::uint32_t n = 0; n < model.scene().nodes.size(); ++n)
        QVERIFY(!model.nodeDown(n, m_failed));
}

void TestReplayFailures::aLinkFailureDashesTheLinkAndNamesIt_data()
{
    QTest::addColumn<bool>("dark");
    QTest::newRow("light") << false;
    QTest::newRow("dark") << true;
}

void TestReplayFailures::aLinkFailureDashesTheLinkAndNamesIt()
{
    QFETCH(bool, dark);
    ui::MainActions::applyPalette(dark);
    // gpu3's NVLink (gpu3 prefills, so the link carries KV in this run) down over the same interval.
    auto run = std::make_shared<core::RunResult>(*withFailure(m_repaired));
    core::FailureRecord& record = run->summary.failures.failures.front();
    record.node.clear();
    record.instances.clear();
    record.requestsLost = 0;
    record.link = "gpu3-nvswitch";
    const auto model = std::make_shared<const ui::ReplayModel>(run, m_json);
    QCOMPARE(model->failures().size(), std::size_t(1));
    const int link = model->failures().front().link;
    QVERIFY(link >= 0);
    QCOMPARE(model->scene().links[static_cast<std::size_t>(link)].id, QStringLiteral("gpu3-nvswitch"));
    QVERIFY(!model->linkFailureAt(link, m_failed - 1));
    QVERIFY(model->linkFailureAt(link, m_failed));
    QVERIFY(model->linkFailureAt(link, m_repaired - 1));
    QVERIFY(!model->linkFailureAt(link, m_repaired));
    for (std::uint32_t n = 0; n < model->scene().nodes.size(); ++n)
        QVERIFY(!model->nodeDown(n, m_failed)); // a link's failure takes no node down
    QVERIFY(ui::linkToolTip(*model, link, m_detected).contains(QStringLiteral("detected at")));
    QVERIFY(!ui::linkToolTip(*model, link, m_failed - 1).contains(QStringLiteral("Down since")));
    const QString band = ui::failureToolTip(*model, model->failures().front());
    QVERIFY2(band.startsWith(QStringLiteral("gpu3-nvswitch down from")), qPrintable(band));
    QVERIFY(!band.contains(QStringLiteral("Requests it took")));

    // Drawn dashed in the error tone while down; no node drawn down.
    ui::ReplayCanvas canvas;
    canvas.resize(1000, 650);
    canvas.setModel(model);
    std::array<bool, ui::kMessageRoleCount> hidden;
    hidden.fill(true);
    canvas.setHiddenRoles(hidden);
    const auto frame = [&](qint64 t) {
        canvas.setTime(t);
        QImage image(canvas.size(), QImage::Format_RGB32);
        QPainter painter(&image);
        canvas.paintFrame(painter, QRect(QPoint(), canvas.size()));
        return image;
    };
    const ui::ReplayLink& l = model->scene().links[static_cast<std::size_t>(link)];
    const QPointF a = canvas.mapFromScene(model->scene().nodes[static_cast<std::size_t>(l.a)].pos);
    const QPointF b = canvas.mapFromScene(model->scene().nodes[static_cast<std::size_t>(l.b)].pos);
    // The stretch of the line between a quarter and three quarters of the way: clear of both icons.
    const QRect middle =
        QRectF(a + (b - a) * 0.25, a + (b - a) * 0.75).normalized().toAlignedRect().adjusted(-3, -3, 3, 3);
    QCOMPARE(reddishPixels(frame(m_failed - 1), middle), 0);
    QVERIFY(reddishPixels(frame(m_failed), middle) > 10);
    QVERIFY(canvas.lastDownNodes().empty());
}

void TestReplayFailures::theCanvasDrawsTheNodeDown_data()
{
    QTest::addColumn<bool>("dark");
    QTest::newRow("light") << false;
    QTest::newRow("dark") << true;
}

void TestReplayFailures::theCanvasDrawsTheNodeDown()
{
    QFETCH(bool, dark);
    ui::MainActions::applyPalette(dark);
    const auto model = std::make_shared<const ui::ReplayModel>(withFailure(m_repaired), m_json);
    ui::ReplayCanvas canvas;
    canvas.resize(1000, 650);
    canvas.setModel(model);
    std::array<bool, ui::kMessageRoleCount> hidden;
    hidden.fill(true); // no markers: only nodes, links and labels
    canvas.setHiddenRoles(hidden);
    const QSize size = canvas.size();
    const auto frame = [&](qint64 t) {
        canvas.setTime(t);
        QImage image(size, QImage::Format_RGB32);
        QPainter painter(&image);
        canvas.paintFrame(painter, QRect(QPoint(), size));
        return image;
    };
    const QPointF c = canvas.mapFromScene(model->scene().nodes[m_node].pos);
    const int icon = ui::canvas::kIconSize;
    const QRect iconBox(qRound(c.x()) - icon / 2, qRound(c.y()) - icon / 2, icon, icon);

    const QImage before = frame(m_failed - 1);
    QVERIFY(canvas.lastDownNodes().empty());
    QCOMPARE(reddishPixels(before, iconBox.adjusted(-4, -40, 4, 0)), 0);

    const QImage down = frame(m_failed);
    QCOMPARE(canvas.lastDownNodes().size(), std::size_t(1));
    const ui::ReplayCanvas::DownNode& d = canvas.lastDownNodes().front();
    QCOMPARE(d.node, m_node);
    QVERIFY(!d.detected);
    QCOMPARE(d.text, QStringLiteral("down"));
    // The badge sits above the icon, filled in the error tone, its text readable on it.
    QVERIFY(d.badge.bottom() <= iconBox.top());
    QVERIFY(std::abs(d.badge.center().x() - c.x()) <= 1);
    const QColor fill = down.pixelColor(qRound(d.badge.left()) + 3, qRound(d.badge.center().y()));
    const QColor error = ui::toneColor(ui::Tone::Error, canvas.palette(), canvas.palette().color(QPalette::Base));
    QVERIFY2(ui::contrastRatio(fill, error) < 1.1, qPrintable(fill.name() + QStringLiteral(" vs ") + error.name()));
    QVERIFY(ui::contrastRatio(ui::textOn(error), error) >= 4.5);
    // The icon is hatched in the error tone and faded: it differs from the icon up.
    QVERIFY(reddishPixels(down, iconBox) > icon);
    int changed = 0;
    for (int y = iconBox.top(); y <= iconBox.bottom(); ++y)
        for (int x = iconBox.left(); x <= iconBox.right(); ++x)
            changed += before.pixel(x, y) != down.pixel(x, y) ? 1 : 0;
    QVERIFY(changed > icon * icon / 4);
    // No other node is drawn down.
    for (std::uint32_t n = 0; n < model->scene().nodes.size(); ++n) {
        if (n == m_node)
            continue;
        const QPointF o = canvas.mapFromScene(model->scene().nodes[n].pos);
        const QRect box(qRound(o.x()) - icon / 2, qRound(o.y()) - icon / 2, icon, icon);
        QCOMPARE(reddishPixels(down, box), reddishPixels(before, box));
    }

    frame(m_detected);
    QCOMPARE(canvas.lastDownNodes().size(), std::size_t(1));
    QVERIFY(canvas.lastDownNodes().front().detected);
    QVERIFY(canvas.lastDownNodes().front().text.contains(QStringLiteral("detected")));

    frame(m_repaired - 1);
    QCOMPARE(canvas.lastDownNodes().size(), std::size_t(1));
    const QImage back = frame(m_repaired);
    QVERIFY(canvas.lastDownNodes().empty());
    QCOMPARE(reddishPixels(back, iconBox.adjusted(-4, -40, 4, 0)), 0);
}

void TestReplayFailures::theNodeToolTipSaysSinceWhen()
{
    const ui::ReplayModel model(withFailure(m_repaired), m_json);
    const QString failed = ui::TimelineBar::formatTime(m_failed);
    const QString detected = ui::TimelineBar::formatTime(m_detected);
    const QString back = ui::TimelineBar::formatTime(m_repaired);
    QVERIFY(!ui::nodeToolTip(model, m_node, m_failed - 1).contains(QStringLiteral("Down")));
    const QString early = ui::nodeToolTip(model, m_node, m_failed);
    QVERIFY2(early.contains(QStringLiteral("Down since %1").arg(failed)), qPrintable(early));
    QVERIFY2(early.contains(QStringLiteral("not detected yet")), qPrintable(early));
    QVERIFY2(early.contains(back), qPrintable(early));
    const QString late = ui::nodeToolTip(model, m_node, m_detected);
    QVERIFY2(late.contains(QStringLiteral("Down since %1, detected at %2").arg(failed, detected)), qPrintable(late));
    QVERIFY(!ui::nodeToolTip(model, m_node, m_repaired).contains(QStringLiteral("Down")));
    // Another node says nothing of it.
    QVERIFY(!ui::nodeToolTip(model, m_node + 1, m_detected).contains(QStringLiteral("Down")));

    // Hovering the node on the canvas says the same.
    ui::ReplayCanvas canvas;
    canvas.resize(1000, 650);
    canvas.setModel(std::make_shared<const ui::ReplayModel>(withFailure(m_repaired), m_json));
    canvas.setTime(m_detected);
    const QString hover = canvas.toolTipAt(canvas.mapFromScene(model.scene().nodes[m_node].pos));
    QVERIFY2(hover.contains(QStringLiteral("Down since %1").arg(failed)), qPrintable(hover));
}

void TestReplayFailures::theTimelineBandsTheFailure()
{
    ui::ReplayWidget widget;
    widget.resize(1200, 800);
    widget.setRun(std::make_shared<const ui::ReplayModel>(withFailure(m_repaired), m_json));
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    ui::TimelineBar* bar = widget.timeline();
    QCOMPARE(bar->bands().size(), std::size_t(1));
    const ui::TimelineBar::Band& band = bar->bands().front();
    QCOMPARE(band.from, m_failed);
    QCOMPARE(band.to, m_repaired);
    QCOMPARE(band.tick, m_detected);
    QVERIFY2(
        band.toolTip.contains(QStringLiteral("gpu3 down from %1 to %2")
                                  .arg(ui::TimelineBar::formatTime(m_failed), ui::TimelineBar::formatTime(m_repaired))),
        qPrintable(band.toolTip));
    QVERIFY(band.toolTip.contains(QStringLiteral("Detected at %1").arg(ui::TimelineBar::formatTime(m_detected))));
    QVERIFY(band.toolTip.contains(QStringLiteral("decode1")));

    // The band spans the scrubber from a quarter to half way, as the handle does at those times.
    QSlider* slider = bar->slider();
    const QRect r = bar->bandRect(0);
    QVERIFY(slider->rect().contains(r));
    QCOMPARE(r.left(), bar->sliderX(m_failed));
    QCOMPARE(r.right() + 1, bar->sliderX(m_repaired));
    QVERIFY(bar->sliderX(0) < r.left() && r.right() < bar->sliderX(m_end));
    QVERIFY(std::abs(r.width() - (bar->sliderX(m_end) - bar->sliderX(0)) / 4) <= 2);
    QVERIFY(bar->bandToolTipAt(r.center()).contains(QStringLiteral("gpu3")));
    QVERIFY(bar->bandToolTipAt(QPoint(bar->sliderX(0) + 1, r.center().y())).isEmpty());
    QVERIFY(bar->bandToolTipAt(QPoint(bar->sliderX(m_end) - 1, r.center().y())).isEmpty());

    // It is painted: the error tone inside the band (away from the handle, at t = 0), none outside it.
    const QImage image = slider->grab().toImage();
    const QRect inside = r.adjusted(3, 1, -3, -1);
    QVERIFY(reddishPixels(image, inside) > inside.width() * inside.height() / 2);
    QCOMPARE(reddishPixels(image, QRect(r.right() + 3, 0, slider->width() - r.right() - 3, slider->height())), 0);

    // Inside the interval the status line names the node; outside it does not.
    widget.setTime(m_detected);
    QVERIFY2(widget.statusText().contains(QStringLiteral("down: gpu3")), qPrintable(widget.statusText()));
    widget.setTime(m_repaired);
    QVERIFY(!widget.statusText().contains(QStringLiteral("down:")));
}

void TestReplayFailures::aRunWithoutFailuresShowsNone()
{
    ui::ReplayWidget widget;
    widget.resize(1200, 800);
    widget.setRun(std::make_shared<const ui::ReplayModel>(withFailure(m_repaired), m_json));
    QCOMPARE(widget.timeline()->bands().size(), std::size_t(1));
    // Another run, without failures: its bands go, and nothing is down at any time.
    widget.setRun(m_plain, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QVERIFY(widget.model()->failures().empty());
    QVERIFY(widget.timeline()->bands().empty());
    QVERIFY(widget.timeline()->bandToolTipAt(QPoint(widget.timeline()->slider()->width() / 2, 5)).isEmpty());
    ui::ReplayCanvas* canvas = widget.canvas();
    for (int i = 0; i <= 8; ++i) {
        const qint64 t = m_end * i / 8;
        widget.setTime(t);
        QImage image(canvas->size(), QImage::Format_RGB32);
        QPainter painter(&image);
        canvas->paintFrame(painter, canvas->rect());
        QVERIFY(canvas->lastDownNodes().empty());
        QVERIFY(!widget.statusText().contains(QStringLiteral("down:")));
        for (std::uint32_t n = 0; n < widget.model()->scene().nodes.size(); ++n)
            QVERIFY(!ui::nodeToolTip(*widget.model(), n, t).contains(QStringLiteral("Down")));
    }
    // The scrubber is the plain slider: no error tone on it.
    QCOMPARE(reddishPixels(widget.timeline()->slider()->grab().toImage(), widget.timeline()->slider()->rect()), 0);
}

QTEST_MAIN(TestReplayFailures)
#include "tst_replay_failures.moc"

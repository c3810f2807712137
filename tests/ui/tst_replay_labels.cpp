// Node labels on the replay canvas: each sits right under its node on an opaque plate painted over the links; a
// label moves only when its place is taken by another node or label, and then by the smallest move.
#include "replay_fixtures.h"
#include "ui/main_actions.h"
#include "ui/replay_canvas.h"
#include "ui/replay_canvas_style.h"
#include "ui/replay_labels.h"
#include "ui/replay_model.h"

#include <QApplication>
#include <QDir>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

using namespace coh;

namespace {

constexpr double kIcon = ui::canvas::kIconSize;

QRectF grown(const QRectF& r, double by)
{
    return r.adjusted(-by, -by, by, by);
}

QRectF iconBox(QPointF c)
{
    return {c.x() - kIcon / 2, c.y() - kIcon / 2, kIcon, kIcon};
}

} // namespace

class TestReplayLabels : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void cleanup() { ui::MainActions::applyPalette(false); }
    void aTakenPlaceMovesTheLabelTheLeast();
    void aFreePlaceKeepsTheLabelEvenOutOfView();
    void statesHeldTogetherAreTheCountsAtEachChange();
    void labelsSitUnderTheirNodesOverTheLinks_data();
    void labelsSitUnderTheirNodesOverTheLinks();

  private:
    struct Run {
        nlohmann::ordered_json json;
        std::shared_ptr<const ui::ReplayModel> model;
    };
    std::map<QString, Run> m_runs;
};

void TestReplayLabels::initTestCase()
{
    const QStringList files = {
        QStringLiteral("presets/cxl-pool.json"),         QStringLiteral("presets/dgx-h100-8gpu.json"),
        QStringLiteral("presets/edge-cluster.json"),     QStringLiteral("presets/ib-two-node.json"),
        QStringLiteral("presets/two-socket-4pcie.json"), QStringLiteral("scenarios/default.json"),
        QStringLiteral("scenarios/prefix-pool-cxl.json")};
    for (const QString& file : files) {
        const std::string path = test::datasetPath(file.toStdString());
        nlohmann::ordered_json json = test::loadJson(path);
        json["coherence"]["decode"] = "msi-directory"; // block lines under the nodes, as tall as they get
        const auto run = test::runJson(json, path, 30);
        QVERIFY(!run->nodeBlocks.empty());
        m_runs[file] = {json, std::make_shared<const ui::ReplayModel>(run, json)};
    }
}

void TestReplayLabels::aTakenPlaceMovesTheLabelTheLeast()
{
    // Two icons 40 px apart, labels 60 × 16. The first sits at home: x -30..30, y 18+2 = 20..36. The second's home
    // (x 10..70, y 20..36) overlaps it. Clearing the first label and the spacing (2 px) takes 22 px to the right
    // (x from 10 to 32) or 18 px down (y from 20 to 38): down is the smaller move; nothing else is in the way.
    const auto placement = ui::placeNodeLabels({QPointF(0, 0), QPointF(40, 0)}, 36, {QSizeF(60, 16), QSizeF(60, 16)});
    QCOMPARE(placement.rects[0], QRectF(-30, 20, 60, 16));
    QCOMPARE(placement.displaced[0], false);
    QCOMPARE(placement.rects[1], QRectF(10, 38, 60, 16));
    QCOMPARE(placement.displaced[1], true);
    // Taller labels (30 px): down would be 32 px, right still 22: the label goes right, level with its home.
    const auto tall = ui::placeNodeLabels({QPointF(0, 0), QPointF(40, 0)}, 36, {QSizeF(60, 30), QSizeF(60, 30)});
    QCOMPARE(tall.rects[1], QRectF(32, 20, 60, 30));
    // A third icon under the second's home (centre 40, 52: 20..60 × 32..72 with the spacing) takes the move down
    // too: down now needs 52 px (y to 72), right 50 (x to 60, past the first label and the third icon). Its own
    // label's place below it is free and kept.
    const std::vector<QPointF> centres = {QPointF(0, 0), QPointF(40, 0), QPointF(40, 52)};
    const auto blocked = ui::placeNodeLabels(centres, 36, {QSizeF(60, 16), QSizeF(60, 16), QSizeF(20, 16)});
    QCOMPARE(blocked.displaced[1], true);
    QCOMPARE(blocked.displaced[2], false);
    QCOMPARE(blocked.rects[1], QRectF(60, 20, 60, 16));
    // By brute force on the pixel grid: no free place for the second label is nearer its home.
    const QRectF home = ui::labelHome(centres[1], 36, QSizeF(60, 16));
    std::vector<QRectF> taken = {grown(blocked.rects[0], ui::kLabelSpacing)};
    for (const QPointF& c : centres)
        taken.push_back(grown(iconBox(c), ui::kLabelSpacing));
    double nearest = 1e9;
    for (int dy = -120; dy <= 120; ++dy)
        for (int dx = -120; dx <= 120; ++dx) {
            const QRectF r = home.translated(dx, dy);
            if (std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) { return t.intersects(r); }))
                nearest = std::min(nearest, std::hypot(dx, dy));
        }
    QCOMPARE(nearest, 50.0);
}

void TestReplayLabels::aFreePlaceKeepsTheLabelEvenOutOfView()
{
    // A node at the bottom edge: its label's place is below the view, yet free, so it stays (it goes with its
    // node when the user pans); only a label that has to move prefers a place in view.
    const QRectF view(0, 0, 200, 100);
    const auto placement = ui::placeNodeLabels({QPointF(100, 90)}, 36, {QSizeF(40, 16)}, view);
    QCOMPARE(placement.rects[0], QRectF(80, 110, 40, 16));
    QCOMPARE(placement.displaced[0], false);
}

void TestReplayLabels::statesHeldTogetherAreTheCountsAtEachChange()
{
    // By brute force: at every recorded change of any of a node's states, the states nodeBlocks shows (half a
    // block or more, as the label draws them) form one of the sets, and every set is met at some change.
    for (const auto& [file, run] : m_runs) {
        const ui::ReplayModel& model = *run.model;
        QVERIFY(model.exactNodeBlocks());
        for (std::uint32_t n = 0; n < model.scene().nodes.size(); ++n) {
            const auto peaks = model.nodePeakBlocks(n);
            std::vector<qint64> times;
            for (const auto& series : model.run()->nodeBlocks)
                if (series.node == n)
                    for (const auto& step : series.steps)
                        times.push_back(step.at);
            std::set<std::uint64_t> seen;
            for (qint64 t : times) {
                std::uint64_t mask = 0;
                for (const auto& b : model.nodeBlocks(n, t)) {
                    const auto k =
                        std::find_if(peaks.begin(), peaks.end(), [&](const auto& p) { return p.state == b.state; }) -
                        peaks.begin();
                    if (b.blocks >= 0.5)
                        mask |= std::uint64_t{1} << k;
                }
                seen.insert(mask);
            }
            const auto sets = model.nodeStatesHeldTogether(n);
            QCOMPARE(std::set<std::uint64_t>(sets.begin(), sets.end()), seen);
            QCOMPARE(sets.size(), seen.size()); // no repeats
        }
    }
}

void TestReplayLabels::labelsSitUnderTheirNodesOverTheLinks_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("dark");
    for (const auto& [file, run] : m_runs)
        for (const QSize size : {QSize(680, 440), QSize(1600, 1000)})
            for (bool dark : {false, true})
                QTest::addRow("%s %dx%d %s", qPrintable(file), size.width(), size.height(), dark ? "dark" : "light")
                    << file << size << dark;
}

void TestReplayLabels::labelsSitUnderTheirNodesOverTheLinks()
{
    QFETCH(QString, file);
    QFETCH(QSize, size);
    QFETCH(bool, dark);
    ui::MainActions::applyPalette(dark);
    const auto& model = m_runs.at(file).model;
    ui::ReplayCanvas canvas;
    QPalette palette = QApplication::palette();
    const QColor base = palette.color(QPalette::Base);
    // Text in a transparent colour: at t = 0 (no blocks held, so no block lines) every pixel inside a plate is then
    // the plate's fill, unless something painted after it shows through.
    palette.setColor(QPalette::Text, Qt::transparent);
    canvas.setPalette(palette);
    canvas.resize(size);
    canvas.setModel(model);
    std::array<bool, ui::kMessageRoleCount> hidden;
    hidden.fill(true); // no markers: they are drawn over everything on purpose
    canvas.setHiddenRoles(hidden);

    const ui::ReplayScene& scene = model->scene();
    std::vector<QRectF> icons;
    for (const ui::ReplayNode& node : scene.nodes)
        icons.push_back(iconBox(canvas.mapFromScene(node.pos)));
    const auto name = [&](std::size_t n) { return scene.nodes[n].id; };

    // Places: no two labels and no label and icon overlap (each keeps the spacing); a label not displaced is right
    // under its node, centred; a displaced one had its place taken by another icon or label.
    int displaced = 0;
    for (std::uint32_t n = 0; n < scene.nodes.size(); ++n) {
        const QRectF label = canvas.labelRect(n);
        QVERIFY(label.height() > 0);
        for (std::uint32_t m = 0; m < scene.nodes.size(); ++m) {
            QVERIFY2(m == n || !grown(label, 1).intersects(canvas.labelRect(m)),
                     qPrintable(QStringLiteral("%1's label overlaps %2's").arg(name(n), name(m))));
            QVERIFY2(!grown(label, 1).intersects(icons[m]),
                     qPrintable(QStringLiteral("%1's label overlaps %2's icon").arg(name(n), name(m))));
        }
        const QPointF c = icons[n].center();
        if (!canvas.labelDisplaced(n)) {
            // kLabelGap under the icon and centred on it, to the whole pixel.
            const double below = label.top() - icons[n].bottom();
            QVERIFY2(below >= ui::kLabelGap && below < ui::kLabelGap + 1, qPrintable(name(n)));
            QVERIFY2(std::abs(label.center().x() - c.x()) <= 0.5, qPrintable(name(n)));
            continue;
        }
        ++displaced;
        const QRectF home = ui::labelHome(c, kIcon, label.size());
        bool taken = false;
        for (std::uint32_t m = 0; m < scene.nodes.size(); ++m)
            taken = taken || (m != n && grown(icons[m], ui::kLabelSpacing - 1e-3).intersects(home)) ||
                    (m != n && grown(canvas.labelRect(m), ui::kLabelSpacing - 1e-3).intersects(home));
        QVERIFY2(taken, qPrintable(QStringLiteral("%1's label moved from a free place").arg(name(n))));
    }
    qInfo("%s at %dx%d: %d of %zu labels displaced", qPrintable(file), size.width(), size.height(), displaced,
          scene.nodes.size());

    // Painting at t = 0: every plate's inside (clear of its hairline and rounded corners) is the background colour,
    // though links pass under plates (counted, so the check is not empty); clear of plates and icons they show.
    QImage image(size, QImage::Format_RGB32);
    {
        QPainter painter(&image);
        canvas.paintFrame(painter, QRect(QPoint(), size));
    }
    const auto& plates = canvas.lastPlates();
    QCOMPARE(plates.size(), scene.nodes.size());
    int covered = 0;
    for (std::size_t n = 0; n < plates.size(); ++n) {
        const QRectF inside = plates[n].adjusted(2, 2, -2, -2);
        for (int y = qCeil(inside.top()); y + 1 <= inside.bottom(); ++y)
            for (int x = qCeil(inside.left()); x + 1 <= inside.right(); ++x) {
                const bool corner = (x < inside.left() + 2 || x + 1 > inside.right() - 2) &&
                                    (y < inside.top() + 2 || y + 1 > inside.bottom() - 2);
                if (corner)
                    continue;
                QVERIFY2(image.pixelColor(x, y) == base, qPrintable(QStringLiteral("%1's plate shows %2 at %3,%4")
                                                                        .arg(name(n), image.pixelColor(x, y).name())
                                                                        .arg(x)
                                                                        .arg(y)));
            }
        for (const QLineF& link : canvas.linkSegments()) {
            bool crosses = false, shows = false;
            for (double f = 0; f <= 1; f += 1 / std::max(1.0, link.length())) {
                const QPointF p = link.pointAt(f);
                crosses = crosses || inside.contains(p);
                const bool clear =
                    std::none_of(plates.begin(), plates.end(),
                                 [&](const QRectF& r) { return grown(r, 3).contains(p); }) &&
                    std::none_of(icons.begin(), icons.end(), [&](const QRectF& r) { return grown(r, 3).contains(p); });
                const QPoint pixel(qFloor(p.x()), qFloor(p.y()));
                if (clear && image.rect().contains(pixel))
                    shows = shows || image.pixelColor(pixel) != base;
            }
            if (crosses) {
                ++covered;
                QVERIFY2(shows, qPrintable(QStringLiteral("a link under %1's plate is drawn nowhere").arg(name(n))));
            }
        }
    }
    qInfo("%s: %d link crossings under plates", qPrintable(file), covered);
    if (file == QStringLiteral("presets/dgx-h100-8gpu.json"))
        QVERIFY(covered > 0); // links fan out under the GPUs' labels there

    // Later, with block lines: each plate grows with its text but stays inside its label's place.
    bool lines = false;
    for (int i = 1; i <= 4; ++i) {
        canvas.setTime(model->endTime() * i / 4);
        QPainter painter(&image);
        canvas.paintFrame(painter, QRect(QPoint(), size));
        lines = lines || !canvas.lastBadges().empty();
        for (std::uint32_t n = 0; n < scene.nodes.size(); ++n)
            QVERIFY2(canvas.labelRect(n).contains(canvas.lastPlates()[n]),
                     qPrintable(QStringLiteral("%1's plate outgrows its place").arg(name(n))));
    }
    QVERIFY(lines);

    // COH_REPLAY_SHOTS=DIR saves the canvas at the run's busiest moment in the real palette, to look at.
    if (const QByteArray dir = qgetenv("COH_REPLAY_SHOTS"); !dir.isEmpty()) {
        canvas.setPalette(QApplication::palette());
        canvas.setTime(model->busiest().at);
        QPainter painter(&image);
        canvas.paintFrame(painter, QRect(QPoint(), size));
        image.save(QDir(QString::fromLocal8Bit(dir))
                       .filePath(QStringLiteral("labels-%1-%2x%3-%4.png")
                                     .arg(QFileInfo(file).baseName())
                                     .arg(size.width())
                                     .arg(size.height())
                                     .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"))));
    }
}

QTEST_MAIN(TestReplayLabels)
#include "tst_replay_labels.moc"

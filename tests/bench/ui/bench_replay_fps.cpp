// Frames per second of the replay canvas with 1,000 and 10,000 messages in flight on the default scenario's
// topology (a DGX H100: 8 GPUs on an NVSwitch, 2 host sockets, each GPU labelled with its blocks in three protocol
// states), rendered offscreen into a QImage.
// Compares the canvas's batched drawing (one drawRects per role) with one draw call per marker, with one
// QGraphicsRectItem per marker (the one-item-each design), and with the level-of-detail density bars; and measures
// the whole replay tab's frame with the message inspector showing and a message selected.
#include "core/scenario/datasets_dir.h"
#include "ui/replay_canvas.h"
#include "ui/replay_inspector.h"
#include "ui/replay_model.h"
#include "ui/replay_widget.h"

#include <benchmark/benchmark.h>

#include <QApplication>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QImage>
#include <QPainter>
#include <QSplitter>
#include <QTableView>

#include <fstream>
#include <memory>
#include <random>

using namespace coh;

namespace {

constexpr qint64 kFrameTime = 500'000; // every synthetic message is in flight at 0.5 ms
const QSize kFrameSize(1280, 800);

nlohmann::ordered_json defaultScenario()
{
    std::ifstream in(core::datasetsDir() + "/scenarios/default.json");
    return nlohmann::ordered_json::parse(in);
}

// A run on the scenario's real nodes and links: messages GPU -> NVSwitch -> GPU, every role represented,
// starts and ends spread so the markers sit all along their paths at kFrameTime.
std::shared_ptr<const core::RunResult> syntheticRun(const nlohmann::ordered_json& json, int messages)
{
    auto run = std::make_shared<core::RunResult>();
    for (const auto& node : json["topology"]["nodes"])
        run->nodeIds.push_back(node["id"].get<std::string>());
    std::vector<std::uint32_t> gpuLink; // per GPU: the index of its link to the switch
    for (const auto& link : json["topology"]["links"]) {
        if (link["b"] == "nvswitch")
            gpuLink.push_back(static_cast<std::uint32_t>(run->linkIds.size()));
        run->linkIds.push_back(link["id"].get<std::string>());
    }
    for (std::uint32_t a = 0; a < gpuLink.size(); ++a)
        for (std::uint32_t b = 0; b < gpuLink.size(); ++b)
            if (a != b)
                run->paths.push_back({{gpuLink[a], gpuLink[b]}, {true, false}});
    for (const char* role :
         {"data", "invalidation", "ack", "forward", "request", "writeback", "bias-flip", "migration", "lease"})
        run->summary.messagesByKind.push_back({role, false, 0, 0, role});
    std::mt19937 rng(1);
    std::uniform_int_distribution<qint64> before(0, kFrameTime - 1), after(kFrameTime + 1, 2 * kFrameTime);
    std::uniform_int_distribution<std::uint32_t> path(0, static_cast<std::uint32_t>(run->paths.size() - 1));
    std::uniform_int_distribution<int> kind(0, 8);
    for (int i = 0; i < messages; ++i) {
        core::MessageRecord m;
        m.start = before(rng);
        m.end = after(rng);
        m.path = path(rng);
        m.kind = static_cast<std::uint8_t>(kind(rng));
        run->messages.push_back(m);
    }
    run->summary.makespan = 2 * kFrameTime;
    // Every GPU's caches hold blocks in three MSI states (readable, writable, and a transient one in italics), as
    // a protocol run's do: each frame's labels show their counts in their states' colours.
    run->summary.protocol = "msi-directory";
    for (std::uint32_t n = 0; n < run->nodeIds.size(); ++n) {
        if (run->nodeIds[n].starts_with("gpu"))
            for (const char* state : {"S", "M", "SM^AD"})
                run->nodeBlocks.push_back({n, state, 400, {}, {{0, 100.0 + n}, {kFrameTime / 2, 300.0 + n}}, 1});
    }
    return run;
}

struct Fixture {
    explicit Fixture(int messages, ui::ReplayCanvas::MarkerDrawing drawing, int lodThreshold)
        : image(kFrameSize, QImage::Format_ARGB32_Premultiplied)
    {
        const auto json = defaultScenario();
        model = std::make_shared<const ui::ReplayModel>(syntheticRun(json, messages), json);
        canvas.resize(kFrameSize);
        canvas.setModel(model);
        canvas.setTime(kFrameTime);
        canvas.setMarkerDrawing(drawing);
        canvas.setLodThreshold(lodThreshold);
    }
    void frame()
    {
        QPainter painter(&image);
        canvas.paintFrame(painter, canvas.rect());
    }
    std::shared_ptr<const ui::ReplayModel> model;
    ui::ReplayCanvas canvas;
    QImage image;
};

void report(benchmark::State& state, const ui::ReplayCanvas& canvas)
{
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["markers"] = canvas.visibleMarkerCount();
    state.counters["aggregated"] = canvas.isAggregated() ? 1 : 0;
}

void BM_ReplayBatched(benchmark::State& state)
{
    Fixture f(static_cast<int>(state.range(0)), ui::ReplayCanvas::MarkerDrawing::Batched, 1'000'000);
    for (auto _ : state)
        f.frame();
    report(state, f.canvas);
}

void BM_ReplayPerMarkerCall(benchmark::State& state)
{
    Fixture f(static_cast<int>(state.range(0)), ui::ReplayCanvas::MarkerDrawing::PerMarker, 1'000'000);
    for (auto _ : state)
        f.frame();
    report(state, f.canvas);
}

void BM_ReplayLevelOfDetail(benchmark::State& state)
{
    Fixture f(static_cast<int>(state.range(0)), ui::ReplayCanvas::MarkerDrawing::Batched,
              ui::ReplayCanvas::kDefaultLodThreshold);
    for (auto _ : state)
        f.frame();
    report(state, f.canvas);
}

// A frame of the replay tab as it plays: the widget (canvas beside the inspector's list, 1,280 x 800 pixels of
// canvas) moves time, which updates the timeline and the status line, and the canvas paints, with a message in
// flight selected (its route dashed, its marker ringed) and its row selected in the list.
void BM_ReplayWithInspector(benchmark::State& state)
{
    const auto json = defaultScenario();
    const auto run = syntheticRun(json, static_cast<int>(state.range(0)));
    ui::ReplayWidget widget;
    widget.setRun(run, json);
    widget.resize(kFrameSize.width() + 520, kFrameSize.height() + 140);
    widget.splitter()->setSizes({kFrameSize.width(), 520});
    widget.show();
    QApplication::processEvents();
    widget.setTime(kFrameTime);
    widget.selectMessage(static_cast<int>(run->messages.size() / 2));
    widget.canvas()->setLodThreshold(1'000'000);
    QImage image(widget.canvas()->size(), QImage::Format_ARGB32_Premultiplied);
    qint64 t = kFrameTime;
    for (auto _ : state) {
        t = t == kFrameTime ? kFrameTime + 1 : kFrameTime;
        widget.setTime(t);
        QPainter painter(&image);
        widget.canvas()->paintFrame(painter, widget.canvas()->rect());
    }
    report(state, *widget.canvas());
    state.counters["listed"] = widget.inspector()->table()->model()->rowCount();
    state.counters["selected"] = widget.selectedMessage() >= 0 && widget.inspector()->table()->isVisible() ? 1 : 0;
}

// The alternative design: one QGraphicsRectItem per in-flight message, moved every frame.
void BM_ReplayGraphicsItems(benchmark::State& state)
{
    const auto json = defaultScenario();
    ui::ReplayModel model(syntheticRun(json, static_cast<int>(state.range(0))), json);
    QGraphicsScene scene;
    const QRectF box = model.scene().bounds().adjusted(-50, -50, 50, 50);
    scene.setSceneRect(box);
    // The same static picture the canvas draws: links and labelled nodes.
    const auto& nodes = model.scene().nodes;
    for (const auto& link : model.scene().links)
        scene.addLine(QLineF(nodes[static_cast<std::size_t>(link.a)].pos, nodes[static_cast<std::size_t>(link.b)].pos),
                      QPen(Qt::gray, 2));
    for (const auto& node : nodes) {
        scene.addEllipse(node.pos.x() - 18, node.pos.y() - 18, 36, 36, QPen(Qt::black), Qt::white);
        scene.addSimpleText(node.id)->setPos(node.pos + QPointF(-15, 20));
    }
    std::vector<std::uint32_t> inFlight;
    model.inFlight(kFrameTime, inFlight);
    std::vector<QGraphicsRectItem*> items;
    for (std::uint32_t m : inFlight) {
        auto* item = scene.addRect(-3, -3, 6, 6, Qt::NoPen, ui::messageRoleColor(model.role(m)));
        items.push_back(item);
    }
    QImage image(kFrameSize, QImage::Format_ARGB32_Premultiplied);
    qint64 t = kFrameTime;
    for (auto _ : state) {
        // Nudge time so every item really moves, as it would while playing.
        t = t == kFrameTime ? kFrameTime + 1 : kFrameTime;
        for (std::size_t i = 0; i < items.size(); ++i)
            items[i]->setPos(model.marker(inFlight[i], t).pos);
        QPainter painter(&image);
        image.fill(Qt::white);
        scene.render(&painter, QRectF(QPointF(0, 0), kFrameSize), box);
    }
    state.counters["fps"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["markers"] = static_cast<double>(items.size());
}

// Building the replay's index and geometry for a run at the record's default cap (record.max_messages).
void BM_ReplayModelBuild(benchmark::State& state)
{
    const auto json = defaultScenario();
    const auto run = syntheticRun(json, static_cast<int>(state.range(0)));
    for (auto _ : state) {
        ui::ReplayModel model(run, json);
        benchmark::DoNotOptimize(model.endTime());
    }
}

// Showing such a run in the tab: what the GUI thread does once the model is built (on a worker, by loadRun, as
// BM_ReplayModelBuild): swap it in, fill the inspector's list and filters, the legend, the timeline.
void BM_ReplayWidgetSetRun(benchmark::State& state)
{
    const auto json = defaultScenario();
    const auto run = syntheticRun(json, static_cast<int>(state.range(0)));
    const auto model = std::make_shared<const ui::ReplayModel>(run, json);
    ui::ReplayWidget widget;
    widget.resize(kFrameSize.width() + 520, kFrameSize.height() + 140);
    widget.show();
    for (auto _ : state) {
        widget.setRun(model);
        QApplication::processEvents();
    }
}

BENCHMARK(BM_ReplayModelBuild)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayWidgetSetRun)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayBatched)->Arg(0)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayWithInspector)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayPerMarkerCall)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayGraphicsItems)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ReplayLevelOfDetail)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

} // namespace

// BENCHMARK_MAIN, with the QApplication every widget needs created first (offscreen unless told otherwise).
int main(int argc, char** argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv))
        return 1;
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}

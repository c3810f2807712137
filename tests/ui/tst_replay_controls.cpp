// The replay tab as a user meets it: the speed it picks from the run and how speeds read, go to start / end (buttons
// and keys), Space wherever the focus is, the header naming the run, icons and texts that read in both palettes at
// the sizes the window gives the tab, the hover texts, and the legend's states kept together. Node labels:
// tst_replay_labels.cpp.
#include "core/coherence/protocol_registry.h"
#include "core/store/run_and_store.h"
#include "replay_fixtures.h"
#include "ui/main_actions.h"
#include "ui/replay_canvas.h"
#include "ui/replay_inspector.h"
#include "ui/replay_legend.h"
#include "ui/replay_model.h"
#include "ui/replay_tooltips.h"
#include "ui/replay_widget.h"
#include "ui/theme.h"
#include "ui/timeline_bar.h"
#include "ui_checks.h"

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QSlider>
#include <QStyleOptionComboBox>
#include <QTableView>
#include <QTest>
#include <QToolButton>

#include <algorithm>

using namespace coh;

class TestReplayControls : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void cleanup() { ui::MainActions::applyPalette(false); }
    void defaultSpeedComesFromTheBusiestMoment();
    void speedsReadAsTimeShownPerSecond();
    void startAndEndButtonsAndKeys();
    void spaceTogglesPlayWhereverTheFocusIs();
    void headerNamesTheRunShown();
    void iconsFollowThePalette();
    void tabFitsAndReadsInBothPalettes_data();
    void tabFitsAndReadsInBothPalettes();
    void hoverTextsDescribeNodesLinksAndRoles();
    void blockStatesWrapAsOneGroup();
    void statusSaysHowManyFlowsTheRecordHolds();

  private:
    nlohmann::ordered_json m_json;
    std::shared_ptr<const core::RunResult> m_run;
};

void TestReplayControls::initTestCase()
{
    const std::string path = test::datasetPath("scenarios/default.json");
    m_json = test::loadJson(path);
    m_json["coherence"] = {{"decode", "msi-directory"}};
    m_run = test::runJson(m_json, path);
}

void TestReplayControls::defaultSpeedComesFromTheBusiestMoment()
{
    // The busiest moment by brute force: the start with the most messages in flight ([start, end)).
    const auto& messages = m_run->messages;
    std::size_t most = 0;
    qint64 at = 0;
    for (const auto& m : messages) {
        const auto n = static_cast<std::size_t>(std::count_if(
            messages.begin(), messages.end(), [&](const auto& o) { return o.start <= m.start && m.start < o.end; }));
        if (n > most) {
            most = n;
            at = m.start;
        }
    }
    std::vector<qint64> durations;
    for (const auto& m : messages)
        if (m.start <= at && at < m.end)
            durations.push_back(m.end - m.start);
    std::sort(durations.begin(), durations.end());
    const qint64 median = durations[durations.size() / 2];

    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    QCOMPARE(widget.model()->busiest().inFlight, most);
    QCOMPARE(widget.model()->busiest().typicalDuration, median);
    // That median message takes three wall-clock seconds to cross: speed = median / 3 s.
    const double expected = static_cast<double>(median) * 1e-9 / 3.0;
    QVERIFY(std::abs(widget.timeline()->speed() - expected) <= 1e-12 * expected);
    QCOMPARE(widget.timeline()->speedBox()->currentText(),
             QStringLiteral("%1 (busiest)").arg(ui::TimelineBar::formatSpeed(expected)));
    // The box shows its whole text, the run's entry added after it was first shown included (as in the app,
    // where the tab is on screen before any run).
    ui::ReplayWidget shown;
    shown.resize(680, 440);
    shown.show();
    QVERIFY(QTest::qWaitForWindowExposed(&shown));
    shown.setRun(m_run, m_json);
    QComboBox* box = shown.timeline()->speedBox();
    const auto fieldWidth = [box] {
        QStyleOptionComboBox option;
        option.initFrom(box);
        return box->style()->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, box).width();
    };
    QTRY_VERIFY2(fieldWidth() >= box->fontMetrics().horizontalAdvance(box->currentText()),
                 qPrintable(QStringLiteral("%1 px for \"%2\"").arg(fieldWidth()).arg(box->currentText())));
    // Picking a listed speed and back keeps one run entry, not one per change.
    const int entries = widget.timeline()->speedBox()->count();
    widget.timeline()->setSpeed(1e-3);
    widget.timeline()->setSpeed(expected, QStringLiteral("busiest"));
    QCOMPARE(widget.timeline()->speedBox()->count(), entries);
}

void TestReplayControls::speedsReadAsTimeShownPerSecond()
{
    // Simulated time per wall-clock second, two significant digits, in the unit that keeps the number short.
    QCOMPARE(ui::TimelineBar::formatSpeed(9.8e-6), QStringLiteral("1 s shows 9.8 µs"));
    QCOMPARE(ui::TimelineBar::formatSpeed(9.84e-6), QStringLiteral("1 s shows 9.8 µs"));
    QCOMPARE(ui::TimelineBar::formatSpeed(1e-6), QStringLiteral("1 s shows 1 µs"));
    QCOMPARE(ui::TimelineBar::formatSpeed(3.3e-7), QStringLiteral("1 s shows 330 ns"));
    QCOMPARE(ui::TimelineBar::formatSpeed(4.7e-8), QStringLiteral("1 s shows 47 ns"));
    QCOMPARE(ui::TimelineBar::formatSpeed(5e-10), QStringLiteral("1 s shows 0.5 ns"));
    QCOMPARE(ui::TimelineBar::formatSpeed(0.0123), QStringLiteral("1 s shows 12 ms"));
    QCOMPARE(ui::TimelineBar::formatSpeed(1), QStringLiteral("1 s shows 1 s"));
    QCOMPARE(ui::TimelineBar::formatSpeed(1e3), QStringLiteral("1 s shows 1000 s"));
    // Rounding picks the unit: 999.7 µs is shown as 1 ms, not 1000 µs.
    QCOMPARE(ui::TimelineBar::formatSpeed(9.997e-4), QStringLiteral("1 s shows 1 ms"));

    // The presets read the same way, slowest first, and so does the run's own speed, marked.
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    QComboBox* box = widget.timeline()->speedBox();
    QStringList presets;
    for (int i = 0; i < box->count(); ++i)
        if (i != box->currentIndex())
            presets << box->itemText(i);
    QCOMPARE(presets, QStringList({QStringLiteral("1 s shows 1 µs"), QStringLiteral("1 s shows 10 µs"),
                                   QStringLiteral("1 s shows 100 µs"), QStringLiteral("1 s shows 1 ms"),
                                   QStringLiteral("1 s shows 10 ms"), QStringLiteral("1 s shows 100 ms"),
                                   QStringLiteral("1 s shows 1 s"), QStringLiteral("1 s shows 10 s"),
                                   QStringLiteral("1 s shows 100 s"), QStringLiteral("1 s shows 1000 s")}));
    QVERIFY(box->currentText().endsWith(QStringLiteral(" (busiest)")));
    QVERIFY(box->itemData(box->currentIndex(), Qt::ToolTipRole).toString().contains(QStringLiteral("busiest")));
    QVERIFY(!box->currentText().contains(QLatin1Char('x')));
}

void TestReplayControls::startAndEndButtonsAndKeys()
{
    ui::ReplayWidget widget;
    widget.resize(1200, 800);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowActive(&widget));
    const qint64 end = widget.model()->endTime();
    widget.setTime(end / 3);
    QTest::mouseClick(widget.timeline()->toEndButton(), Qt::LeftButton);
    QCOMPARE(widget.time(), end);
    QTest::mouseClick(widget.timeline()->toStartButton(), Qt::LeftButton);
    QCOMPARE(widget.time(), 0);
    // Home / End from the canvas and from the message list.
    for (QWidget* focus :
         {static_cast<QWidget*>(widget.canvas()), static_cast<QWidget*>(widget.inspector()->table())}) {
        focus->setFocus();
        QTest::keyClick(focus, Qt::Key_End);
        QCOMPARE(widget.time(), end);
        QTest::keyClick(focus, Qt::Key_Home);
        QCOMPARE(widget.time(), 0);
    }
}

void TestReplayControls::spaceTogglesPlayWhereverTheFocusIs()
{
    ui::ReplayWidget widget;
    widget.resize(1200, 800);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowActive(&widget));
    const std::vector<QWidget*> places = {widget.canvas(),
                                          widget.inspector()->table(),
                                          widget.inspector()->nodeFilter(),
                                          widget.timeline()->slider(),
                                          widget.timeline()->speedBox(),
                                          widget.timeline()->skipIdleBox(),
                                          widget.legend()->roleButton(ui::MessageRole::Data)};
    for (QWidget* place : places) {
        place->setFocus();
        QVERIFY2(place->hasFocus(), place->metaObject()->className());
        const bool before = widget.timeline()->isPlaying();
        QTest::keyClick(place, Qt::Key_Space);
        QVERIFY2(widget.timeline()->isPlaying() != before, place->metaObject()->className());
    }
    widget.timeline()->pause();
    // The skip-idle box and the legend entry were not toggled by those presses.
    QVERIFY(widget.timeline()->skipIdle());
    QVERIFY(!widget.legend()->hiddenRoles()[0]);
    // A text field keeps Space for typing.
    QLineEdit* request = widget.inspector()->requestFilter();
    request->setFocus();
    QTest::keyClick(request, Qt::Key_Space);
    QVERIFY(!widget.timeline()->isPlaying());
}

void TestReplayControls::headerNamesTheRunShown()
{
    ui::ReplayWidget widget;
    QCOMPARE(widget.headerText().startsWith(QStringLiteral("No run")), true);
    // A renamed run: the name does not say the protocol, so the header does.
    widget.setRun(m_run, m_json, {12, QStringLiteral("first try"), QStringLiteral("/home/u/default.json")});
    QCOMPARE(widget.headerText(), QStringLiteral("Run #12 · first try · msi-directory · default.json"));
    // The default name, "<scenario> · <decode protocol>", already says it: said once.
    const QString defaultName = QString::fromStdString(
        core::defaultRunName(core::parseScenario(nlohmann::json::parse(m_json.dump()), "default.json")));
    QCOMPARE(defaultName, QStringLiteral("default · msi-directory"));
    widget.setRun(m_run, m_json, {15, defaultName, QStringLiteral("/home/u/default.json")});
    QCOMPARE(widget.headerText(), QStringLiteral("Run #15 · default · msi-directory · default.json"));
    // A name that holds the protocol's name only inside a longer word still gets the protocol.
    widget.setRun(m_run, m_json, {16, QStringLiteral("msi-directory-tuned"), {}});
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Run #16 · msi-directory-tuned · msi-directory · ")));
    // An unsaved run has no name: the protocol is shown.
    widget.setRun(m_run, m_json, {});
    QVERIFY(widget.headerText().startsWith(QStringLiteral("Unsaved run · msi-directory · ")));
    nlohmann::ordered_json direct = m_json;
    direct.erase("coherence");
    const auto plain = test::runJson(direct, test::datasetPath("scenarios/default.json"), 10);
    widget.setRun(plain, direct, {13, QStringLiteral("baseline"), QStringLiteral("/tmp/other.json")});
    QCOMPARE(widget.headerText(), QStringLiteral("Run #13 · baseline · plain copy, no protocol · other.json"));
    widget.setRun(plain, direct, {14, QStringLiteral("stored"), {}});
    QCOMPARE(widget.headerText(), QStringLiteral("Run #14 · stored · plain copy, no protocol · scenario “%1”")
                                      .arg(QString::fromStdString(plain->scenarioName)));
    widget.setRun(plain, direct, {17, QStringLiteral("default · direct"), QStringLiteral("/tmp/default.json")});
    QCOMPARE(widget.headerText(), QStringLiteral("Run #17 · default · direct · default.json"));
}

void TestReplayControls::iconsFollowThePalette()
{
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    for (bool dark : {false, true}) {
        ui::MainActions::applyPalette(dark);
        QCoreApplication::processEvents();
        for (QToolButton* button : {widget.timeline()->playButton(), widget.timeline()->stepForwardButton(),
                                    widget.timeline()->stepBackButton(), widget.timeline()->toStartButton(),
                                    widget.timeline()->toEndButton()}) {
            const QColor bg = button->palette().color(QPalette::Button);
            const QImage glyph = button->icon().pixmap(QSize(16, 16)).toImage();
            int ink = 0;
            for (int y = 0; y < glyph.height(); ++y)
                for (int x = 0; x < glyph.width(); ++x) {
                    const QColor c = glyph.pixelColor(x, y);
                    if (c.alpha() < 250)
                        continue;
                    ++ink;
                    QVERIFY2(ui::contrastRatio(c, bg) >= 4.5,
                             qPrintable(QStringLiteral("%1 on %2").arg(c.name(), bg.name())));
                }
            QVERIFY(ink > 10);
        }
    }
}

void TestReplayControls::tabFitsAndReadsInBothPalettes_data()
{
    QTest::addColumn<QSize>("size");
    QTest::addColumn<bool>("dark");
    for (const QSize size : {QSize(680, 440), QSize(1600, 1000)}) {
        QTest::addRow("%dx%d light", size.width(), size.height()) << size << false;
        QTest::addRow("%dx%d dark", size.width(), size.height()) << size << true;
    }
}

void TestReplayControls::tabFitsAndReadsInBothPalettes()
{
    QFETCH(QSize, size);
    QFETCH(bool, dark);
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json, {3, QStringLiteral("a run with a long name to wrap"), QStringLiteral("d.json")});
    widget.resize(size);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    ui::MainActions::applyPalette(dark);
    widget.selectMessage(0); // the details pane filled in
    QCoreApplication::processEvents();
    QCOMPARE(widget.size(), size);
    const QStringList clipped = ui::test::clippedControls(&widget);
    QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
    const QStringList lowContrast = ui::test::lowContrastTexts(&widget);
    QVERIFY2(lowContrast.isEmpty(), qPrintable(lowContrast.join(QLatin1Char('\n'))));
    // COH_REPLAY_SHOTS=DIR saves what was checked, to look at.
    if (const QByteArray dir = qgetenv("COH_REPLAY_SHOTS"); !dir.isEmpty())
        widget.grab().save(QDir(QString::fromLocal8Bit(dir))
                               .filePath(QStringLiteral("replay-%1x%2-%3.png")
                                             .arg(size.width())
                                             .arg(size.height())
                                             .arg(dark ? QStringLiteral("dark") : QStringLiteral("light"))));
}

void TestReplayControls::hoverTextsDescribeNodesLinksAndRoles()
{
    ui::ReplayWidget widget;
    widget.resize(1200, 800);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    const auto& model = *widget.model();
    // A node holding blocks at the end of the first KV transfer.
    const auto first = std::min_element(m_run->requests.begin(), m_run->requests.end(),
                                        [](const auto& a, const auto& b) { return a.kvReady < b.kvReady; });
    const qint64 t = first->kvReady;
    widget.setTime(t);
    std::uint32_t node = 0;
    while (node < m_run->nodeIds.size() && model.nodeBlocks(node, t).empty())
        ++node;
    QVERIFY(node < m_run->nodeIds.size());
    const QPointF centre = widget.canvas()->mapFromScene(model.scene().nodes[node].pos);
    const QString nodeTip = widget.canvas()->toolTipAt(centre + QPointF(0, -15));
    QCOMPARE(nodeTip, ui::nodeToolTip(model, node, t));
    QVERIFY(nodeTip.contains(QString::fromStdString(m_run->nodeIds[node])));
    const auto blocks = model.nodeBlocks(node, t);
    QVERIFY(nodeTip.contains(QStringLiteral("%1 %2").arg(blocks.front().state).arg(blocks.front().blocks)));
    QVERIFY(nodeTip.contains(QString::fromStdString(blocks.front().info->meaning)));

    // A link: both directions, bandwidth as the scenario writes it, bytes over the run from the link series.
    const auto& series = m_run->linkSeries.front();
    const QString linkTip = ui::linkToolTip(model, static_cast<int>(series.link), t);
    QVERIFY(linkTip.contains(model.scene().links[series.link].id));
    QVERIFY(linkTip.contains(model.scene().links[series.link].bandwidth));
    QVERIFY(linkTip.contains(ui::formatBytes(series.totalBytes) + QStringLiteral(" in the run")));
    QCOMPARE(linkTip.count(QStringLiteral(" → ")), 2);
    const auto& link = model.scene().links[series.link];
    const QPointF mid = (widget.canvas()->mapFromScene(model.scene().nodes[static_cast<std::size_t>(link.a)].pos) +
                         widget.canvas()->mapFromScene(model.scene().nodes[static_cast<std::size_t>(link.b)].pos)) /
                        2;
    if (widget.canvas()->messageAt(mid) < 0 && widget.canvas()->nodeAt(mid) < 0)
        QCOMPARE(widget.canvas()->linkAt(mid), static_cast<int>(series.link));

    // A legend entry: what the role does and how many the run sent.
    const QString roleTip = widget.legend()->roleButton(ui::MessageRole::Invalidation)->toolTip();
    QVERIFY(roleTip.contains(ui::messageRoleMeaning(ui::MessageRole::Invalidation)));
    std::uint64_t invalidations = 0;
    for (const auto& kind : m_run->summary.messagesByKind)
        invalidations += kind.role == "invalidation" ? kind.count : 0;
    QVERIFY(roleTip.contains(QStringLiteral("%1 messages").arg(invalidations)));
    // A state entry: its meaning from the protocol table.
    QVERIFY(!widget.legend()->stateLabels().empty());
    for (QLabel* label : widget.legend()->stateLabels())
        QVERIFY(!label->toolTip().isEmpty());
}

void TestReplayControls::blockStatesWrapAsOneGroup()
{
    // MSI's states that hold data, stable and transient: "Block states: ■ S ■ SM^AD ■ SM^A ■ M ..." must never
    // leave the title, or a state, on a row apart from the rest of the group (the title ending one row and "M"
    // alone on the next). At 680x440 and at every legend width from 200 to 1,200 pixels.
    const auto& msi = core::coherence::findProtocol("msi-directory");
    std::vector<const core::coherence::StateInfo*> states;
    for (const auto& state : msi.cache.states)
        if (state.holdsData)
            states.push_back(&state);
    QVERIFY(states.size() >= 4);

    const auto oneRow = [](ui::ReplayLegend& legend) {
        QWidget* group = legend.statesGroup();
        const int top = legend.statesTitle()->mapTo(&legend, QPoint()).y();
        QStringList apart;
        for (QLabel* label : legend.stateLabels())
            if (label->mapTo(&legend, QPoint()).y() != top)
                apart << label->text();
        // The group is whole inside the legend whatever it did.
        if (!legend.rect().contains(group->geometry()))
            apart << QStringLiteral("group outside the legend");
        return apart;
    };

    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    widget.legend()->setStates(states);
    widget.resize(680, 440);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QCoreApplication::processEvents();
    QVERIFY(widget.legend()->statesGroup()->isVisible());
    const QStringList apart = oneRow(*widget.legend());
    QVERIFY2(apart.isEmpty(), qPrintable(apart.join(QStringLiteral(", "))));
    const QStringList clipped = ui::test::clippedControls(&widget);
    QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));

    ui::ReplayLegend legend;
    legend.setSummary(m_run->summary);
    legend.setStates(states);
    legend.show();
    const int groupWidth = legend.statesGroup()->sizeHint().width();
    for (int width = 200; width <= 1200; width += 3) {
        legend.resize(width, legend.heightForWidth(width));
        legend.layout()->activate();
        if (groupWidth + 8 <= width) { // it fits a row (the legend keeps 4 px each side)
            const QStringList split = oneRow(legend);
            QVERIFY2(split.isEmpty(),
                     qPrintable(QStringLiteral("at %1 px: %2").arg(width).arg(split.join(QStringLiteral(", ")))));
        } else { // a row of its own, wrapping inside: still whole, starting at the row's left
            QCOMPARE(legend.statesGroup()->x(), 4);
            QVERIFY(legend.rect().contains(legend.statesGroup()->geometry()));
        }
    }
}

void TestReplayControls::statusSaysHowManyFlowsTheRecordHolds()
{
    // The record keeps one entry per flow that crossed a link, up to record.max_messages: a sample says how many of
    // the run's flows (RunSummary::flows, the number History shows) it holds.
    nlohmann::ordered_json json = m_json;
    json["record"] = {{"max_messages", 40}};
    const auto sampled = test::runJson(json, test::datasetPath("scenarios/default.json"));
    QCOMPARE(sampled->messages.size(), std::size_t{40});
    QVERIFY(sampled->summary.flows > 40);
    ui::ReplayWidget widget;
    widget.setRun(sampled, json);
    QVERIFY2(widget.statusText().contains(QStringLiteral("(record holds 40 of %1 flows)").arg(sampled->summary.flows)),
             qPrintable(widget.statusText()));
    // The whole record: nothing to say.
    QCOMPARE(m_run->messages.size(), m_run->summary.flows);
    widget.setRun(m_run, m_json);
    QVERIFY(!widget.statusText().contains(QStringLiteral("record holds")));
}

QTEST_MAIN(TestReplayControls)
#include "tst_replay_controls.moc"

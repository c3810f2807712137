// The replay's message inspector on a real MSI run of the default scenario: the list and its filters against
// brute-force counts, both directions of the canvas <-> list sync, the details of a message (the transition that
// sent it, from the protocol's own table), the plain copy's, and the legend hiding a role in canvas and list.
#include "core/coherence/protocol_registry.h"
#include "core/coherence/table_markdown.h"
#include "replay_fixtures.h"
#include "ui/replay_canvas.h"
#include "ui/replay_canvas_style.h"
#include "ui/replay_inspector.h"
#include "ui/replay_legend.h"
#include "ui/replay_message_details.h"
#include "ui/replay_model.h"
#include "ui/replay_widget.h"

#include <QAbstractItemModelTester>
#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QDir>
#include <QImage>
#include <QLineEdit>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSplitter>
#include <QTableView>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>

#include <algorithm>

using namespace coh;

namespace {

std::string kindName(const core::RunResult& run, const core::MessageRecord& m)
{
    return run.summary.messagesByKind[m.kind].name;
}

// The widget position of a message's marker, as the canvas draws it.
QPointF markerAt(const ui::ReplayWidget& widget, std::uint32_t id)
{
    const QPointF p = widget.canvas()->mapFromScene(widget.model()->marker(id, widget.time()).pos);
    return QPointF(qRound(p.x()) + ui::canvas::markerOffsetX(id), qRound(p.y()) + ui::canvas::markerOffsetY(id));
}

} // namespace

class TestReplayInspector : public QObject {
    Q_OBJECT

  private slots:
    void initTestCase();
    void messageModelsPassTheModelTester();
    void filtersMatchABruteForceCount();
    void clickingAMarkerSelectsItsRowAndShowsItsDetails();
    void pickingARowMovesTheCursorToItsStart();
    void detailsShowTheTransitionThatSentIt();
    void theStepShowsWithoutScrolling_data();
    void theStepShowsWithoutScrolling();
    void plainCopyHasNoTransition();
    void prefixPoolMessagesReadThePoolsTable();
    void legendHidesARoleInCanvasAndList();

  private:
    nlohmann::ordered_json m_json;
    std::shared_ptr<const core::RunResult> m_run;
};

void TestReplayInspector::initTestCase()
{
    const std::string path = test::datasetPath("scenarios/default.json");
    m_json = test::loadJson(path);
    m_json["coherence"] = {{"decode", "msi-directory"}};
    m_run = test::runJson(m_json, path);
    QVERIFY(m_run->messages.size() > 100);
}

void TestReplayInspector::messageModelsPassTheModelTester()
{
    ui::ReplayMessageModel messages;
    QAbstractItemModelTester tester(&messages, QAbstractItemModelTester::FailureReportingMode::QtTest);
    ui::ReplayMessageFilter filter;
    filter.setSourceModel(&messages);
    QAbstractItemModelTester filterTester(&filter, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto model = std::make_shared<const ui::ReplayModel>(m_run, m_json);
    messages.setModel(model);
    QCOMPARE(messages.rowCount(), static_cast<int>(m_run->messages.size()));
    ui::MessageFilter f;
    f.request = 0;
    filter.setFilter(f);
    messages.setModel(nullptr);
    QCOMPARE(filter.rowCount(), 0);
}

void TestReplayInspector::filtersMatchABruteForceCount()
{
    ui::ReplayInspector inspector;
    auto model = std::make_shared<const ui::ReplayModel>(m_run, m_json);
    inspector.setModel(model);
    const auto& messages = m_run->messages;
    const auto count = [&](auto pred) {
        return static_cast<int>(std::count_if(messages.begin(), messages.end(), pred));
    };
    auto* rows = inspector.filterModel();
    QCOMPARE(rows->rowCount(), static_cast<int>(messages.size()));

    // Node: either end. The first GPU that sent anything.
    const std::uint32_t node = messages.front().src;
    inspector.nodeFilter()->setCurrentIndex(inspector.nodeFilter()->findData(static_cast<int>(node)));
    QCOMPARE(rows->rowCount(), count([&](const auto& m) { return m.src == node || m.dst == node; }));
    QVERIFY(rows->rowCount() < static_cast<int>(messages.size()));
    inspector.nodeFilter()->setCurrentIndex(0);

    // Link: on the route.
    const std::uint32_t link = m_run->paths[messages.front().path].links.front();
    inspector.linkFilter()->setCurrentIndex(inspector.linkFilter()->findData(static_cast<int>(link)));
    QCOMPARE(rows->rowCount(), count([&](const auto& m) {
                 const auto& l = m_run->paths[m.path].links;
                 return std::find(l.begin(), l.end(), link) != l.end();
             }));
    inspector.linkFilter()->setCurrentIndex(0);

    // Kind, and role (every message of the role, whatever its kind).
    const std::uint8_t getS = static_cast<std::uint8_t>(std::find_if(m_run->summary.messagesByKind.begin(),
                                                                     m_run->summary.messagesByKind.end(),
                                                                     [](const auto& k) { return k.name == "GetS"; }) -
                                                        m_run->summary.messagesByKind.begin());
    inspector.kindFilter()->setCurrentIndex(inspector.kindFilter()->findText(QStringLiteral("GetS")));
    QCOMPARE(rows->rowCount(), count([&](const auto& m) { return m.kind == getS; }));
    inspector.kindFilter()->setCurrentIndex(inspector.kindFilter()->findText(QStringLiteral("every request message")));
    QCOMPARE(rows->rowCount(),
             count([&](const auto& m) { return m_run->summary.messagesByKind[m.kind].role == "request"; }));
    QVERIFY(rows->rowCount() > count([&](const auto& m) { return m.kind == getS; })); // GetM too
    inspector.kindFilter()->setCurrentIndex(0);

    // Request, then block within it.
    const std::uint32_t request = messages[messages.size() / 2].request;
    inspector.requestFilter()->setText(QString::number(request));
    QCOMPARE(rows->rowCount(), count([&](const auto& m) { return m.request == request; }));
    inspector.blockFilter()->setText(QStringLiteral("0"));
    QCOMPARE(rows->rowCount(),
             count([&](const auto& m) { return m.request == request && m.firstBlock == 0 && m.blockCount > 0; }));
    QVERIFY(rows->rowCount() > 0);
    QCOMPARE(inspector.countText(), QStringLiteral("%1 of %2 messages").arg(rows->rowCount()).arg(messages.size()));
    inspector.requestFilter()->clear();
    inspector.blockFilter()->clear();
    QCOMPARE(rows->rowCount(), static_cast<int>(messages.size()));
}

void TestReplayInspector::clickingAMarkerSelectsItsRowAndShowsItsDetails()
{
    ui::ReplayWidget widget;
    widget.resize(1400, 900);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    // A moment with several messages in flight, and one whose marker is on top where it is drawn (markers of one
    // flow may share a spot; the canvas picks the nearest).
    const qint64 t = widget.model()->busiest().at;
    widget.setTime(t);
    std::vector<std::uint32_t> inFlight;
    widget.model()->inFlight(t, inFlight);
    QVERIFY(inFlight.size() > 1);
    int chosen = -1;
    for (std::uint32_t id : inFlight) {
        const QPointF p = markerAt(widget, id);
        if (widget.canvas()->rect().contains(p.toPoint()) && widget.canvas()->messageAt(p) == static_cast<int>(id)) {
            chosen = static_cast<int>(id);
            break;
        }
    }
    QVERIFY(chosen >= 0);
    QTest::mouseClick(widget.canvas(), Qt::LeftButton, {},
                      markerAt(widget, static_cast<std::uint32_t>(chosen)).toPoint());
    QCOMPARE(widget.selectedMessage(), chosen);
    QCOMPARE(widget.canvas()->selectedMessage(), chosen);
    QCOMPARE(widget.time(), t); // a click inspects, it does not move time
    const QModelIndex current = widget.inspector()->table()->currentIndex();
    QVERIFY(current.isValid());
    QCOMPARE(current.data(ui::ReplayMessageModel::MessageRole).toInt(), chosen);
    const QString details = widget.inspector()->details()->toPlainText();
    const auto& m = m_run->messages[static_cast<std::size_t>(chosen)];
    QVERIFY(details.contains(QString::fromStdString(kindName(*m_run, m))));
    QVERIFY(details.contains(QStringLiteral("%1 → %2").arg(QString::fromStdString(m_run->nodeIds[m.src]),
                                                           QString::fromStdString(m_run->nodeIds[m.dst]))));
    QVERIFY2(details.contains(QStringLiteral(" sent by the ")), qPrintable(details));

    // A click on empty canvas clears the selection.
    QTest::mouseClick(widget.canvas(), Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(widget.selectedMessage(), -1);
    QVERIFY(!widget.inspector()->table()->selectionModel()->hasSelection());
}

void TestReplayInspector::pickingARowMovesTheCursorToItsStart()
{
    ui::ReplayWidget widget;
    widget.resize(1400, 900);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    QTableView* table = widget.inspector()->table();
    const int row = 5;
    const QModelIndex index = table->model()->index(row, 0);
    QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(index).center());
    const int id = index.data(ui::ReplayMessageModel::MessageRole).toInt();
    QCOMPARE(widget.selectedMessage(), id);
    QCOMPARE(widget.canvas()->selectedMessage(), id);
    QCOMPARE(widget.time(), m_run->messages[static_cast<std::size_t>(id)].start);
    // At its start the message is in flight: the canvas finds it where it rings it.
    QCOMPARE(widget.canvas()->messageAt(markerAt(widget, static_cast<std::uint32_t>(id))) >= 0, true);
    QVERIFY(widget.inspector()->details()->toPlainText().contains(
        QString::fromStdString(kindName(*m_run, m_run->messages[static_cast<std::size_t>(id)]))));
}

void TestReplayInspector::detailsShowTheTransitionThatSentIt()
{
    const ui::ReplayModel model(m_run, m_json);
    const auto& msi = core::coherence::findProtocol("msi-directory");
    // Decode's read miss: the cache in I takes a Load and sends GetS to the directory, going to IS^D.
    auto it = std::find_if(m_run->messages.begin(), m_run->messages.end(),
                           [&](const auto& m) { return kindName(*m_run, m) == "GetS"; });
    QVERIFY(it != m_run->messages.end());
    const auto id = static_cast<std::uint32_t>(it - m_run->messages.begin());
    const ui::MessageTransition t = ui::messageTransition(model, id);
    QVERIFY(t.known);
    QCOMPARE(t.controller, QStringLiteral("cache"));
    QCOMPARE(t.state, QStringLiteral("I"));
    QCOMPARE(t.trigger, QStringLiteral("Load"));
    QCOMPARE(t.nextState, QStringLiteral("IS^D"));
    const int I = msi.cache.findState("I"), load = msi.cache.findEvent("Load");
    QCOMPARE(t.actions, QString::fromStdString(core::coherence::transitionCell(msi, msi.cache, I, load)));
    QVERIFY(t.actions.contains(QStringLiteral("GetS")));
    // The explanation is the table's, with its placeholders in words.
    std::string explanation = msi.cache.explanations[static_cast<std::size_t>(msi.cache.index(I, load))];
    QVERIFY(!explanation.empty());
    QVERIFY(!t.explanation.contains(QLatin1Char('{')));
    const QString html = ui::messageDetailsHtml(model, id);
    QVERIFY(html.contains(QStringLiteral("IS^D")));
    QVERIFY(html.contains(t.explanation.toHtmlEscaped()));

    // The home's messages: a directory transition (Data from the directory, or a forward).
    auto home = std::find_if(m_run->messages.begin(), m_run->messages.end(),
                             [](const auto& m) { return m.sender == core::MessageSender::Home; });
    QVERIFY(home != m_run->messages.end());
    const ui::MessageTransition h =
        ui::messageTransition(model, static_cast<std::uint32_t>(home - m_run->messages.begin()));
    QVERIFY(h.known);
    QCOMPARE(h.controller, QStringLiteral("directory"));
    QVERIFY(h.explanation.at(0).isUpper());
    QCOMPARE(h.state, QString::fromStdString(msi.directory.states[home->fromState].name));

    // A damaged record (transition past the table) is not read past the table.
    auto damaged = std::make_shared<core::RunResult>(*m_run);
    damaged->messages[id].transition = 60000;
    const ui::ReplayModel damagedModel(damaged, m_json);
    QVERIFY(!ui::messageTransition(damagedModel, id).known);
}

void TestReplayInspector::theStepShowsWithoutScrolling_data()
{
    QTest::addColumn<QSize>("size");
    // The tab in a 1024x700 window (680x440), the window sizes themselves, and a large tab.
    for (const QSize size : {QSize(680, 440), QSize(1024, 700), QSize(1250, 760), QSize(1600, 1000)})
        QTest::addRow("%dx%d", size.width(), size.height()) << size;
}

void TestReplayInspector::theStepShowsWithoutScrolling()
{
    QFETCH(QSize, size);
    ui::ReplayWidget widget;
    widget.setRun(m_run, m_json);
    widget.resize(size);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    // The message whose step has the longest explanation: the most the pane must show.
    int chosen = -1;
    qsizetype longest = 0;
    for (std::uint32_t id = 0; id < m_run->messages.size(); ++id) {
        const ui::MessageTransition t = ui::messageTransition(*widget.model(), id);
        if (t.known && t.explanation.size() > longest) {
            longest = t.explanation.size();
            chosen = static_cast<int>(id);
        }
    }
    QVERIFY(chosen >= 0);
    widget.selectMessage(chosen);
    QCoreApplication::processEvents();
    const ui::MessageTransition t = ui::messageTransition(*widget.model(), static_cast<std::uint32_t>(chosen));
    QTextBrowser* details = widget.inspector()->details();
    const QRect visible = details->viewport()->rect();
    const auto shown = [&](const QString& text) {
        const QTextCursor found = details->document()->find(text);
        if (found.isNull())
            return QStringLiteral("\"%1\" is not in the details").arg(text);
        QRectF block = details->document()->documentLayout()->blockBoundingRect(found.block());
        block.translate(-details->horizontalScrollBar()->value(), -details->verticalScrollBar()->value());
        if (!QRectF(visible).contains(block))
            return QStringLiteral("\"%1\" at y %2..%3, the pane shows 0..%4")
                .arg(text.left(30))
                .arg(block.top())
                .arg(block.bottom())
                .arg(visible.height());
        return QString();
    };
    // COH_REPLAY_SHOTS=DIR saves what was checked, to look at.
    if (const QByteArray dir = qgetenv("COH_REPLAY_SHOTS"); !dir.isEmpty())
        widget.grab().save(QDir(QString::fromLocal8Bit(dir))
                               .filePath(QStringLiteral("step-%1x%2.png").arg(size.width()).arg(size.height())));
    // The step (its state, next state and trigger) and its explanation, whole.
    for (const QString& text : {QStringLiteral("%1 → %2, on %3").arg(t.state, t.nextState, t.trigger), t.explanation}) {
        const QString problem = shown(text);
        QVERIFY2(problem.isEmpty(), qPrintable(problem));
    }
    // The list keeps at least its minimum, with the selected row in it.
    QVERIFY(widget.inspector()->table()->height() >= widget.inspector()->table()->minimumHeight());

    // Once the user drags the splitter, their split stays, whatever is selected next.
    auto* split = qobject_cast<QSplitter*>(details->parentWidget());
    QVERIFY(split);
    QSplitterHandle* handle = split->handle(1);
    const QPoint grip = handle->rect().center();
    QTest::mousePress(handle, Qt::LeftButton, {}, grip);
    QMouseEvent move(QEvent::MouseMove, QPointF(grip + QPoint(0, -20)),
                     handle->mapToGlobal(QPointF(grip + QPoint(0, -20))), Qt::LeftButton, Qt::LeftButton, {});
    QCoreApplication::sendEvent(handle, &move);
    QTest::mouseRelease(handle, Qt::LeftButton, {}, grip + QPoint(0, -20));
    const QList<int> dragged = split->sizes();
    widget.selectMessage(-1); // a one-line hint: fitted, the list would take the room back
    QCoreApplication::processEvents();
    QCOMPARE(split->sizes(), dragged);
}

void TestReplayInspector::plainCopyHasNoTransition()
{
    nlohmann::ordered_json direct = m_json;
    direct.erase("coherence");
    const auto plain = test::runJson(direct, test::datasetPath("scenarios/default.json"), 20);
    QVERIFY(!plain->messages.empty());
    const ui::ReplayModel model(plain, direct);
    QVERIFY(!ui::messageTransition(model, 0).known);
    QVERIFY(ui::messageDetailsHtml(model, 0).contains(QStringLiteral("Plain copy, no protocol")));
}

void TestReplayInspector::prefixPoolMessagesReadThePoolsTable()
{
    // The CXL prefix pool under its tier's own protocol, the KV path a plain copy: the pool's messages name
    // sealed-lease transitions, looked up in sealed-lease's table, not the KV path's.
    const std::string path = test::datasetPath("scenarios/prefix-pool-cxl.json");
    nlohmann::ordered_json json = test::loadJson(path);
    json["coherence"] = {{"tiers", {{"cxl", "sealed-lease"}}}};
    const auto run = test::runJson(json, path, 40);
    const ui::ReplayModel model(run, json);
    const auto& lease = core::coherence::findProtocol("sealed-lease");
    QCOMPARE(model.protocol(core::MessageProtocol::PrefixPool), &lease);
    QCOMPARE(model.protocol(core::MessageProtocol::Kv), nullptr);
    // The run's summary names it (PrefixPoolSummary::protocol): the scenario need not be read again for it.
    QCOMPARE(QString::fromStdString(run->summary.prefixPool.protocol), QStringLiteral("sealed-lease"));
    QCOMPARE(ui::ReplayModel(run, nlohmann::ordered_json::object()).protocol(core::MessageProtocol::PrefixPool),
             &lease);
    int pool = 0;
    for (std::uint32_t id = 0; id < run->messages.size(); ++id) {
        const auto& m = run->messages[id];
        if (m.protocol != core::MessageProtocol::PrefixPool)
            continue;
        ++pool;
        const ui::MessageTransition t = ui::messageTransition(model, id);
        QVERIFY(t.known);
        const auto& table = m.sender == core::MessageSender::Home ? lease.directory : lease.cache;
        QCOMPARE(t.state, QString::fromStdString(table.states[m.fromState].name));
        QVERIFY(ui::messageDetailsHtml(model, id).contains(QStringLiteral("sealed-lease")));
    }
    QVERIFY(pool > 0);
}

void TestReplayInspector::legendHidesARoleInCanvasAndList()
{
    ui::ReplayWidget widget;
    widget.resize(1400, 900);
    widget.setRun(m_run, m_json);
    widget.show();
    QVERIFY(QTest::qWaitForWindowExposed(&widget));
    const qint64 t = widget.model()->busiest().at;
    widget.setTime(t);
    const auto isRequest = [&](std::uint32_t id) { return widget.model()->role(id) == ui::MessageRole::Request; };
    std::vector<std::uint32_t> inFlight;
    widget.model()->inFlight(t, inFlight);
    const auto requestsNow = std::count_if(inFlight.begin(), inFlight.end(), isRequest);
    std::size_t requestsInRun = 0;
    for (std::uint32_t id = 0; id < m_run->messages.size(); ++id)
        requestsInRun += isRequest(id) ? 1 : 0;
    QVERIFY(requestsInRun > 0);

    QImage image(widget.canvas()->size(), QImage::Format_ARGB32_Premultiplied);
    const auto paint = [&] {
        QPainter painter(&image);
        widget.canvas()->paintFrame(painter, widget.canvas()->rect());
    };
    paint();
    const int before = widget.canvas()->visibleMarkerCount();
    QTest::mouseClick(widget.legend()->roleButton(ui::MessageRole::Request), Qt::LeftButton);
    QVERIFY(widget.legend()->hiddenRoles()[static_cast<std::size_t>(ui::MessageRole::Request)]);
    paint();
    QCOMPARE(widget.canvas()->visibleMarkerCount(), before - static_cast<int>(requestsNow));
    QCOMPARE(widget.inspector()->filterModel()->rowCount(), static_cast<int>(m_run->messages.size() - requestsInRun));
    QTest::mouseClick(widget.legend()->roleButton(ui::MessageRole::Request), Qt::LeftButton);
    paint();
    QCOMPARE(widget.canvas()->visibleMarkerCount(), before);
    QCOMPARE(widget.inspector()->filterModel()->rowCount(), static_cast<int>(m_run->messages.size()));
}

QTEST_MAIN(TestReplayInspector)
#include "tst_replay_inspector.moc"

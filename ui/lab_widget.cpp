#include "ui/lab_widget.h"

#include "core/coherence/lab_session.h"
#include "core/coherence/protocol_registry.h"
#include "ui/lab_bug_hunt.h"
#include "ui/lab_flight_panel.h"
#include "ui/lab_lesson_panel.h"
#include "ui/lab_model.h"
#include "ui/lab_op_panel.h"
#include "ui/lab_puzzle.h"
#include "ui/lab_state_table_model.h"
#include "ui/lab_tour.h"
#include "ui/lab_transition_table.h"
#include "ui/qt_text.h"
#include "ui/sequence_chart.h"
#include "ui/sequence_chart_header.h"
#include "ui/theme.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace coh::ui {

namespace co = core::coherence;

namespace {

QScrollArea* scrolling(QWidget* content, QWidget* parent)
{
    auto* area = new QScrollArea(parent);
    area->setWidget(content);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    area->setFocusPolicy(Qt::NoFocus);
    return area;
}

QString protocolLabel(const co::Protocol& p)
{
    return p.bugHunt ? LabWidget::tr("%1 [bug hunt]").arg(toQString(p.name)) : toQString(p.name);
}

} // namespace

LabWidget::LabWidget(QWidget* parent)
    : QWidget(parent)
    , m_lab(new LabModel(this))
    , m_stateModel(new LabStateTableModel(m_lab, this))
{
    setObjectName(QStringLiteral("labWidget"));
    m_lessons = new LabLessonPanel(m_lab, this);
    m_bugHunt = new LabBugHunt(m_lab, this);
    m_lessons->addBelowText(m_bugHunt);
    m_side = new QTabWidget(this);
    m_side->setObjectName(QStringLiteral("labSide"));
    m_side->setUsesScrollButtons(false); // two short tabs: always whole
    m_side->addTab(m_lessons, tr("Lessons"));
    m_side->addTab(buildPlayTab(), tr("Play"));

    m_chart = new SequenceChart(m_lab);
    m_chart->setObjectName(QStringLiteral("labSequenceChart"));
    m_chartScroll = new QScrollArea(this);
    m_chartScroll->setObjectName(QStringLiteral("labChartScroll"));
    m_chartScroll->setWidget(m_chart);
    m_chartScroll->setWidgetResizable(true); // the chart takes the viewport's width: every lifeline in view
    m_chartScroll->setFocusPolicy(Qt::NoFocus);
    auto* chartColumn = new QWidget(this);
    auto* chartLayout = new QVBoxLayout(chartColumn);
    chartLayout->setContentsMargins(0, 0, 0, 0);
    chartLayout->setSpacing(2);
    chartLayout->addWidget(buildStepBar());
    auto* header = new SequenceChartHeader(m_chart, chartColumn);
    chartLayout->addWidget(header);
    chartLayout->addWidget(m_chartScroll, 1);
    connect(m_chartScroll->horizontalScrollBar(), &QScrollBar::valueChanged, header, qOverload<>(&QWidget::update));

    m_body = new QSplitter(Qt::Horizontal, this);
    m_body->setObjectName(QStringLiteral("labBody"));
    m_body->setChildrenCollapsible(false);
    m_body->addWidget(chartColumn);
    m_body->addWidget(buildDetails());
    m_split = new QSplitter(Qt::Horizontal, this);
    m_split->setObjectName(QStringLiteral("labSplit"));
    m_split->setChildrenCollapsible(false);
    m_split->addWidget(m_side);
    m_split->addWidget(m_body);
    m_split->setStretchFactor(0, 0);
    m_split->setStretchFactor(1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_split);

    connect(m_lab, &LabModel::changed, this, &LabWidget::showStep);
    connect(m_chart, &SequenceChart::stepActivated, m_lab, &LabModel::setCurrentStep);
    connect(m_lessons, &LabLessonPanel::lessonOpened, this, [this](const Lesson& lesson) {
        if (lesson.bugHunt)
            m_bugHunt->start(lesson);
        else
            m_bugHunt->stop();
        m_side->setCurrentWidget(m_lessons);
        applyHunt();
    });
    connect(m_bugHunt, &LabBugHunt::revealed, this, &LabWidget::applyHunt);
    // Window-wide within the lab, so the keys step whichever child has focus.
    const auto key = [this](Qt::Key k, void (LabModel::*slot)()) {
        auto* s = new QShortcut(QKeySequence(k), this, nullptr, nullptr, Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, m_lab, slot);
    };
    key(Qt::Key_Left, &LabModel::back);
    key(Qt::Key_Right, &LabModel::forward);
    key(Qt::Key_Home, &LabModel::first);
    key(Qt::Key_End, &LabModel::last);
    setFocusPolicy(Qt::StrongFocus);
    arrange(true, QSize()); // sized on the first resize
    openProtocol(QStringLiteral("msi-directory"));
}

QWidget* LabWidget::buildPlayTab()
{
    auto* box = new QWidget;
    m_protocol = new QComboBox(box);
    m_protocol->setObjectName(QStringLiteral("labProtocol"));
    m_protocol->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_protocol->setMinimumContentsLength(12);
    for (const co::Protocol& p : co::allProtocols()) {
        m_protocol->addItem(protocolLabel(p), toQString(p.name));
        m_protocol->setItemData(m_protocol->count() - 1, toQString(p.title), Qt::ToolTipRole);
    }
    m_caches = new QSpinBox(box);
    m_caches->setObjectName(QStringLiteral("labCaches"));
    m_caches->setRange(LabModel::kMinCaches, LabModel::kMaxCaches);
    m_reset = new QPushButton(tr("Reset"), box);
    m_reset->setObjectName(QStringLiteral("labReset"));
    m_reset->setToolTip(tr("Clear every op: all caches back to their initial state (in a lesson: its own run)"));
    m_ops = new LabOpPanel(m_lab, box);
    m_flight = new LabFlightPanel(m_lab, box);
    for (QWidget* w :
         {static_cast<QWidget*>(m_protocol), static_cast<QWidget*>(m_caches), static_cast<QWidget*>(m_reset)})
        w->setFocusPolicy(Qt::ClickFocus);

    // Reset beside the cache count and slim margins (the tab draws its own frame): at 680x440 the whole tab, the
    // delivery buttons included, fits the side column's height and width without scrolling.
    auto* cachesRow = new QHBoxLayout;
    cachesRow->addWidget(m_caches);
    cachesRow->addWidget(m_reset);
    auto* form = new QFormLayout;
    form->addRow(tr("Protocol"), m_protocol);
    form->addRow(tr("Caches"), cachesRow);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addLayout(form);
    layout->addWidget(m_ops);
    layout->addWidget(new QLabel(tr("<b>Messages in flight</b>"), box));
    layout->addWidget(m_flight, 1);

    // A learner's own edit leaves the lesson: its notes describe the lesson's run, not theirs.
    connect(m_protocol, &QComboBox::currentIndexChanged, this, [this] {
        const QString chosen = m_protocol->currentData().toString(); // leaveLesson() re-syncs the box
        leaveLesson();
        m_lab->load(chosen, m_lab->caches(), QString());
        m_lessons->setIntroduction(playIntroduction(m_lab->protocol()));
    });
    connect(m_caches, &QSpinBox::valueChanged, this, [this](int n) {
        leaveLesson();
        m_lab->setCaches(n);
    });
    connect(m_reset, &QPushButton::clicked, this, [this] {
        // In a bug hunt, Reset restarts the hunt's own run: leaving it would show the variant's name.
        if (m_bugHunt->isActive()) {
            const Lesson& hunt = m_bugHunt->lesson();
            m_lab->load(hunt.protocol, hunt.caches, hunt.ops);
            return;
        }
        leaveLesson();
        m_lab->load(m_lab->protocolName(), m_lab->caches(), QString());
    });
    return scrolling(box, this);
}

QWidget* LabWidget::buildStepBar()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    const auto button = [bar, row](const QString& name, const QString& text, const QString& tip) {
        auto* b = new QToolButton(bar);
        b->setText(text);
        b->setAutoRaise(false);
        b->setObjectName(name);
        b->setToolTip(tip);
        b->setFocusPolicy(Qt::NoFocus);
        row->addWidget(b);
        return b;
    };
    m_first = button(QStringLiteral("labFirst"), tr("|<"), tr("First step (Home)"));
    m_back = button(QStringLiteral("labBack"), tr("<"), tr("Step back (Left)"));
    m_forward = button(QStringLiteral("labForward"), tr(">"), tr("Step forward (Right)"));
    m_last = button(QStringLiteral("labLast"), tr(">|"), tr("Last step (End)"));
    m_position = new QLabel(bar);
    m_position->setObjectName(QStringLiteral("labPosition"));
    m_position->setWordWrap(true);
    row->addWidget(m_position, 1);
    connect(m_first, &QToolButton::clicked, m_lab, &LabModel::first);
    connect(m_back, &QToolButton::clicked, m_lab, &LabModel::back);
    connect(m_forward, &QToolButton::clicked, m_lab, &LabModel::forward);
    connect(m_last, &QToolButton::clicked, m_lab, &LabModel::last);
    return bar;
}

QWidget* LabWidget::buildDetails()
{
    m_stateView = new QTableView(this);
    m_stateView->setObjectName(QStringLiteral("labStateTable"));
    m_stateView->setModel(m_stateModel);
    m_stateView->setFocusPolicy(Qt::NoFocus);
    m_stateView->setSelectionMode(QAbstractItemView::NoSelection);
    // Columns as wide as their contents, never cut; a narrow Lab scrolls the table sideways instead.
    m_stateView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_stateView->horizontalHeader()->setStretchLastSection(true);
    m_stateView->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    m_stateView->verticalHeader()->setDefaultSectionSize(m_stateView->fontMetrics().height() + 8);

    m_explanation = new QLabel;
    m_explanation->setObjectName(QStringLiteral("labExplanation"));
    m_explanation->setWordWrap(true);
    m_explanation->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("labError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    setTone(m_error, Tone::Error);
    auto* words = new QWidget;
    auto* wordsLayout = new QVBoxLayout(words);
    wordsLayout->setContentsMargins(0, 0, 0, 0);
    wordsLayout->addWidget(m_explanation);
    wordsLayout->addWidget(m_error);
    wordsLayout->addStretch(1);

    m_stateBox = new QSplitter(Qt::Vertical, this);
    m_stateBox->setObjectName(QStringLiteral("labStateBox"));
    m_stateBox->setChildrenCollapsible(false);
    m_stateBox->addWidget(m_stateView);
    m_stateBox->addWidget(scrolling(words, this));

    m_transitions = new LabTransitionTable(m_lab, this);
    m_details = new QSplitter(Qt::Vertical, this);
    m_details->setObjectName(QStringLiteral("labDetails"));
    m_details->setChildrenCollapsible(false);
    m_details->addWidget(m_stateBox);
    m_details->addWidget(m_transitions);
    return m_details;
}

void LabWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    const bool wide = event->size().width() >= kWideLayout;
    // Proportions are set when the Lab first gets its size and when the arrangement changes; in between, the
    // splitters keep whatever the learner dragged them to.
    if (wide != m_wide || !m_sized)
        arrange(wide, event->size());
    fitStateTable();
}

void LabWidget::arrange(bool wide, QSize size)
{
    // Wide: lessons | chart | tables (state and explanation over the transition tables). Narrow: the chart keeps
    // the width its lifelines need, with the state table and the explanation side by side under it, and the
    // transition tables move to a tab beside the lessons.
    m_wide = wide;
    m_body->setOrientation(wide ? Qt::Horizontal : Qt::Vertical);
    m_stateBox->setOrientation(wide ? Qt::Vertical : Qt::Horizontal);
    const int tab = m_side->indexOf(m_transitions);
    if (wide && tab >= 0) {
        m_side->removeTab(tab);
        m_details->addWidget(m_transitions);
        m_transitions->show();
    } else if (!wide && tab < 0) {
        m_side->addTab(m_transitions, tr("Tables"));
    }
    if (size.width() <= 0 || size.height() <= 0)
        return;
    m_sized = true;
    const int side = std::clamp(size.width() * (wide ? 26 : 34) / 100, 230, 420);
    const int rest = std::max(1, size.width() - side);
    m_split->setSizes({side, rest});
    if (wide) {
        m_body->setSizes({rest * 55 / 100, rest * 45 / 100});
        m_details->setSizes({size.height() * 2 / 5, size.height() * 3 / 5});
        m_stateBox->setSizes({size.height() / 5, size.height() / 5});
    } else {
        m_body->setSizes({size.height() * 64 / 100, size.height() * 36 / 100});
        m_stateBox->setSizes({rest / 2, rest / 2});
    }
}

void LabWidget::fitStateTable()
{
    // As tall as its rows (and a sideways scroll bar when the columns do not fit), the rest for the explanation.
    const QHeaderView* rows = m_stateView->verticalHeader();
    const QHeaderView* columns = m_stateView->horizontalHeader();
    int height = columns->sizeHint().height() + 2 * m_stateView->frameWidth() + 2;
    height += rows->defaultSectionSize() * m_stateModel->rowCount();
    if (columns->length() + rows->width() + 2 * m_stateView->frameWidth() > m_stateView->width())
        height += m_stateView->horizontalScrollBar()->sizeHint().height();
    m_stateView->setMaximumHeight(height);
}

void LabWidget::leaveLesson()
{
    m_lessons->closeLesson();
    m_bugHunt->stop();
    m_lessons->setIntroduction(playIntroduction(m_lab->protocol()));
    applyHunt();
}

void LabWidget::openProtocol(const QString& protocolName)
{
    m_lessons->closeLesson();
    m_bugHunt->stop();
    const int caches = m_lab->caches();
    const QString ops = toQString(co::defaultLabOps(caches));
    if (!m_lab->load(protocolName, caches, ops))
        return; // the error label shows core's message naming the valid protocols
    m_lessons->setIntroduction(tourIntroduction(m_lab->protocol(), caches, ops, m_lab->stepCount()));
    applyHunt();
    // The first op, not an empty chart: the learner sees what a step looks like at once.
    m_lab->setCurrentStep(1);
    m_side->setCurrentWidget(m_lessons);
}

void LabWidget::openLesson(const QString& lessonId)
{
    if (m_lessons->openLesson(lessonId))
        m_lab->first();
}

QString LabWidget::explanation() const
{
    return m_explanation->text();
}

void LabWidget::applyHunt()
{
    const bool hide = m_bugHunt->hidesAnswer();
    m_lessons->setConclusionHidden(hide);
    m_transitions->setExplanationsHidden(hide);
    // The hunt fixes the protocol and the cache count until it is answered (or another lesson opens).
    for (QWidget* w : {static_cast<QWidget*>(m_protocol), static_cast<QWidget*>(m_caches)}) {
        w->setEnabled(!hide);
        w->setToolTip(hide ? tr("Fixed by the bug hunt until you answer it") : QString());
    }
    showStep();
}

void LabWidget::syncControls()
{
    // Programmatic changes (lessons, bug hunts) must not loop back as learner edits.
    const QSignalBlocker protocolBlock(m_protocol);
    const QSignalBlocker cachesBlock(m_caches);
    const bool hide = m_bugHunt->hidesAnswer();
    for (int i = 0; i < m_protocol->count(); ++i) {
        const co::Protocol& p = co::findProtocol(toStdString(m_protocol->itemData(i).toString()));
        const bool disguised = hide && m_protocol->itemData(i).toString() == m_bugHunt->lesson().protocol;
        m_protocol->setItemText(i, disguised ? m_bugHunt->lesson().shownAs : protocolLabel(p));
        m_protocol->setItemData(i, disguised ? QString() : toQString(p.title), Qt::ToolTipRole);
    }
    m_protocol->setCurrentIndex(m_protocol->findData(m_lab->protocolName()));
    m_caches->setValue(m_lab->caches());
}

void LabWidget::showStep()
{
    syncControls();
    fitStateTable();
    const int step = m_lab->currentStep();
    const int steps = m_lab->stepCount();
    const bool hide = m_bugHunt->hidesAnswer();
    m_first->setEnabled(step > 0);
    m_back->setEnabled(step > 0);
    m_forward->setEnabled(step < steps);
    m_last->setEnabled(step < steps);
    if (m_lab->isTrace())
        m_position->setText(tr("Counterexample step %1 of %2").arg(step).arg(steps));
    else if (step == 0)
        m_position->setText(tr("Initial state, %n step(s) in the run", nullptr, steps));
    else
        m_position->setText(tr("Step %1 of %2").arg(step).arg(steps));

    const co::StepRecord& s = m_lab->current();
    QString head;
    if (step == 0)
        head = tr("Initial state");
    else if (!s.op.empty())
        head = tr("%1 issues %2 (%3): %4 → %5")
                   .arg(toQString(s.actor), toQString(s.event), toQString(s.op), toQString(s.fromState),
                        toQString(s.toState));
    else if (s.message)
        head = tr("%1 receives %2 from %3 [%4]: %5 → %6")
                   .arg(toQString(s.actor), toQString(s.message->kind), toQString(s.message->from), toQString(s.event),
                        toQString(s.fromState), toQString(s.toState));
    // In an unanswered bug hunt core's sentence would name the planted bug: say only what the step did.
    const QString why = hide && step > 0 ? observedStep(s) : toQString(s.explanation);
    m_explanation->setText(QStringLiteral("<b>%1</b><br>%2").arg(head.toHtmlEscaped(), why.toHtmlEscaped()));
    // Core's text for what stopped the run, shown once the learner reaches that step.
    const QString error = m_lab->errorText();
    const bool showError = !error.isEmpty() && (step == steps || m_lab->hasInputError());
    if (hide && showError && !m_lab->hasInputError()) {
        m_error->setText(tr("The run stops here. What went wrong, and which transition is to blame? Answer under "
                            "the lesson."));
        setTone(m_error, Tone::Normal);
    } else {
        m_error->setText(showError ? error : QString());
        setTone(m_error, Tone::Error);
    }
    m_error->setVisible(showError);
    m_chartScroll->ensureVisible(0, m_chart->rowY(step), 0, 60);
}

} // namespace coh::ui

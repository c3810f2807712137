#include "ui/lab_widget.h"

#include "core/coherence/lab_session.h"
#include "core/coherence/protocol_registry.h"
#include "ui/lab_bug_hunt.h"
#include "ui/lab_lesson_panel.h"
#include "ui/lab_model.h"
#include "ui/lab_op_panel.h"
#include "ui/lab_state_table_model.h"
#include "ui/lab_transition_table.h"
#include "ui/qt_text.h"
#include "ui/sequence_chart.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QShortcut>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

namespace coh::ui {

namespace co = core::coherence;

LabWidget::LabWidget(QWidget* parent)
    : QWidget(parent)
    , m_lab(new LabModel(this))
    , m_stateModel(new LabStateTableModel(m_lab, this))
{
    setObjectName(QStringLiteral("labWidget"));
    m_chart = new SequenceChart(m_lab);
    m_chart->setObjectName(QStringLiteral("labSequenceChart"));
    m_chartScroll = new QScrollArea(this);
    m_chartScroll->setWidget(m_chart);
    m_chartScroll->setWidgetResizable(true);
    m_chartScroll->setFocusPolicy(Qt::NoFocus);

    m_stateView = new QTableView(this);
    m_stateView->setObjectName(QStringLiteral("labStateTable"));
    m_stateView->setModel(m_stateModel);
    m_stateView->setFocusPolicy(Qt::NoFocus);
    m_stateView->setSelectionMode(QAbstractItemView::NoSelection);
    m_stateView->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);

    m_explanation = new QLabel(this);
    m_explanation->setObjectName(QStringLiteral("labExplanation"));
    m_explanation->setWordWrap(true);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("labError"));
    m_error->setWordWrap(true);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_transitions = new LabTransitionTable(m_lab, this);
    m_bugHunt = new LabBugHunt(m_lab, this);

    auto* center = new QWidget(this);
    auto* centerLayout = new QVBoxLayout(center);
    centerLayout->setContentsMargins(0, 0, 0, 0);
    centerLayout->addWidget(buildStepBar());
    centerLayout->addWidget(m_chartScroll, 1);
    centerLayout->addWidget(m_bugHunt);

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(m_stateView);
    rightLayout->addWidget(m_explanation);
    rightLayout->addWidget(m_error);
    rightLayout->addWidget(m_transitions, 1);

    auto* splitter = new QSplitter(Qt::Horizontal, this);
    splitter->addWidget(buildControls());
    splitter->addWidget(center);
    splitter->addWidget(right);
    splitter->setStretchFactor(1, 2);
    splitter->setStretchFactor(2, 2);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(splitter);

    connect(m_lab, &LabModel::changed, this, &LabWidget::showStep);
    connect(m_chart, &SequenceChart::stepActivated, m_lab, &LabModel::setCurrentStep);
    connect(m_lessons, &LabLessonPanel::lessonOpened, this, [this](const Lesson& lesson) {
        if (lesson.bugHunt)
            m_bugHunt->start(lesson.protocol, lesson.caches, lesson.ops);
        else
            m_bugHunt->stop();
    });
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
    openProtocol(QStringLiteral("msi-directory"));
}

QWidget* LabWidget::buildControls()
{
    auto* box = new QWidget(this);
    m_protocol = new QComboBox(box);
    m_protocol->setObjectName(QStringLiteral("labProtocol"));
    for (const co::Protocol& p : co::allProtocols()) {
        m_protocol->addItem(p.bugHunt ? tr("%1 [bug hunt]").arg(toQString(p.name)) : toQString(p.name),
                            toQString(p.name));
        m_protocol->setItemData(m_protocol->count() - 1, toQString(p.title), Qt::ToolTipRole);
    }
    m_caches = new QSpinBox(box);
    m_caches->setObjectName(QStringLiteral("labCaches"));
    m_caches->setRange(LabModel::kMinCaches, LabModel::kMaxCaches);
    m_reset = new QPushButton(tr("Reset"), box);
    m_reset->setObjectName(QStringLiteral("labReset"));
    m_reset->setToolTip(tr("Clear every op: all caches back to their initial state"));
    m_ops = new LabOpPanel(m_lab, box);
    m_lessons = new LabLessonPanel(m_lab, box);
    for (QWidget* w :
         {static_cast<QWidget*>(m_protocol), static_cast<QWidget*>(m_caches), static_cast<QWidget*>(m_reset)})
        w->setFocusPolicy(Qt::ClickFocus);

    auto* form = new QFormLayout;
    form->addRow(tr("Protocol"), m_protocol);
    form->addRow(tr("Caches"), m_caches);
    auto* layout = new QVBoxLayout(box);
    layout->addLayout(form);
    layout->addWidget(m_ops);
    layout->addWidget(m_reset);
    layout->addWidget(m_lessons, 1);

    // A learner's own edit leaves the lesson: its notes describe the lesson's run, not theirs.
    connect(m_protocol, &QComboBox::currentIndexChanged, this, [this] {
        m_lessons->closeLesson();
        m_bugHunt->stop();
        m_lab->load(m_protocol->currentData().toString(), m_lab->caches(), QString());
    });
    connect(m_caches, &QSpinBox::valueChanged, this, [this](int n) {
        m_lessons->closeLesson();
        m_bugHunt->stop();
        m_lab->setCaches(n);
    });
    connect(m_reset, &QPushButton::clicked, this, [this] {
        m_lessons->closeLesson();
        m_bugHunt->stop();
        m_lab->load(m_lab->protocolName(), m_lab->caches(), QString());
    });
    return box;
}

QWidget* LabWidget::buildStepBar()
{
    auto* bar = new QWidget(this);
    auto* row = new QHBoxLayout(bar);
    row->setContentsMargins(0, 0, 0, 0);
    const auto button = [bar, row](const QString& name, const QString& text, const QString& tip) {
        auto* b = new QPushButton(text, bar);
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
    row->addWidget(m_position, 1);
    connect(m_first, &QPushButton::clicked, m_lab, &LabModel::first);
    connect(m_back, &QPushButton::clicked, m_lab, &LabModel::back);
    connect(m_forward, &QPushButton::clicked, m_lab, &LabModel::forward);
    connect(m_last, &QPushButton::clicked, m_lab, &LabModel::last);
    return bar;
}

void LabWidget::openProtocol(const QString& protocolName)
{
    m_lessons->closeLesson();
    m_bugHunt->stop();
    const int caches = m_lab->caches();
    if (!m_lab->load(protocolName, caches, toQString(co::defaultLabOps(caches))))
        return; // the error label shows core's message naming the valid protocols
    m_lab->first();
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

void LabWidget::syncControls()
{
    // Programmatic changes (lessons, bug hunts) must not loop back as learner edits.
    const QSignalBlocker protocolBlock(m_protocol);
    const QSignalBlocker cachesBlock(m_caches);
    m_protocol->setCurrentIndex(m_protocol->findData(m_lab->protocolName()));
    m_caches->setValue(m_lab->caches());
}

void LabWidget::showStep()
{
    syncControls();
    const int step = m_lab->currentStep();
    const int steps = m_lab->stepCount();
    m_first->setEnabled(step > 0);
    m_back->setEnabled(step > 0);
    m_forward->setEnabled(step < steps);
    m_last->setEnabled(step < steps);
    m_position->setText(m_lab->isTrace() ? tr("Counterexample step %1 of %2").arg(step).arg(steps)
                                         : tr("Step %1 of %2").arg(step).arg(steps));

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
    m_explanation->setText(
        QStringLiteral("<b>%1</b><br>%2").arg(head.toHtmlEscaped(), toQString(s.explanation).toHtmlEscaped()));
    // Core's text for what stopped the run, shown once the learner reaches that step.
    const QString error = m_lab->errorText();
    const bool showError = !error.isEmpty() && (step == steps || m_lab->hasInputError());
    m_error->setText(showError ? error : QString());
    m_error->setVisible(showError);
    m_chartScroll->ensureVisible(0, m_chart->rowY(step), 0, 60);
}

} // namespace coh::ui

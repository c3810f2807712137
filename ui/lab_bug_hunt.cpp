#include "ui/lab_bug_hunt.h"

#include "core/coherence/protocol_registry.h"
#include "ui/lab_model.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace coh::ui {

namespace co = core::coherence;

namespace {

constexpr std::uint64_t kMaxStates = 2'000'000; // the planted bugs show within a few hundred states

QComboBox* answerBox(QWidget* parent, const QString& name)
{
    auto* box = new QComboBox(parent);
    box->setObjectName(name);
    // Long choices must not widen the panel: the box shrinks and shows the whole text in its list.
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(10);
    box->setFocusPolicy(Qt::ClickFocus);
    return box;
}

} // namespace

LabBugHunt::LabBugHunt(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
    , m_prompt(new QLabel(this))
    , m_violation(answerBox(this, QStringLiteral("bugHuntInvariant")))
    , m_transition(answerBox(this, QStringLiteral("bugHuntTransition")))
    , m_check(new QPushButton(tr("Check"), this))
    , m_hint(new QPushButton(tr("Hint"), this))
    , m_showMe(new QPushButton(tr("Show me"), this))
    , m_back(new QPushButton(tr("Back to my run"), this))
    , m_verdict(new QLabel(this))
    , m_hints(new QLabel(this))
{
    setObjectName(QStringLiteral("bugHunt"));
    m_prompt->setWordWrap(true);
    m_prompt->setText(tr("<b>Your answer</b> (you may try again):"));
    m_check->setObjectName(QStringLiteral("bugHuntCheck"));
    m_check->setToolTip(tr("Check your answer; you may try again"));
    m_hint->setObjectName(QStringLiteral("bugHuntHint"));
    m_showMe->setObjectName(QStringLiteral("bugHuntShowMe"));
    m_showMe->setToolTip(tr("Reveal the bug and the model checker's counterexample"));
    m_back->setObjectName(QStringLiteral("bugHuntBack"));
    m_back->setToolTip(tr("Leave the counterexample and step through the lesson's run again"));
    for (QLabel* l : {m_verdict, m_hints}) {
        l->setWordWrap(true);
        l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    }
    m_verdict->setObjectName(QStringLiteral("bugHuntVerdict"));
    m_hints->setObjectName(QStringLiteral("bugHuntHints"));
    m_violation->addItem(tr("Choose…"), -1);
    for (co::Violation v : answerViolations())
        m_violation->addItem(violationLabel(v), static_cast<int>(v));
    for (QPushButton* b : {m_check, m_hint, m_showMe, m_back})
        b->setFocusPolicy(Qt::NoFocus);

    auto* form = new QFormLayout;
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->addRow(tr("What goes wrong?"), m_violation);
    form->addRow(tr("Which transition?"), m_transition);
    // Two by two, so the panel fits the narrow side column.
    auto* row = new QGridLayout;
    row->addWidget(m_check, 0, 0);
    row->addWidget(m_hint, 0, 1);
    row->addWidget(m_showMe, 1, 0);
    row->addWidget(m_back, 1, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_prompt);
    layout->addLayout(form);
    layout->addLayout(row);
    layout->addWidget(m_verdict);
    layout->addWidget(m_hints);

    connect(m_check, &QPushButton::clicked, this, &LabBugHunt::checkAnswer);
    connect(m_hint, &QPushButton::clicked, this, &LabBugHunt::showHint);
    connect(m_showMe, &QPushButton::clicked, this, &LabBugHunt::showMe);
    connect(m_back, &QPushButton::clicked, this, [this] {
        m_lab->load(m_lesson.protocol, m_lesson.caches, m_lesson.ops);
        m_back->setVisible(false);
    });
    connect(m_lab, &LabModel::changed, this, &LabBugHunt::refreshTransitions);
    connect(&m_watcher, &QFutureWatcher<co::ExplorerResult>::finished, this, &LabBugHunt::checkerFinished);
    stop();
}

LabBugHunt::~LabBugHunt()
{
    if (m_cancel)
        m_cancel->store(true);
    // The worker only reads immutable protocol tables, but its result lands in m_watcher: wait for it.
    m_watcher.waitForFinished();
}

void LabBugHunt::start(const Lesson& lesson)
{
    stop();
    m_lesson = lesson;
    m_active = true;
    m_violation->setCurrentIndex(0);
    m_verdict->clear();
    refreshTransitions();
    setVisible(true);
}

void LabBugHunt::stop()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
    ++m_generation; // a result on its way belongs to the hunt that was stopped
    m_searchPending = false;
    m_active = false;
    m_revealed = false;
    m_attempts = 0;
    m_hintsShown = 0;
    m_verdict->clear();
    m_hints->clear();
    m_hints->setVisible(false);
    m_back->setVisible(false);
    for (QWidget* w : {static_cast<QWidget*>(m_violation), static_cast<QWidget*>(m_transition),
                       static_cast<QWidget*>(m_check), static_cast<QWidget*>(m_hint)})
        w->setEnabled(true);
    m_showMe->setEnabled(true);
    setVisible(false);
}

QString LabBugHunt::verdict() const
{
    return m_verdict->text();
}

void LabBugHunt::refreshTransitions()
{
    // The choices are the transitions the run on screen took, so a learner who tries their own ops can still
    // point at what they saw. A counterexample keeps the choices of the run it replaced.
    if (!m_active || m_lab->isTrace())
        return;
    const QVariant chosen = m_transition->currentData();
    m_transition->clear();
    m_transition->addItem(tr("Choose…"), QVariant());
    for (const TransitionChoice& c : transitionsTaken(m_lab->protocol(), m_lab->run().steps))
        m_transition->addItem(c.label, QStringList{c.key.atDirectory ? QStringLiteral("dir") : QStringLiteral("cache"),
                                                   c.key.state, c.key.event});
    m_transition->setCurrentIndex(std::max(0, m_transition->findData(chosen)));
}

void LabBugHunt::setAnswer(co::Violation violation, const TransitionKey& transition)
{
    m_violation->setCurrentIndex(std::max(0, m_violation->findData(static_cast<int>(violation))));
    const QStringList key{transition.atDirectory ? QStringLiteral("dir") : QStringLiteral("cache"), transition.state,
                          transition.event};
    m_transition->setCurrentIndex(std::max(0, m_transition->findData(key)));
}

bool LabBugHunt::checkAnswer()
{
    if (!hidesAnswer())
        return m_revealed;
    const QStringList key = m_transition->currentData().toStringList();
    if (m_violation->currentIndex() <= 0 || key.size() != 3) {
        m_verdict->setText(tr("Choose both: what goes wrong, and which transition is to blame."));
        setTone(m_verdict, Tone::Normal);
        return false;
    }
    const bool violationRight = m_violation->currentData().toInt() == static_cast<int>(m_lesson.answer.violation);
    const bool transitionRight =
        TransitionKey{key[0] == QLatin1String("dir"), key[1], key[2]} == m_lesson.answer.transition;
    if (violationRight && transitionRight) {
        reveal(true);
        return true;
    }
    ++m_attempts;
    const QString which = violationRight    ? tr("What goes wrong is right, but that transition is not to blame.")
                          : transitionRight ? tr("That transition is to blame, but it breaks something else.")
                                            : tr("Neither is right yet.");
    m_verdict->setText(tr("Not yet (attempt %1): %2 Try again, or ask for a hint.").arg(m_attempts).arg(which));
    setTone(m_verdict, Tone::Error);
    return false;
}

void LabBugHunt::showHint()
{
    const QStringList hints = huntHints(m_lesson);
    if (m_hintsShown >= hints.size())
        return;
    ++m_hintsShown;
    QStringList shown;
    for (int i = 0; i < m_hintsShown; ++i)
        shown << tr("Hint %1 of %2: %3").arg(i + 1).arg(hints.size()).arg(hints[i].toHtmlEscaped());
    m_hints->setText(shown.join(QStringLiteral("<br>")));
    m_hints->setVisible(true);
    m_hint->setEnabled(m_hintsShown < hints.size());
}

void LabBugHunt::showMe()
{
    if (hidesAnswer())
        reveal(false);
}

void LabBugHunt::reveal(bool correct)
{
    m_revealed = true;
    const co::Protocol& protocol = co::findProtocol(toStdString(m_lesson.protocol), "protocol");
    QString text = correct
                       ? tr("Right: %1, and %2 is to blame.")
                             .arg(violationLabel(m_lesson.answer.violation),
                                  m_transition->currentText().section(QStringLiteral(" ("), 0, 0))
                       : tr("The bug: %1; %2 (%3, %4) is to blame.")
                             .arg(violationLabel(m_lesson.answer.violation),
                                  m_lesson.answer.transition.atDirectory ? tr("the directory's") : tr("the caches'"),
                                  m_lesson.answer.transition.state, m_lesson.answer.transition.event);
    text += QLatin1Char(' ') + tr("The variant is %1: %2").arg(m_lesson.protocol, toQString(protocol.summary));
    m_verdict->setText(text);
    setTone(m_verdict, correct ? Tone::Good : Tone::Normal);
    for (QWidget* w : {static_cast<QWidget*>(m_violation), static_cast<QWidget*>(m_transition),
                       static_cast<QWidget*>(m_check), static_cast<QWidget*>(m_hint), static_cast<QWidget*>(m_showMe)})
        w->setEnabled(false);
    emit revealed(correct);
    runChecker();
}

void LabBugHunt::runChecker()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    ++m_generation;
    m_hints->setText(tr("The model checker is exploring every interleaving of %1 caches…").arg(m_lesson.caches));
    m_hints->setVisible(true);
    // A search still running belongs to an earlier hunt: it polls its flag and ends within one state. This one
    // starts when that one reports finished, without the GUI thread waiting for it.
    if (m_searching) {
        m_searchPending = true;
        return;
    }
    startSearch();
}

void LabBugHunt::startSearch()
{
    m_searchPending = false;
    m_searching = true;
    m_searchGeneration = m_generation;
    co::ExplorerOptions options;
    options.caches = m_lesson.caches;
    options.maxStates = kMaxStates;
    // Inputs are copied into the job; the protocol table is immutable and lives for the program.
    const co::Protocol* protocol = &co::findProtocol(toStdString(m_lesson.protocol), "protocol");
    m_watcher.setFuture(QtConcurrent::run([protocol, options, cancel = m_cancel]() mutable {
        options.cancel = cancel.get(); // the job shares the flag, so it outlives stop() and a new check
        return co::explore(*protocol, options);
    }));
}

void LabBugHunt::checkerFinished()
{
    m_searching = false;
    if (m_searchPending) {
        startSearch(); // the search this one was cancelled for
        return;
    }
    if (m_searchGeneration != m_generation || m_watcher.isCanceled())
        return; // the hunt was stopped or restarted while the checker ran
    const co::ExplorerResult result = m_watcher.result();
    if (result.violation == co::Violation::None) {
        m_hints->setText(tr("The checker explored %1 states and found no violation%2.")
                             .arg(result.states)
                             .arg(result.complete ? QString() : tr(" (the search stopped at its state limit)")));
        return;
    }
    m_hints->setText(tr("The checker explored %1 states; its shortest counterexample, now in the chart, has %2 "
                        "steps: %3")
                         .arg(result.states)
                         .arg(result.trace.size())
                         .arg(toQString(result.description).toHtmlEscaped()));
    m_back->setVisible(true);
    // The trace starts from the initial state of exactly the configuration that was checked.
    m_lab->load(m_lesson.protocol, m_lesson.caches, QString());
    m_lab->showTrace(result.trace, toQString(result.description));
    m_lab->last();
    emit counterexampleShown(static_cast<int>(result.trace.size()));
}

} // namespace coh::ui

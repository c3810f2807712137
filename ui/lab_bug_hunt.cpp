#include "ui/lab_bug_hunt.h"

#include "core/coherence/protocol_registry.h"
#include "ui/lab_model.h"
#include "ui/qt_text.h"

#include <QComboBox>
#include <QCoreApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

namespace coh::ui {

namespace co = core::coherence;

namespace {

constexpr std::uint64_t kMaxStates = 2'000'000; // the planted bugs show within a few hundred states

struct InvariantChoice {
    co::Violation violation;
    const char* label;
};

constexpr InvariantChoice kChoices[] = {
    {co::Violation::Swmr, QT_TRANSLATE_NOOP("LabBugHunt", "Single writer / multiple readers (SWMR)")},
    {co::Violation::DataValue, QT_TRANSLATE_NOOP("LabBugHunt", "Data value: a load returned an old value")},
    {co::Violation::LostWrite, QT_TRANSLATE_NOOP("LabBugHunt", "Lost write: the latest value vanished")},
    {co::Violation::AckCounter, QT_TRANSLATE_NOOP("LabBugHunt", "Ack counter left unsettled")},
    {co::Violation::ProtocolError, QT_TRANSLATE_NOOP("LabBugHunt", "Protocol error: an undefined transition")},
    {co::Violation::Deadlock, QT_TRANSLATE_NOOP("LabBugHunt", "Deadlock")},
};

QString choiceLabel(co::Violation v)
{
    for (const InvariantChoice& c : kChoices)
        if (c.violation == v)
            return QCoreApplication::translate("LabBugHunt", c.label);
    return toQString(co::violationName(v));
}

} // namespace

LabBugHunt::LabBugHunt(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
    , m_foundIt(new QPushButton(tr("I found it"), this))
    , m_invariant(new QComboBox(this))
    , m_check(new QPushButton(tr("Check with the model checker"), this))
    , m_back(new QPushButton(tr("Back to my run"), this))
    , m_verdict(new QLabel(this))
{
    m_foundIt->setObjectName(QStringLiteral("bugHuntFoundIt"));
    m_invariant->setObjectName(QStringLiteral("bugHuntInvariant"));
    m_check->setObjectName(QStringLiteral("bugHuntCheck"));
    m_back->setObjectName(QStringLiteral("bugHuntBack"));
    m_verdict->setObjectName(QStringLiteral("bugHuntVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    for (const InvariantChoice& c : kChoices)
        m_invariant->addItem(tr(c.label), static_cast<int>(c.violation));
    for (QWidget* w : {static_cast<QWidget*>(m_foundIt), static_cast<QWidget*>(m_invariant),
                       static_cast<QWidget*>(m_check), static_cast<QWidget*>(m_back)})
        w->setFocusPolicy(Qt::NoFocus);

    auto* row = new QHBoxLayout;
    row->addWidget(m_foundIt);
    row->addWidget(m_invariant, 1);
    row->addWidget(m_check);
    row->addWidget(m_back);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(
        new QLabel(tr("<b>Bug hunt.</b> Step through the run until an invariant breaks, then say which."), this));
    layout->addLayout(row);
    layout->addWidget(m_verdict);

    connect(m_foundIt, &QPushButton::clicked, this, &LabBugHunt::askInvariant);
    connect(m_check, &QPushButton::clicked, this, &LabBugHunt::check);
    connect(m_back, &QPushButton::clicked, this, [this] { m_lab->load(m_protocol, m_caches, m_ops); });
    connect(&m_watcher, &QFutureWatcher<co::ExplorerResult>::finished, this, &LabBugHunt::finished);
    stop();
}

LabBugHunt::~LabBugHunt()
{
    if (m_cancel)
        m_cancel->store(true);
    // The worker only reads immutable protocol tables, but its result lands in m_watcher: wait for it.
    m_watcher.waitForFinished();
}

void LabBugHunt::start(const QString& protocol, int caches, const QString& ops)
{
    stop();
    m_protocol = protocol;
    m_caches = caches;
    m_ops = ops;
    m_foundIt->setEnabled(true);
    setVisible(true);
}

void LabBugHunt::stop()
{
    if (m_cancel)
        m_cancel->store(true);
    m_cancel.reset();
    m_invariant->setVisible(false);
    m_check->setVisible(false);
    m_back->setVisible(false);
    m_verdict->clear();
    setVisible(false);
}

QString LabBugHunt::verdict() const
{
    return m_verdict->text();
}

void LabBugHunt::askInvariant()
{
    m_invariant->setVisible(true);
    m_check->setVisible(true);
    m_check->setEnabled(true);
    m_verdict->setText(tr("Which invariant broke?"));
}

void LabBugHunt::check()
{
    if (m_cancel)
        m_cancel->store(true);
    // A search still running belongs to an earlier hunt: it polls the flag, so it ends within one state.
    m_watcher.waitForFinished();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_check->setEnabled(false);
    m_verdict->setText(tr("Exploring every interleaving of %1 with %2 caches...").arg(m_protocol).arg(m_caches));
    co::ExplorerOptions options;
    options.caches = m_caches;
    options.maxStates = kMaxStates;
    // Inputs are copied into the job; the protocol table is immutable and lives for the program.
    const co::Protocol* protocol = &co::findProtocol(toStdString(m_protocol), "protocol");
    m_watcher.setFuture(QtConcurrent::run([protocol, options, cancel = m_cancel]() mutable {
        options.cancel = cancel.get(); // the job shares the flag, so it outlives stop() and a new check()
        return co::explore(*protocol, options);
    }));
}

void LabBugHunt::finished()
{
    m_check->setEnabled(true);
    if (!m_cancel || m_cancel->load() || m_watcher.isCanceled())
        return; // the hunt was stopped or restarted while the checker ran
    const co::ExplorerResult result = m_watcher.result();
    if (result.violation == co::Violation::None) {
        m_verdict->setText(tr("The checker explored %1 states and found no violation%2.")
                               .arg(result.states)
                               .arg(result.complete ? QString() : tr(" (the search stopped at its state limit)")));
        return;
    }
    const auto guess = static_cast<co::Violation>(m_invariant->currentData().toInt());
    const bool correct = guess == result.violation;
    const QString found = tr("The checker explored %1 states; its shortest counterexample has %2 steps: %3")
                              .arg(result.states)
                              .arg(result.trace.size())
                              .arg(toQString(result.description));
    m_verdict->setText((correct ? tr("Right: %1.").arg(choiceLabel(result.violation))
                                : tr("Not quite: you said %1, but the broken invariant is %2.")
                                      .arg(choiceLabel(guess), choiceLabel(result.violation))) +
                       QLatin1Char(' ') + found);
    m_back->setVisible(true);
    // The trace starts from the initial state of exactly the configuration that was checked.
    m_lab->load(m_protocol, m_caches, QString());
    m_lab->showTrace(result.trace, toQString(result.description));
    m_lab->last();
    emit counterexampleShown(static_cast<int>(result.trace.size()), correct);
}

} // namespace coh::ui

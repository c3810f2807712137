#include "ui/coherence_form.h"

#include "core/base/input_error.h"
#include "core/coherence/protocol_leases.h"
#include "core/coherence/protocol_registry.h"
#include "core/scenario/scenario.h"
#include "core/scenario/scenario_loader.h"
#include "ui/combo_choice.h"
#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/form_layout.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace coh::ui {

namespace {

const coh::core::coherence::Protocol* findProtocol(const QString& name)
{
    for (const auto& p : core::coherence::allProtocols())
        if (toQString(p.name) == name)
            return &p;
    return nullptr;
}

} // namespace

CoherenceForm::CoherenceForm(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_fields(new ScenarioFields(document, this))
{
    // Word-wrapped labels sit in the box layout, not in form rows, so their full height is laid out.
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* top = newFormLayout();
    m_decode = new QComboBox(this);
    m_decode->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_decode->setMinimumContentsLength(8);
    m_fields->watch(m_decode, "/coherence/decode");
    m_fields->watch(m_decode, "/coherence");
    m_decode->addItem(tr("direct (no protocol)"), QStringLiteral("direct"));
    for (const auto& p : core::coherence::allProtocols())
        if (!p.bugHunt) // core refuses bug-hunt variants in scenarios; they live in the Lab only
            m_decode->addItem(toQString(p.name), toQString(p.name));
    connect(m_decode, &QComboBox::activated, this, [this] { setDecode(m_decode->currentData().toString()); });
    top->addRow(tr("Decode protocol"), m_decode);
    layout->addLayout(top);

    m_explanation = new QLabel(this);
    m_explanation->setWordWrap(true);
    m_explanation->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_explanation);
    m_openInLab = new QPushButton(tr("Open in Lab"), this);
    connect(m_openInLab, &QPushButton::clicked, this, [this] { emit openInLab(currentProtocol()); });
    auto* labRow = new QHBoxLayout;
    labRow->addStretch(1);
    labRow->addWidget(m_openInLab);
    layout->addLayout(labRow);

    auto* form = newFormLayout();
    m_home = new QComboBox(this);
    m_home->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_home->setMinimumContentsLength(8);
    m_fields->watch(m_home, "/coherence/home");
    connect(m_home, &QComboBox::activated, this, &CoherenceForm::setHome);
    m_home->setToolTip(tr("Where each block's directory entry lives"));
    form->addRow(tr("Home"), m_home);
    form->addRow(tr("Control bytes"), m_fields->value("/coherence/control_bytes", tr("control bytes"),
                                                      QString::number(core::CoherenceSpec{}.controlBytes), this));
    m_maxVersions = m_fields->value("/coherence/staleness/max_versions", tr("staleness max versions"), QString(), this);
    m_maxAge = m_fields->value("/coherence/staleness/max_age", tr("staleness max age"), QString(), this);
    m_maxVersions->setPlaceholderText(tr("protocol's bound"));
    m_maxAge->setPlaceholderText(tr("none"));
    form->addRow(tr("Staleness: max versions"), m_maxVersions);
    form->addRow(tr("Staleness: max age"), m_maxAge);
    m_leaseTtl = m_fields->value("/coherence/lease/ttl", tr("lease time to live"), QString(), this);
    m_leaseTtl->setPlaceholderText(tr("never expires"));
    form->addRow(tr("Lease: time to live"), m_leaseTtl);
    m_leaseExpiry = m_fields->choice("/coherence/lease/on_expiry", tr("lease expiry"),
                                     {QStringLiteral("refetch"), QStringLiteral("trust")},
                                     toQString(core::toString(core::LeaseSpec{}.onExpiry)), this);
    setFieldHelp(m_leaseExpiry,
                 tr("refetch: drop the expired copy and read it again from the master (pays a round trip and the block "
                    "data); "
                    "trust: keep reading it and count each read, the bug of a store that reclaims "
                    "expired blocks"));
    form->addRow(tr("Lease: at expiry"), m_leaseExpiry);

    // Shown, but disabled with core's own reason, so the user learns why rather than finding nothing.

    QStringList protocols;
    for (const auto& p : core::coherence::allProtocols())
        if (!p.bugHunt)
            protocols << toQString(p.name);
    // Prefill's phase: the blocks prefill instances share (the prefix pool's); Problems explains the picker
    // when there is no pool.
    m_prefill = m_fields->choice("/coherence/prefill", tr("prefill protocol"), protocols, tr("direct"), this);
    m_prefill->setToolTip(tr("The protocol of the prompt-prefix blocks prefill instances share through "
                             "serving.prefix_pool (each sequence's own blocks follow the decode protocol)."));
    form->addRow(tr("Prefill protocol"), m_prefill);
    // A protocol for the KV kept in each other tier (the prefix pool's blocks when the pool is there).
    for (const char* tier : {"dram", "cxl", "storage"}) {
        const QString name = QString::fromLatin1(tier);
        QComboBox* combo = m_fields->choice("/coherence/tiers/" + std::string(tier), tr("%1 tier protocol").arg(name),
                                            protocols, tr("direct"), this);
        combo->setObjectName(QStringLiteral("tier_") + name);
        combo->setToolTip(
            tr("The protocol of the KV kept in the %1 tier: the prefix pool's blocks when "
               "serving.prefix_pool lives there, and the decode sequences serving.kv_tiers offloads there "
               "(direct: plain copies).")
                .arg(name));
        m_tierCombos.push_back(combo);
        form->addRow(tr("%1 tier").arg(name), combo);
    }
    layout->addLayout(form);
}

QString CoherenceForm::currentProtocol() const
{
    const auto v = m_document->value("/coherence/decode");
    return v && v->is_string() ? toQString(v->get<std::string>()) : QStringLiteral("direct");
}

void CoherenceForm::setDecode(const QString& protocol)
{
    if (protocol == currentProtocol() && m_document->value("/coherence/decode"))
        return;
    m_document->setValue("/coherence/decode", toStdString(protocol), tr("Edit decode protocol"));
}

void CoherenceForm::setHome()
{
    const QString home = m_home->currentData().toString();
    const std::string pointer = "/coherence/home";
    if (home.isEmpty()) {
        if (m_document->value(pointer))
            m_document->removeValue(pointer, tr("Edit coherence home"));
        return;
    }
    m_document->setValue(pointer, toStdString(home), tr("Edit coherence home"));
}

void CoherenceForm::refresh()
{
    m_fields->refresh();
    const QString protocol = currentProtocol();
    const auto* p = findProtocol(protocol);
    showChoice(m_decode, protocol);
    if (protocol == QLatin1String("direct"))
        m_explanation->setText(tr("The plain prefill → decode copy of each sequence's KV blocks: no protocol, no "
                                  "directory, no control messages. Pick it as the baseline every protocol is "
                                  "compared against."));
    else
        m_explanation->setText(
            p ? QStringLiteral("<b>%1</b><br>%2")
                    .arg(toQString(p->title).toHtmlEscaped(), toQString(p->whenToPick).toHtmlEscaped())
              : QString());
    m_openInLab->setEnabled(p != nullptr);
    m_openInLab->setToolTip(p ? tr("Step through %1 in the Lab").arg(protocol) : tr("direct has no protocol table"));

    const bool bounded = p && p->consistency == core::coherence::Consistency::BoundedStaleness;
    for (QLineEdit* e : {m_maxVersions, m_maxAge}) {
        e->setEnabled(bounded || !e->text().isEmpty()); // keep a set value editable so it can be cleared
        setFieldHelp(e, bounded ? tr("Reader-side bound: a decode read further behind waits for the update")
                                : tr("Only bounded-staleness protocols (lazy-causal) return stale versions"));
    }

    const bool leases = p && core::coherence::grantsLeases(*p);
    m_leaseTtl->setEnabled(leases || !m_leaseTtl->text().isEmpty());
    m_leaseExpiry->setEnabled(leases || m_document->value("/coherence/lease/on_expiry").has_value());
    setFieldHelp(m_leaseTtl, leases ? tr("How long decode may read a copy granted under a lease (e.g. 2 s)")
                                    : tr("Only protocols that grant leases (sealed-lease) have leases to expire"));

    {
        const QSignalBlocker blocker(m_home);
        m_home->clear();
        m_home->addItem(tr("allocating node (default)"), QString());
        m_home->addItem(tr("hashed"), QStringLiteral("hashed"));
        for (const QString& id : m_document->nodeIds())
            m_home->addItem(tr("node %1").arg(id), id);
        const auto home = m_document->value("/coherence/home");
        QString value = home && home->is_string() ? toQString(home->get<std::string>()) : QString();
        if (value == QLatin1String("allocating_node"))
            value.clear();
        showChoice(m_home, value);
    }
}

void CoherenceForm::showProblems(const std::vector<core::InputProblem>& problems)
{
    m_fields->showProblems(problems);
}

} // namespace coh::ui

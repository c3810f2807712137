#include "ui/kv_tiers_form.h"

#include "core/scenario/enum_names.h"
#include "core/scenario/scenario.h"
#include "ui/combo_choice.h"
#include "ui/document_strings.h"
#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QListWidget>
#include <QSignalBlocker>

#include <algorithm>

namespace coh::ui {

namespace {

constexpr const char* kPointer = "/serving/kv_tiers";
constexpr const char* kTiersPointer = "/serving/kv_tiers/tiers";
constexpr const char* kEvictionPointer = "/serving/kv_tiers/eviction";
constexpr const char* kWritePointer = "/serving/kv_tiers/write";
constexpr const char* kCapacityPointer = "/serving/kv_tiers/capacity";
constexpr int kMaxVisibleRows = 6; // a file naming unknown tiers adds rows; beyond this the list scrolls
constexpr int kTierRole = Qt::UserRole;

// The tiers below HBM, in core's order (what the list offers).
QStringList offeredTiers()
{
    QStringList offered;
    for (const auto& name : core::enumNames<core::Tier>())
        if (name != core::toString(core::Tier::Hbm))
            offered << toQString(name);
    return offered;
}

template <class E> QComboBox* policyCombo(const char* pointer, E defaultValue, QWidget* page)
{
    auto* combo = new QComboBox(page);
    combo->setObjectName(QString::fromLatin1(pointer));
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(8);
    combo->addItem(KvTiersForm::tr("(default: %1)").arg(toQString(core::toString(defaultValue))), QString());
    for (const auto& name : core::enumNames<E>())
        combo->addItem(toQString(name), toQString(name));
    return combo;
}

std::string capacityPointer(const QString& tier)
{
    return std::string(kCapacityPointer) + '/' + toStdString(tier);
}

} // namespace

KvTiersForm::KvTiersForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page)
    : QObject(page)
    , m_document(document)
    , m_tiers(new QListWidget(page))
{
    const core::KvTiersSpec d;
    m_tiers->setObjectName(QString::fromLatin1(kTiersPointer));
    m_tiers->setToolTip(tr("The memory below HBM that decode sequences spill to when a decode instance's HBM is "
                           "full, tried in the order checked (the number). The protocol for each tier is set in the "
                           "Coherence section (its dram, cxl and storage tier rows; none: plain copies)."));
    form->addRow(tr("KV tiers"), m_tiers);
    connect(m_tiers, &QListWidget::itemChanged, this, &KvTiersForm::setTiers);

    // One row per tier, the label above the field: beside it, a label this long would leave the field a few letters
    // in the dock's usual width (and the form's label column, set by other rows, can push a field past the edge).
    for (const QString& tier : offeredTiers()) {
        const QString label = tr("%1 capacity per decode GPU").arg(tier);
        FieldEdit* edit = fields->value(capacityPointer(tier), label, QString(), page);
        edit->setPlaceholderText(tr("(even share of the node)"));
        edit->setToolTip(
            tr("The most KV bytes each decode instance (each decode GPU, like vLLM's --swap-space) may keep in %1: "
               "a quantity with a unit (\"512 MiB\", \"4 GiB\") or a number of bytes. Empty: each decode instance "
               "gets an even share of the %1 of the nearest node that has it. Enabled while %1 is checked in KV "
               "tiers; unchecking it removes its capacity.")
                .arg(tier));
        edit->setRemovesEmptyParent(true); // the last capacity cleared leaves no "capacity": {}
        auto* caption = new QLabel(label, page);
        caption->setBuddy(edit);
        form->addRow(caption);
        form->addRow(edit);
        m_capacities.emplace_back(tier, edit);
    }

    m_eviction = policyCombo(kEvictionPointer, d.eviction, page);
    m_eviction->setToolTip(tr("Which sequence leaves HBM when a block is needed: lru: the least recently decoded "
                              "(ties: the latest admitted); largest: the one holding the most blocks"));
    fields->watch(m_eviction, kEvictionPointer);
    form->addRow(tr("Tier eviction"), m_eviction);
    connect(m_eviction, &QComboBox::activated, this,
            [this] { setPolicy(m_eviction, "eviction", tr("Edit KV tier eviction")); });

    m_write = policyCombo(kWritePointer, d.write, page);
    m_write->setToolTip(tr("write_back: an offload writes every block whose tier copy is stale; write_through: "
                           "each block is written down when it fills, so an offload writes only the open tail block"));
    fields->watch(m_write, kWritePointer);
    form->addRow(tr("Tier write policy"), m_write);
    connect(m_write, &QComboBox::activated, this,
            [this] { setPolicy(m_write, "write", tr("Edit KV tier write policy")); });
    refresh();
}

FieldEdit* KvTiersForm::capacityEdit(const QString& tier) const
{
    for (const auto& [name, edit] : m_capacities)
        if (name == tier)
            return edit;
    return nullptr;
}

void KvTiersForm::refresh()
{
    // The listed tiers first, in spill order, then the others. A listed name that is no tier below HBM (a typo,
    // "hbm") stays visible, checked, so its problem can be unchecked away.
    const QStringList listed = documentStrings(*m_document, kTiersPointer);
    QStringList shown;
    for (const QString& tier : listed)
        if (!shown.contains(tier))
            shown << tier;
    const int checked = int(shown.size());
    for (const QString& tier : offeredTiers())
        if (!shown.contains(tier))
            shown << tier;

    const QSignalBlocker blocker(m_tiers);
    if (m_tiers->count() != shown.size()) {
        if (m_inItemChange) {
            // The item whose change this is may not be deleted under its own signal: rebuild once it returns.
            QMetaObject::invokeMethod(this, &KvTiersForm::refresh, Qt::QueuedConnection);
            return;
        }
        m_tiers->clear();
        for (int i = 0; i < shown.size(); ++i) {
            auto* item = new QListWidgetItem(m_tiers);
            item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable);
        }
    }
    for (int i = 0; i < shown.size(); ++i) {
        QListWidgetItem* item = m_tiers->item(i);
        item->setData(kTierRole, shown[i]);
        item->setText(i < checked ? tr("%1. %2").arg(i + 1).arg(shown[i]) : shown[i]);
        item->setCheckState(i < checked ? Qt::Checked : Qt::Unchecked);
    }
    const int rows = std::clamp(m_tiers->count(), 1, kMaxVisibleRows);
    const int rowHeight = m_tiers->count() > 0 ? m_tiers->sizeHintForRow(0) : m_tiers->fontMetrics().height();
    m_tiers->setFixedHeight(rows * rowHeight + 2 * m_tiers->frameWidth());

    const QString eviction = documentString(*m_document, kEvictionPointer);
    const QString write = documentString(*m_document, kWritePointer);
    showChoice(m_eviction, eviction);
    showChoice(m_write, write);
    // Without tiers the policies govern nothing; one the file gives anyway stays editable so it can be cleared.
    m_eviction->setEnabled(checked > 0 || m_document->value(kEvictionPointer).has_value());
    m_write->setEnabled(checked > 0 || m_document->value(kWritePointer).has_value());
    // A capacity counts only for a listed tier (core refuses the others); one the file gives anyway stays editable
    // so it can be cleared. A refused text left in a field that is switched off belonged to the tier just dropped.
    for (const auto& [tier, edit] : m_capacities) {
        const bool enabled = listed.contains(tier) || m_document->value(capacityPointer(tier)).has_value();
        if (!enabled && edit->isRefused())
            edit->revert();
        edit->setEnabled(enabled);
    }
}

void KvTiersForm::showProblems(const std::vector<core::InputProblem>& problems)
{
    // The list answers for the section as a whole (not an object, an unknown key) and its tiers; the policies'
    // own problems are on their boxes (ScenarioFields::watch), a capacity's on its field (ScenarioFields::value).
    const auto ownField = [this](const std::string& field) {
        if (field == kEvictionPointer || field == kWritePointer)
            return true;
        return std::any_of(m_capacities.begin(), m_capacities.end(),
                           [&](const auto& capacity) { return field == capacity.second->pointer(); });
    };
    std::vector<core::InputProblem> section;
    for (const core::InputProblem& problem : problems)
        if (!ownField(problem.field))
            section.push_back(problem);
    markField(m_tiers, problemsUnder(section, kPointer));
}

void KvTiersForm::setTiers(QListWidgetItem* changed)
{
    // Checking appends (the order is the order sequences spill in); unchecking removes, with the tier's capacity
    // (core refuses a capacity for a tier not listed).
    QStringList tiers = documentStrings(*m_document, kTiersPointer);
    const QString tier = changed->data(kTierRole).toString();
    const bool checking = changed->checkState() == Qt::Checked;
    tiers.removeAll(tier);
    if (checking)
        tiers << tier;
    nlohmann::ordered_json next = nlohmann::ordered_json::object();
    // No tiers: the policies are meaningless, the whole section goes.
    if (!tiers.isEmpty()) {
        const auto v = m_document->value(kPointer);
        if (v && v->is_object())
            next = *v;
        nlohmann::ordered_json list = nlohmann::ordered_json::array();
        for (const QString& name : tiers)
            list.push_back(toStdString(name));
        next["tiers"] = std::move(list);
        auto capacity = next.find("capacity");
        if (!checking && capacity != next.end() && capacity->is_object()) {
            capacity->erase(toStdString(tier));
            if (capacity->empty())
                next.erase(capacity);
        }
    }
    m_inItemChange = true;
    m_document->setSection(kPointer, std::move(next), tr("Edit KV tiers"));
    m_inItemChange = false;
}

void KvTiersForm::setPolicy(QComboBox* combo, const char* key, const QString& what)
{
    const QString chosen = combo->currentData().toString();
    const auto v = m_document->value(kPointer);
    nlohmann::ordered_json next = v && v->is_object() ? *v : nlohmann::ordered_json::object();
    if (chosen.isEmpty())
        next.erase(key);
    else
        next[key] = toStdString(chosen);
    m_document->setSection(kPointer, std::move(next), what);
}

} // namespace coh::ui

#include "ui/router_form.h"

#include "core/scenario/enum_names.h"
#include "core/scenario/scenario.h"
#include "ui/combo_choice.h"
#include "ui/field_problems.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLineEdit>
#include <QSignalBlocker>

namespace coh::ui {

namespace {

constexpr const char* kPointer = "/serving/router";
const QString kCacheAware = QStringLiteral("cache_aware");

} // namespace

RouterForm::RouterForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page)
    : QObject(page)
    , m_document(document)
    , m_policy(new QComboBox(page))
    , m_weight(new QLineEdit(page))
    , m_imbalance(new QLineEdit(page))
{
    const core::RouterSpec d;
    m_policy->setObjectName(QString::fromLatin1(kPointer));
    m_policy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_policy->setMinimumContentsLength(8);
    m_policy->addItem(tr("(default: %1)").arg(toQString(core::toString(d.policy))), QString());
    for (const auto& name : core::enumNames<core::RouterPolicy>())
        m_policy->addItem(toQString(name), toQString(name));
    m_policy->setToolTip(tr("cache_aware sends a request to the prefill instance holding most of its prefix, "
                            "weighed against load"));
    fields->watch(m_policy, kPointer);
    form->addRow(tr("Router"), m_policy);
    connect(m_policy, &QComboBox::activated, this, &RouterForm::setPolicy);

    const auto number = [&](QLineEdit* edit, const char* key, const QString& label, double def, const QString& tip) {
        edit->setObjectName(QStringLiteral("%1/%2").arg(QString::fromLatin1(kPointer), QString::fromLatin1(key)));
        edit->setPlaceholderText(QString::number(def));
        edit->setToolTip(tip);
        fields->watch(edit, edit->objectName().toStdString());
        form->addRow(label, edit);
        connect(edit, &QLineEdit::editingFinished, this, [this, key, edit] { setNumber(key, edit); });
    };
    number(m_weight, "overlap_weight", tr("Overlap weight"), d.overlapWeight,
           tr("cache_aware: cost per prompt token still to compute, against one per queued token"));
    number(m_imbalance, "max_imbalance", tr("Max imbalance"), d.maxImbalance,
           tr("cache_aware: above this multiple of the mean prefill load, the least-loaded instance takes the "
              "request"));
    refresh();
}

QString RouterForm::policy() const
{
    const auto v = m_document->value(kPointer);
    if (v && v->is_string())
        return toQString(v->get<std::string>());
    if (v && v->is_object() && v->contains("policy") && (*v)["policy"].is_string())
        return toQString((*v)["policy"].get<std::string>());
    return {};
}

void RouterForm::refresh()
{
    const QString current = policy();
    showChoice(m_policy, current);
    const auto v = m_document->value(kPointer);
    for (auto [edit, key] : {std::pair{m_weight, "overlap_weight"}, std::pair{m_imbalance, "max_imbalance"}}) {
        const QSignalBlocker blocker(edit);
        const bool has = v && v->is_object() && v->contains(key);
        edit->setText(has ? ScenarioFields::valueText((*v)[key]) : QString());
        edit->setEnabled(current == kCacheAware || has);
    }
}

void RouterForm::setPolicy()
{
    const QString chosen = m_policy->currentData().toString();
    const auto v = m_document->value(kPointer);
    const QString what = tr("Edit router");
    if (chosen.isEmpty()) {
        m_document->removeValue(kPointer, what);
        return;
    }
    // The weights belong to cache_aware alone: another policy takes the plain name.
    if (chosen == kCacheAware && v && v->is_object()) {
        nlohmann::ordered_json next = *v;
        next["policy"] = toStdString(chosen);
        m_document->setValue(kPointer, next, what);
        return;
    }
    m_document->setValue(kPointer, toStdString(chosen), what);
}

void RouterForm::setNumber(const char* key, QLineEdit* edit)
{
    const QString text = edit->text().trimmed();
    const auto v = m_document->value(kPointer);
    nlohmann::ordered_json next = v && v->is_object() ? *v : nlohmann::ordered_json::object();
    if (!next.contains("policy"))
        next["policy"] = toStdString(policy().isEmpty() ? kCacheAware : policy());
    if (text.isEmpty()) {
        if (!next.contains(key))
            return;
        next.erase(key);
    } else {
        bool ok = false;
        text.toDouble(&ok);
        if (!ok) {
            markField(edit, {tr("Enter a number such as 2")});
            return;
        }
        next[key] = ScenarioFields::parseValue(text);
    }
    markField(edit, {}); // a refusal shown before is over; validation marks what the stored value still gets wrong
    // Only the policy left: the plain name says the same.
    const nlohmann::ordered_json stored = next.size() == 1 ? next["policy"] : next;
    if (v == stored)
        return;
    m_document->setValue(kPointer, stored,
                         key == std::string_view("overlap_weight") ? tr("Edit overlap weight")
                                                                   : tr("Edit max imbalance"));
}

} // namespace coh::ui

#include "ui/shared_prefix_form.h"

#include "core/scenario/scenario.h"
#include "ui/field_edit.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QCheckBox>
#include <QFormLayout>
#include <QSignalBlocker>

namespace coh::ui {

namespace {

constexpr const char* kPointer = "/serving/shared_prefix";

} // namespace

SharedPrefixForm::SharedPrefixForm(ScenarioDocument* document, ScenarioFields* fields, QFormLayout* form, QWidget* page)
    : QObject(page)
    , m_document(document)
    , m_share(new QCheckBox(tr("Share across instances"), page))
    , m_capacity(fields->value("/serving/shared_prefix/capacity", tr("shared prefix idle capacity"),
                               tr("what HBM leaves"), page))
    , m_blockTokens(fields->value("/serving/shared_prefix/block_tokens", tr("shared prefix block tokens"),
                                  QString::number(core::SharedPrefixSpec{}.blockTokens), page))
{
    m_share->setObjectName(QString::fromLatin1(kPointer));
    m_share->setToolTip(tr("Each prefix block a trace names (Mooncake hash ids) is one coherent block of the decode "
                           "protocol held by many instances at once: a decoder that holds it reads it without a "
                           "transfer. Needs a decode protocol."));
    fields->watch(m_share, kPointer);
    form->addRow(tr("Shared prefix"), m_share);
    connect(m_share, &QCheckBox::clicked, this, &SharedPrefixForm::setShared);
    m_capacity->setToolTip(tr("KV bytes of prefix blocks no sequence uses any more that each decode instance keeps "
                              "(least recently used out first); \"0 B\" keeps none"));
    form->addRow(tr("Shared prefix idle capacity"), m_capacity);
    m_blockTokens->setToolTip(tr("Tokens per trace hash id; a multiple of the KV block tokens"));
    form->addRow(tr("Shared prefix block tokens"), m_blockTokens);
    refresh();
}

void SharedPrefixForm::refresh()
{
    const QSignalBlocker blocker(m_share);
    m_share->setChecked(m_document->value(kPointer).has_value());
}

void SharedPrefixForm::setShared(bool on)
{
    if (on)
        m_document->setValue(kPointer, nlohmann::ordered_json::object(), tr("Share prefix blocks"));
    else
        m_document->removeValue(kPointer, tr("Stop sharing prefix blocks"));
}

} // namespace coh::ui

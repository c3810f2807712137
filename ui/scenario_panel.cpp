#include "ui/scenario_panel.h"

#include "core/scenario/model_catalog.h"
#include "core/scenario/scenario.h"
#include "ui/coherence_form.h"
#include "ui/failures_form.h"
#include "ui/field_edit.h"
#include "ui/form_layout.h"
#include "ui/instances_editor.h"
#include "ui/kv_tiers_form.h"
#include "ui/qt_text.h"
#include "ui/replication_form.h"
#include "ui/router_form.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"
#include "ui/shared_prefix_form.h"
#include "ui/theme.h"
#include "ui/workload_form.h"

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>

namespace coh::ui {

namespace {

QGroupBox* section(const QString& title, QWidget* content, QWidget* parent)
{
    auto* box = new QGroupBox(title, parent);
    auto* layout = new QVBoxLayout(box);
    layout->addWidget(content);
    return box;
}

QString ms(core::SimTime t)
{
    return QStringLiteral("%1 ms").arg(double(t) * 1e-6);
}

} // namespace

ScenarioPanel::ScenarioPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_fields(new ScenarioFields(document, this))
{
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);
    layout->addWidget(section(tr("Scenario"), buildGeneral(), content));
    layout->addWidget(section(tr("Model"), buildModel(), content));
    m_workload = new WorkloadForm(document, content);
    layout->addWidget(section(tr("Workload"), m_workload, content));
    layout->addWidget(section(tr("Serving"), buildServing(), content));
    m_failures = new FailuresForm(document, m_fields, content);
    layout->addWidget(section(tr("Failures"), m_failures, content));
    m_coherence = new CoherenceForm(document, content);
    connect(m_coherence, &CoherenceForm::openInLab, this, &ScenarioPanel::openInLab);
    layout->addWidget(section(tr("Coherence"), m_coherence, content));
    layout->addWidget(section(tr("SLO, record and metrics"), buildLimits(), content));
    layout->addStretch(1);

    // Fields shrink and labels wrap above them down to kMinimumWidth; below it the dock cannot go, so nothing is
    // ever cut off at its right edge. Height scrolls.
    auto* scroll = m_scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("scenarioFormScroll"));
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll->setWidget(content);
    setMinimumWidth(kMinimumWidth);
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(0, 0, 0, 0);
    outer->addWidget(scroll);

    try {
        m_catalog = core::ModelCatalog::loadDefault();
    } catch (const std::exception& e) {
        m_catalogError = toQString(e.what());
    }
    // Topology edits (drags) only matter here for the node lists (home, replicas): refresh once they settle.
    m_topologyRefresh = new QTimer(this);
    m_topologyRefresh->setSingleShot(true);
    m_topologyRefresh->setInterval(150);
    connect(m_topologyRefresh, &QTimer::timeout, this, &ScenarioPanel::refresh);
    connect(document, &ScenarioDocument::changed, this, &ScenarioPanel::onChanged);
    // Problems are marked once edits settle (a macro, an undo), and again in the new palette's Error tone.
    m_validateTimer = new QTimer(this);
    m_validateTimer->setSingleShot(true);
    m_validateTimer->setInterval(0);
    connect(m_validateTimer, &QTimer::timeout, this, &ScenarioPanel::showProblems);
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, &ScenarioPanel::showProblems);
    refresh();
}

QSize ScenarioPanel::sizeHint() const
{
    // What a dock starts with (and comes back with when shown again): room for labels beside their fields.
    return {380, QWidget::sizeHint().height()};
}

bool ScenarioPanel::showField(const QString& pointer)
{
    // Fields are named by the JSON pointer they edit (ScenarioFields); "/workload/prompt/max" with the prompt's
    // max hidden leads to the prompt's distribution, "/serving/instances/1/nodes/0" to the instances table.
    for (QString at = pointer; !at.isEmpty(); at.truncate(at.lastIndexOf(QLatin1Char('/')))) {
        const auto fields = findChildren<QWidget*>(at);
        for (QWidget* field : fields) {
            if (!field->isVisibleTo(this) || !field->isEnabled())
                continue;
            m_scroll->ensureWidgetVisible(field);
            field->setFocus(Qt::OtherFocusReason);
            return true;
        }
    }
    return false;
}

void ScenarioPanel::showProblems()
{
    m_validateTimer->stop();
    const std::vector<core::InputProblem>& problems = m_document->validate().problems;
    m_fields->showProblems(problems);
    m_workload->showProblems(problems);
    m_coherence->showProblems(problems);
    m_instances->showProblems(problems);
    m_replication->showProblems(problems);
    m_kvTiers->showProblems(problems);
    m_failures->showProblems(problems);
}

QWidget* ScenarioPanel::buildGeneral()
{
    auto* page = new QWidget(this);
    auto* form = newFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    m_name = m_fields->text("/name", tr("scenario name"), false, page);
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Description"), m_fields->text("/description", tr("scenario description"), true, page));
    form->addRow(tr("Seed"), m_fields->value("/seed", tr("seed"), QString::number(core::Scenario{}.seed), page));
    return page;
}

QWidget* ScenarioPanel::buildModel()
{
    auto* page = new QWidget(this);
    auto* form = newFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    m_model = new QComboBox(page);
    m_model->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_model->setMinimumContentsLength(8);
    m_fields->watch(m_model, "/model");
    connect(m_model, &QComboBox::activated, this, &ScenarioPanel::setModel);
    form->addRow(tr("Model"), m_model);
    m_modelInfo = new QLabel(page);
    m_modelInfo->setWordWrap(true);
    form->addRow(m_modelInfo);
    return page;
}

QWidget* ScenarioPanel::buildServing()
{
    const core::ServingSpec d;
    auto* page = new QWidget(this);
    auto* form = newFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    // The label, and the field's name in undo texts ("Edit block tokens").
    auto value = [&](const char* pointer, const QString& label, const QString& what, const QString& def) {
        form->addRow(label, m_fields->value(pointer, what, def, page));
    };
    value("/serving/block_tokens", tr("Block tokens"), tr("block tokens"), QString::number(d.blockTokens));
    m_router = new RouterForm(m_document, m_fields, form, page);
    auto* affinity = m_fields->choice("/serving/decode_affinity", tr("decode affinity"),
                                      {QStringLiteral("router"), QStringLiteral("same_node")},
                                      toQString(core::toString(d.decodeAffinity)), page);
    affinity->setToolTip(tr("same_node: decode where the prefill ran when that node has a decode instance "
                            "(role both), so the KV is not moved"));
    form->addRow(tr("Decode affinity"), affinity);
    value("/serving/prefill/max_batch_size", tr("Prefill max batch size"), tr("prefill max batch size"),
          QString::number(d.prefillMaxBatchSize));
    value("/serving/prefill/max_batch_tokens", tr("Prefill max batch tokens"), tr("prefill max batch tokens"),
          QString::number(d.prefillMaxBatchTokens));
    value("/serving/decode/max_batch_size", tr("Decode max batch size"), tr("decode max batch size"),
          QString::number(d.decodeMaxBatchSize));
    value("/serving/iteration_overhead", tr("Iteration overhead"), tr("iteration overhead"), ms(d.iterationOverhead));
    value("/serving/flops_efficiency", tr("FLOP/s efficiency"), tr("FLOP/s efficiency"),
          QString::number(d.flopsEfficiency));
    value("/serving/bandwidth_efficiency", tr("Bandwidth efficiency"), tr("bandwidth efficiency"),
          QString::number(d.bandwidthEfficiency));
    value("/serving/kv_memory_fraction", tr("KV memory fraction"), tr("KV memory fraction"),
          QString::number(d.kvMemoryFraction));
    // The shared prefix pool: naming a node turns it on (docs/scenario-format.md#serving).
    auto* poolNode = m_fields->text("/serving/prefix_pool/node", tr("prefix pool node"), true, page);
    poolNode->setPlaceholderText(tr("none (a node id turns it on)"));
    poolNode->setToolTip(tr("A node whose memory holds a shared cache of prompt-prefix KV (Mooncake hash ids): "
                            "prefill loads cached leading blocks from it instead of computing them."));
    form->addRow(tr("Prefix pool node"), poolNode);
    form->addRow(tr("Prefix pool tier"), m_fields->choice("/serving/prefix_pool/tier", tr("prefix pool tier"),
                                                          {QStringLiteral("dram"), QStringLiteral("cxl"),
                                                           QStringLiteral("storage"), QStringLiteral("hbm")},
                                                          toQString(core::toString(d.prefixPool.tier)), page));
    value("/serving/prefix_pool/capacity", tr("Prefix pool capacity"), tr("prefix pool capacity"),
          tr("the whole tier"));
    value("/serving/prefix_pool/block_tokens", tr("Prefix block tokens"), tr("prefix block tokens"),
          QString::number(d.prefixPool.blockTokens));
    m_sharedPrefix = new SharedPrefixForm(m_document, m_fields, form, page);
    m_replication = new ReplicationForm(m_document, m_fields, form, page);
    m_kvTiers = new KvTiersForm(m_document, m_fields, form, page);
    // The table needs the panel's whole width: it sits below its label, not beside it.
    m_instances = new InstancesEditor(m_document, page);
    form->addRow(new QLabel(tr("Instances"), page));
    form->addRow(m_instances);
    return page;
}

QWidget* ScenarioPanel::buildLimits()
{
    auto* page = new QWidget(this);
    auto* form = newFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("TTFT SLO"), m_fields->value("/slo/ttft", tr("TTFT SLO"), ms(core::SloSpec{}.ttft), page));
    form->addRow(tr("TPOT SLO"), m_fields->value("/slo/tpot", tr("TPOT SLO"), ms(core::SloSpec{}.tpot), page));
    auto* maxMessages = m_fields->value("/record/max_messages", tr("recorded messages"),
                                        QString::number(core::RecordSpec{}.maxMessages), page);
    maxMessages->setToolTip(tr("Messages kept for replay; beyond this the record is a uniform sample (0 = none)"));
    form->addRow(tr("Recorded messages"), maxMessages);
    auto* maxIterations = m_fields->value("/record/max_iterations", tr("recorded decode iterations"),
                                          QString::number(core::RecordSpec{}.maxIterations), page);
    maxIterations->setToolTip(
        tr("Decode iterations kept for traces and reports; beyond this the record is a uniform sample (0 = none)"));
    form->addRow(tr("Recorded decode iterations"), maxIterations);
    form->addRow(tr("Link series interval"), m_fields->value("/metrics/link_interval", tr("link series interval"),
                                                             ms(core::MetricsSpec{}.linkInterval), page));
    return page;
}

void ScenarioPanel::setModel()
{
    const QString name = m_model->currentData().toString();
    if (name.isEmpty())
        return; // the inline model entry: nothing to change
    const auto current = m_document->value("/model");
    if (current && current->is_string() && toQString(current->get<std::string>()) == name)
        return;
    m_document->setValue("/model", toStdString(name), tr("Edit model"));
}

void ScenarioPanel::updateModelInfo()
{
    const auto v = m_document->value("/model");
    QString text = m_catalogError;
    const core::ModelSpec* spec = m_catalog && v && v->is_string() ? m_catalog->find(v->get<std::string>()) : nullptr;
    if (spec)
        text = tr("%1 layers, %2 of %3 heads for KV, head dim %4, %5 B params; KV %6 bytes per token")
                   .arg(spec->layers)
                   .arg(spec->kvHeads)
                   .arg(spec->heads)
                   .arg(spec->headDim)
                   .arg(spec->params * 1e-9, 0, 'f', 2)
                   .arg(spec->kvBytesPerToken());
    else if (v && v->is_object())
        text = tr("Inline model (edit its keys in the scenario file).");
    m_modelInfo->setText(text);
}

void ScenarioPanel::onChanged(const QString& pointer)
{
    if (pointer.startsWith(QLatin1String("/topology")))
        m_topologyRefresh->start();
    else
        refresh();
    m_validateTimer->start();
}

void ScenarioPanel::refresh()
{
    m_topologyRefresh->stop();
    m_fields->refresh();
    m_router->refresh();
    m_replication->refresh();
    m_sharedPrefix->refresh();
    m_kvTiers->refresh();
    m_workload->refresh();
    m_coherence->refresh();
    m_instances->refresh();
    m_failures->refresh();

    const QSignalBlocker blocker(m_model);
    m_model->clear();
    const auto v = m_document->value("/model");
    if (v && v->is_object())
        m_model->addItem(tr("inline: %1").arg(toQString(v->value("name", std::string()))), QString());
    if (m_catalog)
        for (const std::string& name : m_catalog->names())
            m_model->addItem(toQString(name), toQString(name));
    if (v && v->is_string()) {
        int index = m_model->findData(toQString(v->get<std::string>()), Qt::UserRole, Qt::MatchFixedString);
        if (index < 0) {
            m_model->addItem(toQString(v->get<std::string>()), toQString(v->get<std::string>()));
            index = m_model->count() - 1;
        }
        m_model->setCurrentIndex(index);
    } else {
        m_model->setCurrentIndex(v ? 0 : -1);
    }
    updateModelInfo();
}

} // namespace coh::ui

#include "ui/workload_form.h"

#include "core/scenario/datasets_dir.h"
#include "ui/field_edit.h"
#include "ui/form_layout.h"
#include "ui/qt_text.h"
#include "ui/scenario_document.h"
#include "ui/scenario_fields.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace coh::ui {

namespace {

const QStringList kLengthKeys{QStringLiteral("value"),  QStringLiteral("min"),   QStringLiteral("max"),
                              QStringLiteral("median"), QStringLiteral("sigma"), QStringLiteral("exponent")};

// The keys each length distribution reads (docs/scenario-format.md, Workload); others are refused by core.
QStringList keysOf(const QString& dist)
{
    if (dist == QLatin1String("fixed"))
        return {QStringLiteral("value")};
    if (dist == QLatin1String("uniform"))
        return {QStringLiteral("min"), QStringLiteral("max")};
    if (dist == QLatin1String("lognormal"))
        return {QStringLiteral("median"), QStringLiteral("sigma"), QStringLiteral("min"), QStringLiteral("max")};
    if (dist == QLatin1String("zipf"))
        return {QStringLiteral("min"), QStringLiteral("max"), QStringLiteral("exponent")};
    return {};
}

} // namespace

WorkloadForm::WorkloadForm(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_fields(new ScenarioFields(document, this))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* top = newFormLayout();
    m_type = new QComboBox(this);
    m_fields->watch(m_type, "/workload");
    m_fields->watch(m_type, "/workload/type");
    m_type->addItem(tr("Synthetic"), QStringLiteral("synthetic"));
    m_type->addItem(tr("Trace replay"), QStringLiteral("trace"));
    connect(m_type, &QComboBox::activated, this, [this] { setType(m_type->currentData().toString()); });
    top->addRow(tr("Type"), m_type);
    layout->addLayout(top);
    m_synthetic = buildSynthetic();
    m_trace = buildTrace();
    layout->addWidget(m_synthetic);
    layout->addWidget(m_trace);
}

QWidget* WorkloadForm::buildSynthetic()
{
    auto* page = new QWidget(this);
    auto* form = newFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Requests"),
                 m_fields->value("/workload/requests", tr("workload requests"), QStringLiteral("100"), page));
    m_process = m_fields->choice("/workload/arrival/process", tr("workload arrival process"),
                                 {QStringLiteral("poisson"), QStringLiteral("gamma"), QStringLiteral("constant")},
                                 QStringLiteral("poisson"), page);
    connect(m_process, &QComboBox::activated, this, [this] {
        // cv is only accepted with gamma: drop it when leaving gamma so the scenario stays valid.
        if (m_process->currentData().toString() != QLatin1String("gamma") && m_document->value("/workload/arrival/cv"))
            m_document->removeValue("/workload/arrival/cv", tr("Clear workload arrival CV"));
    });
    m_fields->watch(m_process, "/workload/arrival");
    form->addRow(tr("Arrival process"), m_process);
    auto* rate = m_fields->value("/workload/arrival/rate", tr("workload rate"), QString(), page);
    rate->setToolTip(tr("Requests per second"));
    form->addRow(tr("Rate (req/s)"), rate);
    m_cv = m_fields->value("/workload/arrival/cv", tr("workload arrival CV"), QStringLiteral("1"), page);
    m_cv->setToolTip(tr("Coefficient of variation of the gaps (gamma only); above 1 is bursty"));
    form->addRow(tr("CV (gamma)"), m_cv);
    form->addRow(buildLength("prompt", tr("Prompt length (tokens)"), &m_promptDist, &m_promptFields, &m_promptForm));
    form->addRow(buildLength("output", tr("Output length (tokens)"), &m_outputDist, &m_outputFields, &m_outputForm));
    return page;
}

QWidget* WorkloadForm::buildLength(const std::string& key, const QString& title, QComboBox** distOut,
                                   QList<QLineEdit*>* fieldsOut, QFormLayout** formOut)
{
    auto* box = new QGroupBox(title, this);
    auto* form = newFormLayout(box);
    auto* dist = new QComboBox(box);
    m_fields->watch(dist, "/workload/" + key);
    m_fields->watch(dist, "/workload/" + key + "/dist");
    for (const QString& d :
         {QStringLiteral("fixed"), QStringLiteral("uniform"), QStringLiteral("lognormal"), QStringLiteral("zipf")})
        dist->addItem(d, d);
    connect(dist, &QComboBox::activated, this,
            [this, key, dist] { setDistribution(key, dist->currentData().toString()); });
    form->addRow(tr("Distribution"), dist);
    const std::string base = "/workload/" + key + "/";
    for (const QString& k : kLengthKeys) {
        auto* edit = m_fields->value(base + toStdString(k), tr("%1 length %2").arg(toQString(key), k), QString(), box);
        form->addRow(k, edit);
        fieldsOut->append(edit);
    }
    *distOut = dist;
    *formOut = form;
    return box;
}

QWidget* WorkloadForm::buildTrace()
{
    auto* page = new QWidget(this);
    auto* form = newFormLayout(page);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Format"),
                 m_fields->choice("/workload/format", tr("trace format"),
                                  {QStringLiteral("azure"), QStringLiteral("mooncake")}, QString(), page));
    auto* row = new QHBoxLayout;
    m_tracePath = m_fields->text("/workload/path", tr("trace file"), false, page);
    m_tracePath->setToolTip(tr("Relative paths are tried against the scenario's folder, then the datasets folder"));
    auto* browse = new QPushButton(tr("Browse…"), page);
    connect(browse, &QPushButton::clicked, this, &WorkloadForm::browseTrace);
    row->addWidget(m_tracePath, 1);
    row->addWidget(browse);
    form->addRow(tr("File"), row);
    form->addRow(tr("Time scale"),
                 m_fields->value("/workload/time_scale", tr("trace time scale"), QStringLiteral("1"), page));
    form->addRow(tr("Max requests"),
                 m_fields->value("/workload/max_requests", tr("trace max requests"), tr("0 (all)"), page));
    return page;
}

void WorkloadForm::browseTrace()
{
    const QString datasets = toQString(core::datasetsDir());
    const QString path = QFileDialog::getOpenFileName(this, tr("Trace file"), datasets + QStringLiteral("/traces"),
                                                      tr("Traces (*.csv *.jsonl);;All files (*)"));
    if (path.isEmpty())
        return;
    // Inside the datasets folder keep the path relative, so the scenario works on another checkout.
    const QString prefix = QFileInfo(datasets).absoluteFilePath() + QLatin1Char('/');
    const QString stored = path.startsWith(prefix) ? path.mid(prefix.size()) : path;
    m_document->setValue("/workload/path", toStdString(stored), tr("Edit trace file"));
}

void WorkloadForm::setType(const QString& type)
{
    const auto current = m_document->value("/workload");
    const QString currentType =
        current && current->is_object() ? toQString(current->value("type", std::string())) : QString();
    if (type == currentType)
        return;
    nlohmann::ordered_json next;
    if (m_otherKind.is_object() && toQString(m_otherKind.value("type", std::string())) == type)
        next = m_otherKind;
    else
        next = {{"type", toStdString(type)}}; // Problems then lists what this kind needs, with examples
    if (current)
        m_otherKind = *current;
    m_document->setValue("/workload", next, tr("Edit workload type"));
}

void WorkloadForm::setDistribution(const std::string& key, const QString& dist)
{
    const std::string pointer = "/workload/" + key;
    nlohmann::ordered_json next = {{"dist", toStdString(dist)}};
    // Keep the values the new distribution also uses; drop the rest (core refuses unused keys).
    if (const auto old = m_document->value(pointer); old && old->is_object())
        for (const QString& k : keysOf(dist))
            if (old->contains(toStdString(k)))
                next[toStdString(k)] = (*old)[toStdString(k)];
    m_document->setValue(pointer, next, tr("Edit %1 length distribution").arg(toQString(key)));
}

void WorkloadForm::updateEnabled()
{
    m_cv->setEnabled(m_process->currentData().toString() == QLatin1String("gamma"));
    // Only the keys the chosen distribution reads are shown (core refuses the others), unless the file has one.
    auto show = [](QComboBox* dist, QFormLayout* form, const QList<QLineEdit*>& fields) {
        const QStringList used = keysOf(dist->currentData().toString());
        for (int i = 0; i < fields.size(); ++i)
            form->setRowVisible(fields[i], used.contains(kLengthKeys[i]) || !fields[i]->text().isEmpty());
    };
    show(m_promptDist, m_promptForm, m_promptFields);
    show(m_outputDist, m_outputForm, m_outputFields);
}

void WorkloadForm::refresh()
{
    m_fields->refresh();
    const auto type = m_document->value("/workload/type");
    const bool trace = type && type->is_string() && type->get<std::string>() == "trace";
    {
        const QSignalBlocker blocker(m_type);
        m_type->setCurrentIndex(trace ? 1 : 0);
    }
    m_synthetic->setVisible(!trace);
    m_trace->setVisible(trace);
    for (auto [combo, key] :
         {std::pair{m_promptDist, "/workload/prompt/dist"}, std::pair{m_outputDist, "/workload/output/dist"}}) {
        const QSignalBlocker blocker(combo);
        const auto v = m_document->value(key);
        const int index = v && v->is_string() ? combo->findData(toQString(v->get<std::string>())) : -1;
        combo->setCurrentIndex(index);
    }
    updateEnabled();
}

void WorkloadForm::showProblems(const std::vector<core::InputProblem>& problems)
{
    m_fields->showProblems(problems);
}

} // namespace coh::ui

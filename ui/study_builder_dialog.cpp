#include "ui/study_builder_dialog.h"

#include "core/tune/metric_catalog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>
#include <functional>

namespace coh::ui {

namespace {

enum ParameterColumn { Field, Kind, Values, Min, Max, Step, ParameterColumns };
enum ConstraintColumn { CMetric, CMin, CMax };

QComboBox* metricChoice(const std::string& current, QWidget* parent)
{
    auto* box = new QComboBox(parent);
    for (const auto& m : core::metricCatalog()) {
        box->addItem(QString::fromUtf8(m.name), QString::fromUtf8(m.name));
        box->setItemData(box->count() - 1, QString::fromUtf8(m.meaning), Qt::ToolTipRole);
    }
    box->setCurrentIndex(std::max(0, box->findData(QString::fromStdString(current))));
    return box;
}

QString numberText(double v)
{
    return QString::number(v, 'g', 6);
}

std::optional<double> numberOf(const QTableWidgetItem* item)
{
    if (!item)
        return std::nullopt;
    bool ok = false;
    const double v = item->text().trimmed().toDouble(&ok);
    return ok && std::isfinite(v) ? std::optional(v) : std::nullopt;
}

QTableWidget* newTable(const QStringList& header, QWidget* parent)
{
    auto* table = new QTableWidget(0, static_cast<int>(header.size()), parent);
    table->setHorizontalHeaderLabels(header);
    table->verticalHeader()->hide();
    table->setSelectionBehavior(QAbstractItemView::SelectRows);
    // The first column (a field or a metric) takes the room; the rest fit their contents.
    table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table->horizontalHeader()->setMinimumSectionSize(64); // room to type a bound
    table->setMinimumHeight(4 * table->verticalHeader()->defaultSectionSize());
    return table;
}

// Add and Remove under a table.
QHBoxLayout* rowButtons(QTableWidget* table, const std::function<void()>& add, QWidget* parent)
{
    auto* addButton = new QPushButton(QObject::tr("Add"), parent);
    auto* removeButton = new QPushButton(QObject::tr("Remove"), parent);
    QObject::connect(addButton, &QPushButton::clicked, parent, add);
    QObject::connect(removeButton, &QPushButton::clicked, parent, [table] {
        const int row = table->currentRow();
        if (row >= 0)
            table->removeRow(row);
    });
    auto* row = new QHBoxLayout;
    row->addWidget(addButton);
    row->addWidget(removeButton);
    row->addStretch(1);
    return row;
}

} // namespace

StudyBuilderDialog::StudyBuilderDialog(QWidget* parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("studyBuilder"));
    setWindowTitle(tr("New Study"));
    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("studyName"));

    auto* fieldsBox = new QGroupBox(tr("Fields to vary"), this);
    auto* hint = new QLabel(tr("Right-click a field of the scenario and choose <i>Vary in a Study…</i>, or add a row "
                               "and type its JSON pointer (docs/scenario-format.md). <i>values</i>: a comma list; "
                               "<i>integer</i>: min, max, step; <i>real</i> and <i>log_real</i>: min, max and the "
                               "levels a grid takes."),
                            fieldsBox);
    hint->setWordWrap(true);
    m_parameters =
        newTable({tr("field"), tr("kind"), tr("values"), tr("min"), tr("max"), tr("step / levels")}, fieldsBox);
    m_parameters->setObjectName(QStringLiteral("studyParameters"));
    m_parameters->horizontalHeader()->setSectionResizeMode(Values, QHeaderView::Stretch);
    auto* fieldsLayout = new QVBoxLayout(fieldsBox);
    fieldsLayout->addWidget(hint);
    fieldsLayout->addWidget(m_parameters, 1);
    fieldsLayout->addLayout(rowButtons(
        m_parameters, [this] { addParameterRow({}); }, this));

    auto* objectivesBox = new QGroupBox(tr("Objectives"), this);
    m_objectives = newTable({tr("metric"), tr("direction")}, objectivesBox);
    m_objectives->setObjectName(QStringLiteral("studyObjectives"));
    auto* objectivesLayout = new QVBoxLayout(objectivesBox);
    objectivesLayout->addWidget(m_objectives, 1);
    objectivesLayout->addLayout(rowButtons(
        m_objectives,
        [this] {
            addObjectiveRow({"coherence_bytes_per_token", false});
        },
        this));

    auto* constraintsBox = new QGroupBox(tr("Constraints (a point is feasible within them)"), this);
    m_constraints = newTable({tr("metric"), tr("min"), tr("max")}, constraintsBox);
    m_constraints->setObjectName(QStringLiteral("studyConstraints"));
    auto* constraintsLayout = new QVBoxLayout(constraintsBox);
    constraintsLayout->addWidget(m_constraints, 1);
    constraintsLayout->addLayout(rowButtons(
        m_constraints,
        [this] {
            addConstraintRow({"slo_attainment", 0.9, std::nullopt});
        },
        this));
    auto* goals = new QHBoxLayout;
    goals->addWidget(objectivesBox, 1);
    goals->addWidget(constraintsBox, 1);

    auto* strategyBox = new QGroupBox(tr("Strategy and budget"), this);
    m_strategy = new QComboBox(strategyBox);
    m_strategy->setObjectName(QStringLiteral("studyStrategy"));
    const std::pair<const char*, QString> strategies[] = {
        {"grid", tr("grid: every combination")},         {"sobol", tr("sobol: a low-discrepancy sample")},
        {"lhs", tr("lhs: a Latin hypercube")},           {"random", tr("random")},
        {"nsga2", tr("nsga2: evolve toward the front")},
    };
    for (const auto& [kind, label] : strategies)
        m_strategy->addItem(label, QString::fromLatin1(kind));
    const auto spin = [strategyBox](int lo, int hi, const char* name) {
        auto* box = new QSpinBox(strategyBox);
        box->setRange(lo, hi);
        box->setObjectName(QString::fromLatin1(name));
        return box;
    };
    m_points = spin(1, 100000, "studyPoints");
    m_seed = spin(0, 1 << 30, "studySeed");
    m_population = spin(4, 4096, "studyPopulation");
    m_population->setSingleStep(4);
    m_generations = spin(1, 1000, "studyGenerations");
    m_screen = spin(0, 1000000, "studyScreen");
    m_screen->setSpecialValueText(tr("off"));
    m_screen->setToolTip(tr("Successive halving: every point first runs this many requests, the best third three times "
                            "as many, and so on to the full workload"));
    auto* strategyForm = new QFormLayout;
    strategyForm->addRow(tr("Strategy"), m_strategy);
    auto* budget = new QHBoxLayout;
    budget->addWidget(new QLabel(tr("points"), strategyBox));
    budget->addWidget(m_points);
    budget->addWidget(new QLabel(tr("population"), strategyBox));
    budget->addWidget(m_population);
    budget->addWidget(new QLabel(tr("generations"), strategyBox));
    budget->addWidget(m_generations);
    budget->addWidget(new QLabel(tr("seed"), strategyBox));
    budget->addWidget(m_seed);
    budget->addStretch(1);
    strategyForm->addRow(tr("Budget"), budget);
    auto* screen = new QHBoxLayout;
    screen->addWidget(m_screen);
    screen->addWidget(
        new QLabel(tr("requests first (successive halving; off: every point runs the whole workload)"), strategyBox));
    screen->addStretch(1);
    strategyForm->addRow(tr("Screen with"), screen);
    m_summary = new QLabel(strategyBox);
    m_summary->setObjectName(QStringLiteral("studySummary"));
    m_summary->setWordWrap(true);
    strategyForm->addRow(m_summary);
    strategyBox->setLayout(strategyForm);

    m_problems = new QLabel(this);
    m_problems->setObjectName(QStringLiteral("studyProblems"));
    m_problems->setWordWrap(true);
    m_problems->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_problems->setStyleSheet(QStringLiteral("color: #c62828"));
    m_problems->hide();

    auto* buttons = new QDialogButtonBox(this);
    m_run = buttons->addButton(tr("Run Study"), QDialogButtonBox::AcceptRole);
    m_run->setObjectName(QStringLiteral("studyRun"));
    auto* save = buttons->addButton(tr("Save Study…"), QDialogButtonBox::ActionRole);
    buttons->addButton(QDialogButtonBox::Close);
    connect(m_run, &QPushButton::clicked, this, &StudyBuilderDialog::runRequested);
    connect(save, &QPushButton::clicked, this, &StudyBuilderDialog::saveRequested);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* nameRow = new QFormLayout;
    nameRow->addRow(tr("Name"), m_name);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(nameRow);
    layout->addWidget(fieldsBox, 1);
    layout->addLayout(goals, 1);
    layout->addWidget(strategyBox);
    layout->addWidget(m_problems);
    layout->addWidget(buttons);

    connect(m_strategy, &QComboBox::currentIndexChanged, this, &StudyBuilderDialog::updateSummary);
    connect(m_points, &QSpinBox::valueChanged, this, &StudyBuilderDialog::updateSummary);
    connect(m_population, &QSpinBox::valueChanged, this, &StudyBuilderDialog::updateSummary);
    connect(m_generations, &QSpinBox::valueChanged, this, &StudyBuilderDialog::updateSummary);
    connect(m_parameters, &QTableWidget::itemChanged, this, &StudyBuilderDialog::updateSummary);
    setDraft(StudyDraft::withDefaults());
    resize(860, 620);
}

void StudyBuilderDialog::addParameterRow(const DraftParameter& p)
{
    const QSignalBlocker blocker(m_parameters);
    const int row = m_parameters->rowCount();
    m_parameters->insertRow(row);
    m_parameters->setItem(row, Field, new QTableWidgetItem(QString::fromStdString(p.pointer)));
    auto* kind = new QComboBox(m_parameters);
    for (auto k : {DraftParameter::Kind::Values, DraftParameter::Kind::Integer, DraftParameter::Kind::Real,
                   DraftParameter::Kind::LogReal})
        kind->addItem(QString::fromLatin1(toString(k)), QString::fromLatin1(toString(k)));
    kind->setCurrentIndex(kind->findData(QString::fromLatin1(toString(p.kind))));
    connect(kind, &QComboBox::currentIndexChanged, this, &StudyBuilderDialog::updateSummary);
    m_parameters->setCellWidget(row, Kind, kind);
    const bool range = p.kind != DraftParameter::Kind::Values;
    m_parameters->setItem(row, Values, new QTableWidgetItem(range ? QString() : p.values));
    m_parameters->setItem(row, Min, new QTableWidgetItem(range ? numberText(p.min) : QString()));
    m_parameters->setItem(row, Max, new QTableWidgetItem(range ? numberText(p.max) : QString()));
    const QString step = p.kind == DraftParameter::Kind::Integer ? QString::number(p.step)
                         : range                                 ? QString::number(p.levels)
                                                                 : QString();
    m_parameters->setItem(row, Step, new QTableWidgetItem(step));
    m_parameters->setCurrentCell(row, Field);
}

void StudyBuilderDialog::addObjectiveRow(const DraftObjective& o)
{
    const int row = m_objectives->rowCount();
    m_objectives->insertRow(row);
    m_objectives->setCellWidget(row, 0, metricChoice(o.metric, m_objectives));
    auto* direction = new QComboBox(m_objectives);
    direction->addItem(tr("minimize"), false);
    direction->addItem(tr("maximize"), true);
    direction->setCurrentIndex(o.maximize ? 1 : 0);
    m_objectives->setCellWidget(row, 1, direction);
}

void StudyBuilderDialog::addConstraintRow(const DraftConstraint& c)
{
    const int row = m_constraints->rowCount();
    m_constraints->insertRow(row);
    m_constraints->setCellWidget(row, CMetric, metricChoice(c.metric, m_constraints));
    m_constraints->setItem(row, CMin, new QTableWidgetItem(c.min ? numberText(*c.min) : QString()));
    m_constraints->setItem(row, CMax, new QTableWidgetItem(c.max ? numberText(*c.max) : QString()));
}

void StudyBuilderDialog::setDraft(const StudyDraft& draft)
{
    m_name->setText(draft.name);
    m_parameters->setRowCount(0);
    for (const DraftParameter& p : draft.parameters)
        addParameterRow(p);
    m_objectives->setRowCount(0);
    for (const DraftObjective& o : draft.objectives)
        addObjectiveRow(o);
    m_constraints->setRowCount(0);
    for (const DraftConstraint& c : draft.constraints)
        addConstraintRow(c);
    m_strategy->setCurrentIndex(std::max(0, m_strategy->findData(draft.strategy)));
    m_points->setValue(static_cast<int>(draft.points));
    m_seed->setValue(static_cast<int>(draft.seed));
    m_population->setValue(static_cast<int>(draft.population));
    m_generations->setValue(static_cast<int>(draft.generations));
    m_screen->setValue(static_cast<int>(draft.halvingMinRequests));
    updateSummary();
}

StudyDraft StudyBuilderDialog::draft() const
{
    StudyDraft d;
    d.name = m_name->text().trimmed();
    for (int row = 0; row < m_parameters->rowCount(); ++row) {
        DraftParameter p;
        const auto text = [&](int column) {
            const QTableWidgetItem* item = m_parameters->item(row, column);
            return item ? item->text().trimmed() : QString();
        };
        p.pointer = text(Field).toStdString();
        if (const auto* kind = qobject_cast<const QComboBox*>(m_parameters->cellWidget(row, Kind)))
            p.kind = draftKindFromString(kind->currentData().toString()).value_or(DraftParameter::Kind::Values);
        p.values = text(Values);
        p.min = numberOf(m_parameters->item(row, Min)).value_or(0);
        p.max = numberOf(m_parameters->item(row, Max)).value_or(0);
        const double step = numberOf(m_parameters->item(row, Step)).value_or(0);
        if (p.kind == DraftParameter::Kind::Integer)
            p.step = static_cast<std::int64_t>(std::llround(step > 0 ? step : 1));
        else
            p.levels = static_cast<std::uint32_t>(std::llround(step >= 1 ? step : 5));
        d.parameters.push_back(std::move(p));
    }
    for (int row = 0; row < m_objectives->rowCount(); ++row) {
        const auto* metric = qobject_cast<const QComboBox*>(m_objectives->cellWidget(row, 0));
        const auto* direction = qobject_cast<const QComboBox*>(m_objectives->cellWidget(row, 1));
        if (metric && direction)
            d.objectives.push_back({metric->currentData().toString().toStdString(), direction->currentData().toBool()});
    }
    for (int row = 0; row < m_constraints->rowCount(); ++row) {
        const auto* metric = qobject_cast<const QComboBox*>(m_constraints->cellWidget(row, CMetric));
        if (metric)
            d.constraints.push_back({metric->currentData().toString().toStdString(),
                                     numberOf(m_constraints->item(row, CMin)),
                                     numberOf(m_constraints->item(row, CMax))});
    }
    d.strategy = m_strategy->currentData().toString();
    d.points = static_cast<std::uint32_t>(m_points->value());
    d.seed = static_cast<std::uint64_t>(m_seed->value());
    d.population = static_cast<std::uint32_t>(m_population->value());
    d.generations = static_cast<std::uint32_t>(m_generations->value());
    d.halvingMinRequests = static_cast<std::uint32_t>(m_screen->value());
    return d;
}

void StudyBuilderDialog::showProblems(const QString& text)
{
    m_problems->setText(text);
    m_problems->setVisible(!text.isEmpty());
}

void StudyBuilderDialog::updateSummary()
{
    const StudyDraft d = draft();
    const QString kind = d.strategy;
    m_points->setEnabled(kind == QLatin1String("random") || kind == QLatin1String("lhs") ||
                         kind == QLatin1String("sobol"));
    m_population->setEnabled(kind == QLatin1String("nsga2"));
    m_generations->setEnabled(kind == QLatin1String("nsga2"));
    m_seed->setEnabled(kind != QLatin1String("grid"));
    m_screen->setEnabled(kind != QLatin1String("nsga2"));
    QString runs;
    if (d.parameters.empty())
        runs = tr("No field to vary yet.");
    else if (kind == QLatin1String("grid"))
        runs = tr("%1 points: every combination of the fields' grid values.").arg(d.gridSize());
    else if (kind == QLatin1String("nsga2"))
        runs = tr("About %1 points: a population of %2 over %3 generations after the first.")
                   .arg(d.population * (d.generations + 1))
                   .arg(d.population)
                   .arg(d.generations);
    else
        runs = tr("%1 points sampled from the fields' ranges.").arg(d.points);
    m_summary->setText(runs + QLatin1Char(' ') +
                       tr("Each point is a run, stored and never run twice; a study run again resumes."));
}

} // namespace coh::ui

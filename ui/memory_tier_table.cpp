#include "ui/memory_tier_table.h"

#include "ui/field_edit.h"
#include "ui/field_problems.h"
#include "ui/scenario_document.h"
#include "ui/topology_defaults.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace coh::ui {

using nlohmann::ordered_json;

namespace {

const char* const kColumnKeys[] = {"tier", "capacity", "bandwidth"};

QString tierText(const ordered_json& entry)
{
    const auto it = entry.is_object() ? entry.find("tier") : entry.end();
    return entry.is_object() && it != entry.end() && it->is_string() ? toQString(it->get<std::string>()) : QString();
}

} // namespace

MemoryTierTable::MemoryTierTable(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent)
    , m_document(document)
    , m_table(new QTableWidget(0, 3, this))
    , m_add(new QPushButton(tr("Add tier"), this))
    , m_remove(new QPushButton(tr("Remove tier"), this))
{
    m_table->setObjectName(QStringLiteral("memoryTiers"));
    m_table->setHorizontalHeaderLabels({tr("Tier"), tr("Capacity"), tr("Bandwidth")});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    // As tall as its rows (one to four tiers), not a box of empty space in a short window.
    m_table->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    m_table->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Maximum);
    m_table->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_add->setObjectName(QStringLiteral("addTier"));
    m_remove->setObjectName(QStringLiteral("removeTier"));

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
    layout->addLayout(buttons);

    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers); // the cells' own widgets edit
    connect(m_add, &QPushButton::clicked, this, &MemoryTierTable::addTier);
    connect(m_remove, &QPushButton::clicked, this, &MemoryTierTable::removeTier);
}

std::string MemoryTierTable::tierPointer(int row) const
{
    return m_nodePointer + "/memory/" + std::to_string(row);
}

void MemoryTierTable::setNodePointer(const std::string& pointer)
{
    m_nodePointer = pointer;
    refresh();
}

void MemoryTierTable::refresh()
{
    m_refreshing = true;
    const std::optional<ordered_json> memory =
        m_nodePointer.empty() ? std::nullopt : m_document->value(m_nodePointer + "/memory");
    const int rows = memory && memory->is_array() ? static_cast<int>(memory->size()) : 0;
    m_table->setRowCount(rows);
    for (int row = 0; row < rows; ++row) {
        const ordered_json& entry = (*memory)[static_cast<std::size_t>(row)];
        auto* combo = qobject_cast<QComboBox*>(m_table->cellWidget(row, 0));
        if (!combo) {
            combo = new QComboBox;
            combo->addItems(tierNames());
            // Look the row up when the signal fires: rows shift when a tier above is removed.
            connect(combo, &QComboBox::currentTextChanged, this, [this, combo](const QString& text) {
                for (int r = 0; !m_refreshing && r < m_table->rowCount(); ++r)
                    if (m_table->cellWidget(r, 0) == combo)
                        m_document->setValue(tierPointer(r) + "/tier", toStdString(text), tr("Edit memory tier"));
            });
            m_table->setCellWidget(row, 0, combo);
        }
        const QString tier = tierText(entry);
        if (combo->findText(tier) < 0 && !tier.isEmpty())
            combo->addItem(tier); // an unknown tier stays visible (and red) until fixed
        combo->setCurrentText(tier);
        for (int column = 1; column < 3; ++column) {
            auto* edit = qobject_cast<FieldEdit*>(m_table->cellWidget(row, column));
            if (!edit) {
                edit = new FieldEdit(m_document, FieldEdit::Kind::Value,
                                     column == 1 ? tr("memory tier capacity") : tr("memory tier bandwidth"));
                edit->setObjectName(QStringLiteral("tier%1").arg(QLatin1String(kColumnKeys[column])));
                edit->setFrame(false);
                m_table->setCellWidget(row, column, edit);
            }
            edit->setPointer(tierPointer(row) + "/" + kColumnKeys[column]);
            edit->refresh();
        }
    }
    m_remove->setEnabled(rows > 0);
    m_add->setEnabled(!m_nodePointer.empty());
    m_refreshing = false;
}

void MemoryTierTable::addTier()
{
    const std::optional<ordered_json> memory = m_document->value(m_nodePointer + "/memory");
    // Offer the first tier the node does not have yet (a tier listed twice is an error).
    QStringList used;
    if (memory && memory->is_array())
        for (const ordered_json& entry : *memory)
            used << tierText(entry);
    QString tier = tierNames().constFirst();
    for (const QString& name : tierNames())
        if (!used.contains(name)) {
            tier = name;
            break;
        }
    const std::size_t size = memory && memory->is_array() ? memory->size() : 0;
    m_document->setValue(m_nodePointer + "/memory/" + std::to_string(size), defaultTier(tier),
                         tr("Add %1 tier").arg(tier));
}

void MemoryTierTable::removeTier()
{
    int row = m_table->currentRow();
    if (row < 0)
        row = m_table->rowCount() - 1;
    if (row >= 0)
        m_document->removeValue(tierPointer(row), tr("Remove memory tier"));
}

void MemoryTierTable::showProblems(const std::vector<core::InputProblem>& problems)
{
    for (int row = 0; row < m_table->rowCount(); ++row) {
        if (QWidget* combo = m_table->cellWidget(row, 0))
            markField(combo, problemsAt(problems, tierPointer(row) + "/tier"));
        for (int column = 1; column < 3; ++column)
            if (auto* edit = qobject_cast<FieldEdit*>(m_table->cellWidget(row, column)))
                edit->showProblems(problemsAt(problems, edit->pointer()));
    }
    markField(m_table, problemsAt(problems, m_nodePointer + "/memory"));
}

} // namespace coh::ui

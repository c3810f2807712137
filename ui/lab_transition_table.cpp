#include "ui/lab_transition_table.h"

#include "core/coherence/table_markdown.h"
#include "ui/lab_model.h"
#include "ui/qt_text.h"
#include "ui/theme.h"

#include <QApplication>
#include <QHeaderView>
#include <QTableWidget>

namespace coh::ui {

namespace co = core::coherence;

namespace {

QTableWidget* makeTable(QWidget* parent)
{
    auto* t = new QTableWidget(parent);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::NoSelection);
    t->setFocusPolicy(Qt::NoFocus); // Left/Right belong to the step toolbar
    t->setWordWrap(false);
    return t;
}

} // namespace

LabTransitionTable::LabTransitionTable(LabModel* lab, QWidget* parent)
    : QTabWidget(parent)
    , m_lab(lab)
    , m_cache(makeTable(this))
    , m_directory(makeTable(this))
{
    setObjectName(QStringLiteral("labTransitionTable"));
    setUsesScrollButtons(false); // two short tabs: always whole
    addTab(m_cache, tr("Cache"));
    addTab(m_directory, tr("Directory"));
    setTabToolTip(0, tr("The cache controller's transitions: state × event"));
    setTabToolTip(1, tr("The directory's transitions: state × event"));
    connect(m_lab, &LabModel::changed, this, &LabTransitionTable::reload);
    // The tints come from the palette: recolour when it changes.
    connect(ThemeWatcher::instance(), &ThemeWatcher::changed, this, &LabTransitionTable::highlight);
    reload();
}

void LabTransitionTable::fill(QTableWidget* widget, const co::ControllerTable& table)
{
    const co::Protocol& p = m_lab->protocol();
    widget->clear();
    widget->setRowCount(static_cast<int>(table.states.size()));
    widget->setColumnCount(static_cast<int>(table.events.size()));
    QStringList rows, columns;
    for (const co::StateInfo& s : table.states)
        rows << toQString(s.name);
    for (const co::EventInfo& e : table.events)
        columns << toQString(e.name);
    widget->setVerticalHeaderLabels(rows);
    widget->setHorizontalHeaderLabels(columns);
    for (int s = 0; s < widget->rowCount(); ++s) {
        widget->verticalHeaderItem(s)->setToolTip(toQString(table.states[static_cast<std::size_t>(s)].meaning));
        for (int e = 0; e < widget->columnCount(); ++e) {
            auto* item = new QTableWidgetItem(toQString(co::transitionCell(p, table, s, e)));
            if (!m_explanationsHidden)
                item->setToolTip(toQString(table.explanations[static_cast<std::size_t>(table.index(s, e))]));
            widget->setItem(s, e, item);
        }
    }
    widget->resizeColumnsToContents();
}

void LabTransitionTable::setExplanationsHidden(bool hidden)
{
    if (hidden == m_explanationsHidden)
        return;
    m_explanationsHidden = hidden;
    m_protocol.clear(); // refill with or without the tooltips
    reload();
}

void LabTransitionTable::reload()
{
    const QString name = m_lab->protocolName();
    if (name != m_protocol) {
        m_protocol = name;
        fill(m_cache, m_lab->protocol().cache);
        fill(m_directory, m_lab->protocol().directory);
        m_highlight = {-1, -1};
    }
    highlight();
}

void LabTransitionTable::highlight()
{
    for (QTableWidget* t : {m_cache, m_directory})
        for (int r = 0; r < t->rowCount(); ++r)
            for (int c = 0; c < t->columnCount(); ++c)
                if (QTableWidgetItem* item = t->item(r, c)) {
                    item->setBackground(QBrush());
                    QFont f = item->font();
                    f.setBold(false);
                    item->setFont(f);
                }
    m_highlight = {-1, -1};
    const co::StepRecord& step = m_lab->current();
    if (m_lab->currentStep() == 0 || step.actor.empty())
        return;
    const bool dir = step.actor == co::homeName(m_lab->protocol().home);
    const co::ControllerTable& table = dir ? m_lab->protocol().directory : m_lab->protocol().cache;
    QTableWidget* widget = dir ? m_directory : m_cache;
    const int row = table.findState(step.fromState);
    const int column = table.findEvent(step.event);
    if (row < 0 || column < 0 || row >= widget->rowCount() || column >= widget->columnCount())
        return;
    for (int c = 0; c < widget->columnCount(); ++c)
        widget->item(row, c)->setBackground(toneFill(Tone::Accent, QApplication::palette(widget)));
    QTableWidgetItem* cell = widget->item(row, column);
    cell->setBackground(toneFill(Tone::Warning, QApplication::palette(widget)));
    QFont f = cell->font();
    f.setBold(true);
    cell->setFont(f);
    m_highlight = {row, column};
    setCurrentWidget(widget);
    widget->scrollToItem(cell);
}

} // namespace coh::ui

#include "ui/replay_inspector.h"

#include "ui/qt_text.h"
#include "ui/replay_message_details.h"

#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QGridLayout>
#include <QHeaderView>
#include <QIntValidator>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableView>
#include <QTextBrowser>
#include <QTextDocument>
#include <QTextFrame>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

namespace coh::ui {
namespace {

constexpr int kRoleItem = 1000; // kind filter items: a kind index, or kRoleItem + role

QComboBox* filterBox(QWidget* parent, const QString& tip)
{
    auto* box = new QComboBox(parent);
    box->setToolTip(tip);
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(7);
    return box;
}

QLineEdit* numberField(QWidget* parent, const QString& tip)
{
    auto* field = new QLineEdit(parent);
    field->setToolTip(tip);
    field->setPlaceholderText(QObject::tr("any"));
    field->setValidator(new QIntValidator(0, std::numeric_limits<int>::max(), field));
    field->setClearButtonEnabled(true);
    return field;
}

} // namespace

ReplayInspector::ReplayInspector(QWidget* parent)
    : QWidget(parent)
{
    m_messages = new ReplayMessageModel(this);
    m_filter = new ReplayMessageFilter(this);
    m_filter->setSourceModel(m_messages);

    m_node = filterBox(this, tr("Messages from or to this node"));
    m_link = filterBox(this, tr("Messages whose route crosses this link"));
    m_kind = filterBox(this, tr("Messages of this role or kind"));
    m_block = numberField(this, tr("Messages that move this block (of their request's KV)"));
    m_request = numberField(this, tr("Messages of this request"));
    m_count = new QLabel(this);

    auto* filters = new QGridLayout;
    filters->setContentsMargins(0, 0, 0, 0);
    filters->setHorizontalSpacing(4);
    filters->setVerticalSpacing(2);
    const auto label = [this](const QString& text, QWidget* buddy) {
        auto* l = new QLabel(text, this);
        l->setBuddy(buddy);
        return l;
    };
    filters->addWidget(label(tr("&Node"), m_node), 0, 0);
    filters->addWidget(m_node, 0, 1);
    filters->addWidget(label(tr("&Link"), m_link), 0, 2);
    filters->addWidget(m_link, 0, 3);
    filters->addWidget(label(tr("&Kind"), m_kind), 1, 0);
    filters->addWidget(m_kind, 1, 1, 1, 3);
    filters->addWidget(label(tr("&Block"), m_block), 2, 0);
    filters->addWidget(m_block, 2, 1);
    filters->addWidget(label(tr("Re&quest"), m_request), 2, 2);
    filters->addWidget(m_request, 2, 3);
    filters->setColumnStretch(1, 1);
    filters->setColumnStretch(3, 1);

    m_table = new QTableView(this);
    m_table->setModel(m_filter);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(m_table->fontMetrics().height() + 4);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setWordWrap(false);
    m_table->setMinimumSize(120, 60);

    m_details = new QTextBrowser(this);
    m_details->setOpenLinks(false);
    m_details->setMinimumSize(120, 60);

    m_split = new QSplitter(Qt::Vertical, this);
    m_split->addWidget(m_table);
    m_split->addWidget(m_details);
    m_split->setStretchFactor(0, 3);
    m_split->setStretchFactor(1, 2);
    // splitterMoved comes from the handle only, never from setSizes().
    connect(m_split, &QSplitter::splitterMoved, this, [this] { m_userSplit = true; });

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 0, 0, 0);
    layout->setSpacing(2);
    layout->addLayout(filters);
    layout->addWidget(m_count);
    layout->addWidget(m_split, 1);

    for (QComboBox* box : {m_node, m_link, m_kind})
        connect(box, &QComboBox::currentIndexChanged, this, &ReplayInspector::applyFilter);
    for (QLineEdit* field : {m_block, m_request})
        connect(field, &QLineEdit::textChanged, this, &ReplayInspector::applyFilter);
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { rowChanged(current); });
    showDetails();
}

void ReplayInspector::setModel(std::shared_ptr<const ReplayModel> model)
{
    m_model = std::move(model);
    m_selected = -1;
    m_messages->setModel(m_model);
    fillFilters();
    applyFilter();
    m_table->resizeColumnsToContents();
    showDetails();
}

void ReplayInspector::fillFilters()
{
    // Quietly: each "any" becoming current would filter every message again; setModel filters once after.
    for (QComboBox* box : {m_node, m_link, m_kind}) {
        const QSignalBlocker block(box);
        box->clear();
        box->addItem(tr("any"), -1);
    }
    {
        const QSignalBlocker b1(m_block), b2(m_request);
        m_block->clear();
        m_request->clear();
    }
    if (!m_model || m_model->isEmpty())
        return;
    const QSignalBlocker b1(m_node), b2(m_link), b3(m_kind);
    const auto& scene = m_model->scene();
    for (std::size_t n = 0; n < scene.nodes.size(); ++n)
        m_node->addItem(scene.nodes[n].id, static_cast<int>(n));
    for (std::size_t l = 0; l < scene.links.size(); ++l)
        m_link->addItem(scene.links[l].id, static_cast<int>(l));
    const auto& kinds = m_model->run()->summary.messagesByKind;
    std::array<bool, kMessageRoleCount> used{};
    for (std::size_t k = 0; k < kinds.size(); ++k)
        used[static_cast<std::size_t>(m_model->kindRole(k))] |= kinds[k].count > 0;
    for (MessageRole role : allMessageRoles())
        if (used[static_cast<std::size_t>(role)])
            m_kind->addItem(tr("every %1 message").arg(messageRoleLabel(role)), kRoleItem + static_cast<int>(role));
    for (std::size_t k = 0; k < kinds.size(); ++k)
        if (kinds[k].count > 0)
            m_kind->addItem(toQString(kinds[k].name), static_cast<int>(k));
}

void ReplayInspector::setHiddenRoles(const std::array<bool, kMessageRoleCount>& hidden)
{
    m_hidden = hidden;
    applyFilter();
}

void ReplayInspector::applyFilter()
{
    MessageFilter f;
    f.node = m_node->currentData().isValid() ? m_node->currentData().toInt() : -1;
    f.link = m_link->currentData().isValid() ? m_link->currentData().toInt() : -1;
    const int kind = m_kind->currentData().isValid() ? m_kind->currentData().toInt() : -1;
    f.role = kind >= kRoleItem ? kind - kRoleItem : -1;
    f.kind = kind >= 0 && kind < kRoleItem ? kind : -1;
    bool ok = false;
    if (const int block = m_block->text().toInt(&ok); ok)
        f.block = static_cast<std::uint32_t>(block);
    if (const int request = m_request->text().toInt(&ok); ok)
        f.request = static_cast<std::uint32_t>(request);
    f.hiddenRoles = m_hidden;
    m_filter->setFilter(f);
    m_count->setText(countText());
    // Keep the selected message's row selected when it still passes.
    if (m_selected >= 0)
        selectMessage(m_selected);
}

QString ReplayInspector::countText() const
{
    const int total = m_messages->rowCount();
    const int shown = m_filter->rowCount();
    return shown == total ? tr("%n message(s)", nullptr, total) : tr("%1 of %2 messages").arg(shown).arg(total);
}

void ReplayInspector::selectMessage(int message)
{
    m_selected = message;
    const QModelIndex source = message >= 0 ? m_messages->index(message, 0) : QModelIndex();
    const QModelIndex row = source.isValid() ? m_filter->mapFromSource(source) : QModelIndex();
    m_syncing = true;
    if (row.isValid()) {
        m_table->selectionModel()->setCurrentIndex(row,
                                                   QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
        m_table->scrollTo(row);
    } else {
        m_table->selectionModel()->clearSelection();
        m_table->selectionModel()->setCurrentIndex(QModelIndex(), QItemSelectionModel::NoUpdate);
    }
    m_syncing = false;
    showDetails();
}

void ReplayInspector::rowChanged(const QModelIndex& current)
{
    if (m_syncing || !current.isValid())
        return;
    m_selected = m_filter->data(current, ReplayMessageModel::MessageRole).toInt();
    showDetails();
    emit messageActivated(m_selected);
}

void ReplayInspector::showDetails()
{
    if (!m_model || m_model->isEmpty()) {
        m_details->setPlainText(tr("No run loaded."));
        return;
    }
    if (m_selected < 0 || static_cast<std::size_t>(m_selected) >= m_model->run()->messages.size()) {
        m_details->setPlainText(tr("Click a message on the canvas, or pick a row, to see what it is and the "
                                   "protocol step that sent it."));
        return;
    }
    m_details->setHtml(messageDetailsHtml(*m_model, static_cast<std::uint32_t>(m_selected)));
    fitDetails();
}

void ReplayInspector::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitDetails();
}

void ReplayInspector::fitDetails()
{
    if (m_userSplit || !isVisible())
        return;
    const QList<int> sizes = m_split->sizes();
    const int total = sizes.value(0) + sizes.value(1);
    if (total <= 0)
        return;
    QTextDocument* doc = m_details->document();
    doc->setTextWidth(m_details->viewport()->width());
    // The step is everything above the message's facts, the last table (messageDetailsHtml puts the step first).
    const QList<QTextFrame*> tables = doc->rootFrame()->childFrames();
    const qreal stepBottom = tables.isEmpty() ? 0 : doc->documentLayout()->frameBoundingRect(tables.back()).top();
    const int frame = 2 * m_details->frameWidth() + 2; // the frame, and a pixel to spare each side
    const int whole = static_cast<int>(std::ceil(doc->size().height())) + frame;
    const int step = static_cast<int>(std::ceil(stepBottom)) + frame;
    // The whole account when it takes at most half, else at least the step, the list keeping its minimum.
    const int wanted = std::min(whole, std::max(total / 2, step));
    const int least = m_details->minimumHeight();
    const int details = std::clamp(wanted, least, std::max(least, total - m_table->minimumHeight()));
    m_split->setSizes({total - details, details});
    // The details may have taken room from the list: the selected row stays in view.
    if (m_table->currentIndex().isValid())
        m_table->scrollTo(m_table->currentIndex());
}

} // namespace coh::ui

#include "ui/lab_op_panel.h"

#include "core/coherence/protocol_table.h"
#include "ui/lab_model.h"

#include <QGridLayout>
#include <QLabel>
#include <QPushButton>

namespace coh::ui {

namespace co = core::coherence;

namespace {

constexpr int kOps = 3;

} // namespace

LabOpPanel::LabOpPanel(LabModel* lab, QWidget* parent)
    : QWidget(parent)
    , m_lab(lab)
    , m_grid(new QGridLayout(this))
{
    m_grid->setContentsMargins(0, 0, 0, 0);
    connect(m_lab, &LabModel::changed, this, [this] {
        if (m_lab->caches() != m_caches)
            rebuild();
        updateEnabled();
    });
    rebuild();
    updateEnabled();
}

QPushButton* LabOpPanel::button(int cache, int op) const
{
    const int i = cache * kOps + op;
    return cache >= 0 && op >= 0 && op < kOps && i < m_buttons.size() ? m_buttons.at(i) : nullptr;
}

void LabOpPanel::rebuild()
{
    m_buttons.clear(); // the layout loop below deletes them with the labels
    while (QLayoutItem* item = m_grid->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    m_caches = m_lab->caches();
    const QString names[kOps] = {tr("Read"), tr("Write"), tr("Evict")};
    const QString keys[kOps] = {QStringLiteral("Read"), QStringLiteral("Write"), QStringLiteral("Evict")};
    for (int c = 0; c < m_caches; ++c) {
        m_grid->addWidget(new QLabel(QStringLiteral("P%1").arg(c), this), c, 0);
        for (int op = 0; op < kOps; ++op) {
            auto* b = new QPushButton(names[op], this);
            b->setObjectName(QStringLiteral("opP%1%2").arg(c).arg(keys[op]));
            b->setToolTip(
                tr("P%1 issues a %2 (appends P%1:%3 to the ops)").arg(c).arg(names[op].toLower(), keys[op].left(1)));
            b->setFocusPolicy(Qt::NoFocus);
            connect(b, &QPushButton::clicked, this,
                    [this, c, op] { m_lab->appendOp(c, static_cast<co::ProcessorOp>(op)); });
            m_grid->addWidget(b, c, op + 1);
            m_buttons << b;
        }
    }
}

void LabOpPanel::updateEnabled()
{
    for (int c = 0; c < m_caches; ++c)
        for (int op = 0; op < kOps; ++op)
            button(c, op)->setEnabled(m_lab->canIssue(c, static_cast<co::ProcessorOp>(op)));
}

} // namespace coh::ui

#include "ui/lab_op_panel.h"

#include "core/coherence/protocol_table.h"
#include "ui/lab_model.h"

#include <QGridLayout>
#include <QLabel>
#include <QToolButton>

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
    connect(m_lab, &LabModel::changed, this, &LabOpPanel::updateEnabled);
    rebuild();
    updateEnabled();
}

QToolButton* LabOpPanel::button(int cache, int op) const
{
    const int i = cache * kOps + op;
    return cache >= 0 && cache < m_lab->caches() && op >= 0 && op < kOps && i < m_buttons.size() ? m_buttons.at(i)
                                                                                                 : nullptr;
}

void LabOpPanel::rebuild()
{
    // Every possible cache has its row; rows of absent caches are hidden but keep their space, so a lesson with
    // fewer caches moves nothing on screen.
    m_caches = LabModel::kMaxCaches;
    const QString names[kOps] = {tr("Read"), tr("Write"), tr("Evict")};
    const QString keys[kOps] = {QStringLiteral("Read"), QStringLiteral("Write"), QStringLiteral("Evict")};
    for (int c = 0; c < m_caches; ++c) {
        auto* label = new QLabel(QStringLiteral("P%1").arg(c), this);
        m_grid->addWidget(label, c, 0);
        m_rows << label;
        QSizePolicy policy = label->sizePolicy();
        policy.setRetainSizeWhenHidden(true);
        label->setSizePolicy(policy);
        for (int op = 0; op < kOps; ++op) {
            // Tool buttons: three ops per cache must fit the narrow side column.
            auto* b = new QToolButton(this);
            b->setText(names[op]);
            b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
            b->setObjectName(QStringLiteral("opP%1%2").arg(c).arg(keys[op]));
            b->setToolTip(
                tr("P%1 issues a %2 (appends P%1:%3 to the ops)").arg(c).arg(names[op].toLower(), keys[op].left(1)));
            b->setFocusPolicy(Qt::NoFocus);
            connect(b, &QToolButton::clicked, this,
                    [this, c, op] { m_lab->appendOp(c, static_cast<co::ProcessorOp>(op)); });
            m_grid->addWidget(b, c, op + 1);
            m_buttons << b;
            QSizePolicy policy = b->sizePolicy();
            policy.setRetainSizeWhenHidden(true);
            b->setSizePolicy(policy);
        }
    }
}

void LabOpPanel::updateEnabled()
{
    for (int c = 0; c < m_caches; ++c) {
        const bool present = c < m_lab->caches();
        m_rows.at(c)->setVisible(present);
        for (int op = 0; op < kOps; ++op) {
            QToolButton* b = m_buttons.at(c * kOps + op);
            b->setVisible(present);
            b->setEnabled(present && m_lab->canIssue(c, static_cast<co::ProcessorOp>(op)));
        }
    }
}

} // namespace coh::ui

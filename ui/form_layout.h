#pragma once
// The form layout every editor form uses: labels beside their fields while there is room, above them when the
// panel is narrow (the Scenario dock at 280 px), so no field is ever cut off.

#include <QFormLayout>

namespace coh::ui {

inline QFormLayout* newFormLayout(QWidget* parent = nullptr)
{
    auto* form = new QFormLayout(parent);
    form->setRowWrapPolicy(QFormLayout::WrapLongRows);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    return form;
}

} // namespace coh::ui

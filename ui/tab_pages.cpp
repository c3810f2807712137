#include "ui/tab_pages.h"

#include <QLayout>
#include <QStackedWidget>
#include <QTabBar>

#include <algorithm>

namespace coh::ui {

TabPages::TabPages(QWidget* parent)
    : QTabWidget(parent)
{
    // The page stack would otherwise take the largest page's minimum as its own.
    if (auto* stack = findChild<QStackedWidget*>(); stack && stack->layout())
        stack->layout()->setSizeConstraint(QLayout::SetNoConstraint);
    connect(this, &QTabWidget::currentChanged, this, [this] { updateGeometry(); });
}

QSize TabPages::minimumSizeHint() const
{
    const QWidget* page = currentWidget();
    if (!page)
        return QTabWidget::minimumSizeHint();
    const QSize needs = page->minimumSizeHint().expandedTo(page->minimumSize());
    // The tab bar scrolls its tabs when narrow; its height is what it takes above the page.
    const QSize bar = tabBar()->minimumSizeHint();
    return {std::max(needs.width(), bar.width()), needs.height() + tabBar()->sizeHint().height()};
}

} // namespace coh::ui

#include "ui/window_size.h"

#include <QScreen>
#include <QWidget>

namespace coh::ui {

QSize fittedSize(const QSize& preferred, const QSize& window, const QSize& screen)
{
    QSize size = preferred;
    for (const QSize& room : {window, screen})
        if (room.isValid())
            size = size.boundedTo(room * 0.9);
    return size;
}

QSize fittedSizeOver(const QWidget* widget, const QSize& preferred)
{
    const QWidget* over = widget->parentWidget() ? widget->parentWidget()->window() : nullptr;
    const QScreen* screen = over ? over->screen() : widget->screen();
    return fittedSize(preferred, over ? over->size() : QSize(), screen ? screen->availableGeometry().size() : QSize());
}

} // namespace coh::ui

#pragma once
// Toolbar icons that read on any palette: a monochrome SVG (drawn with `currentColor`) painted in the
// application palette's button text colour at the moment it is drawn, so View → Dark Palette re-tints it.

#include <QIcon>
#include <QString>

namespace coh::ui {

// `svgPath` is a resource such as ":/icons/run.svg". Normal: the palette's ButtonText; Disabled: the disabled
// ButtonText; checked (QIcon::On, e.g. Link Mode): the Highlight colour, so the state shows on the icon itself.
QIcon tintedIcon(const QString& svgPath);

} // namespace coh::ui

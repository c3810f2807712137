#pragma once
// Checks any view can run on itself: text that does not read (WCAG contrast under 4.5:1 against what is behind
// it) and controls that are cut off (not inside their visible parent, or smaller than their text needs).
// Each returns one line per finding, naming the widget, so a failing test says what to fix.

#include "ui/theme.h"

#include <QAbstractButton>
#include <QAbstractItemModel>
#include <QAbstractItemView>
#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLegend>
#include <QLineEdit>
#include <QStringList>
#include <QTabBar>
#include <QTextBlock>
#include <QTextDocument>
#include <QValueAxis>
#include <QWidget>

#include <algorithm>

namespace coh::ui::test {

inline QString describe(const QWidget* w)
{
    QString name = QString::fromLatin1(w->metaObject()->className());
    if (!w->objectName().isEmpty())
        name += QLatin1Char('#') + w->objectName();
    if (const auto* label = qobject_cast<const QLabel*>(w))
        name += QStringLiteral(" \"%1\"").arg(label->text().left(40));
    else if (const auto* button = qobject_cast<const QAbstractButton*>(w))
        name += QStringLiteral(" \"%1\"").arg(button->text().left(40));
    return name;
}

// The colour painted behind `w`: the nearest ancestor (or itself) that fills its background, a scroll area's
// viewport, or the window.
inline QColor backgroundBehind(const QWidget* w)
{
    for (const QWidget* at = w; at; at = at->parentWidget()) {
        const QWidget* parent = at->parentWidget();
        const auto* area = parent ? qobject_cast<const QAbstractScrollArea*>(parent->parentWidget()) : nullptr;
        const bool isViewport = area && area->viewport() == parent && at == parent;
        if (at->autoFillBackground() || isViewport || at->isWindow())
            return at->palette().color(at->backgroundRole());
        if (const auto* a = qobject_cast<const QAbstractScrollArea*>(at->parentWidget());
            a && a->viewport() == at && at->backgroundRole() != QPalette::NoRole)
            return at->palette().color(at->backgroundRole());
    }
    return w->palette().color(QPalette::Window);
}

inline void checkPair(QStringList& out, const QString& what, const QColor& fg, const QColor& bg, double min)
{
    const QColor seenBg = bg.alpha() == 255 ? bg : blendOver(bg, Qt::white);
    const QColor seenFg = blendOver(fg, seenBg);
    const double ratio = contrastRatio(seenFg, seenBg);
    if (ratio < min)
        out << QStringLiteral("%1: contrast %2:1 (%3 on %4)")
                   .arg(what)
                   .arg(ratio, 0, 'f', 2)
                   .arg(seenFg.name(), seenBg.name());
}

// Rich text: every fragment's own colours (inline color/background) against the label's.
inline void checkRichText(QStringList& out, const QString& what, const QString& html, const QColor& fg,
                          const QColor& bg, double min)
{
    QTextDocument doc;
    doc.setHtml(html);
    for (QTextBlock block = doc.begin(); block.isValid(); block = block.next()) {
        for (auto it = block.begin(); !it.atEnd(); ++it) {
            const QTextFragment fragment = it.fragment();
            if (!fragment.isValid() || fragment.text().trimmed().isEmpty())
                continue;
            const QTextCharFormat format = fragment.charFormat();
            const QColor f = format.foreground().style() == Qt::NoBrush ? fg : format.foreground().color();
            const QColor b =
                format.background().style() == Qt::NoBrush ? bg : blendOver(format.background().color(), bg);
            checkPair(out, QStringLiteral("%1 fragment \"%2\"").arg(what, fragment.text().left(30)), f, b, min);
        }
    }
}

inline void checkModel(QStringList& out, const QAbstractItemView* view, double min, int maxRows = 200)
{
    const QAbstractItemModel* model = view->model();
    if (!model)
        return;
    const QPalette pal = view->palette();
    const int rows = std::min(model->rowCount(), maxRows);
    for (int r = 0; r < rows; ++r) {
        for (int c = 0; c < model->columnCount(); ++c) {
            const QModelIndex index = model->index(r, c);
            if (model->data(index, Qt::DisplayRole).toString().isEmpty())
                continue;
            const QVariant fgData = model->data(index, Qt::ForegroundRole);
            const QVariant bgData = model->data(index, Qt::BackgroundRole);
            QColor fg = pal.color(QPalette::Text);
            if (fgData.canConvert<QBrush>() && fgData.value<QBrush>().style() != Qt::NoBrush)
                fg = fgData.value<QBrush>().color();
            else if (fgData.canConvert<QColor>() && fgData.value<QColor>().isValid())
                fg = fgData.value<QColor>();
            QColor bg = pal.color(QPalette::Base);
            if (bgData.canConvert<QBrush>() && bgData.value<QBrush>().style() != Qt::NoBrush)
                bg = blendOver(bgData.value<QBrush>().color(), bg);
            else if (bgData.canConvert<QColor>() && bgData.value<QColor>().isValid())
                bg = blendOver(bgData.value<QColor>(), bg);
            checkPair(out,
                      QStringLiteral("%1 cell (%2,%3) \"%4\"")
                          .arg(describe(view))
                          .arg(r)
                          .arg(c)
                          .arg(model->data(index, Qt::DisplayRole).toString().left(30)),
                      fg, bg, min);
        }
    }
}

inline void checkChart(QStringList& out, const QChartView* view, double min)
{
    const QChart* chart = view->chart();
    if (!chart)
        return;
    const QColor bg = chart->backgroundBrush().style() == Qt::NoBrush ? view->palette().color(QPalette::Base)
                                                                      : chart->backgroundBrush().color();
    const QString name = describe(view) + QStringLiteral(" chart \"%1\"").arg(chart->title().left(30));
    if (!chart->title().isEmpty())
        checkPair(out, name + QStringLiteral(" title"), chart->titleBrush().color(), bg, min);
    if (chart->legend()->isVisible())
        checkPair(out, name + QStringLiteral(" legend"), chart->legend()->labelColor(), bg, min);
    const auto axes = chart->axes();
    for (const QAbstractAxis* axis : axes) {
        if (!axis->isVisible())
            continue;
        if (axis->labelsVisible())
            checkPair(out, name + QStringLiteral(" axis labels"), axis->labelsBrush().color(), bg, min);
        if (!axis->titleText().isEmpty())
            checkPair(out, name + QStringLiteral(" axis title"), axis->titleBrush().color(), bg, min);
    }
}

// Every visible text under `root` (itself included): labels (and their rich text), buttons, line edits,
// combo boxes, group box titles, item views' cells, and charts. Disabled controls are exempt, as WCAG 1.4.3
// exempts inactive user interface components (a greyed-out button is meant to read as unavailable).
inline QStringList lowContrastTexts(QWidget* root, double min = 4.5)
{
    QStringList out;
    QList<QWidget*> widgets = root->findChildren<QWidget*>();
    widgets.prepend(root);
    for (QWidget* w : widgets) {
        // WCAG exempts inactive controls: a disabled button's greyed caption is meant to recede.
        if (!w->isVisible() || !w->isEnabled())
            continue;
        const QPalette pal = w->palette();
        if (auto* label = qobject_cast<QLabel*>(w)) {
            if (label->text().isEmpty())
                continue;
            const QColor fg = pal.color(label->foregroundRole());
            const QColor bg = backgroundBehind(label);
            const bool rich = label->textFormat() == Qt::RichText ||
                              (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(label->text()));
            if (rich)
                checkRichText(out, describe(label), label->text(), fg, bg, min);
            else
                checkPair(out, describe(label), fg, bg, min);
        } else if (auto* check = qobject_cast<QCheckBox*>(w); check && !check->text().isEmpty()) {
            checkPair(out, describe(w), pal.color(QPalette::WindowText), backgroundBehind(w), min);
        } else if (auto* button = qobject_cast<QAbstractButton*>(w); button && !button->text().isEmpty()) {
            checkPair(out, describe(w), pal.color(QPalette::ButtonText), pal.color(QPalette::Button), min);
        } else if (auto* edit = qobject_cast<QLineEdit*>(w); edit && !edit->text().isEmpty()) {
            checkPair(out, describe(w), pal.color(QPalette::Text), pal.color(QPalette::Base), min);
        } else if (auto* combo = qobject_cast<QComboBox*>(w); combo && !combo->currentText().isEmpty()) {
            const QColor bg = combo->isEditable() ? pal.color(QPalette::Base) : pal.color(QPalette::Button);
            const QColor fg = combo->isEditable() ? pal.color(QPalette::Text) : pal.color(QPalette::ButtonText);
            checkPair(out, describe(w), fg, bg, min);
        } else if (auto* group = qobject_cast<QGroupBox*>(w); group && !group->title().isEmpty()) {
            checkPair(out, describe(w) + QStringLiteral(" title"), pal.color(QPalette::WindowText), backgroundBehind(w),
                      min);
        } else if (auto* view = qobject_cast<QAbstractItemView*>(w); view && !qobject_cast<QHeaderView*>(w)) {
            // A header shows its model's header data, not the cells it would be checked on.
            checkModel(out, view, min);
        } else if (auto* chart = qobject_cast<QChartView*>(w)) {
            checkChart(out, chart, min);
        }
    }
    return out;
}

inline bool isControl(const QWidget* w)
{
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QLabel*>(w) ||
           qobject_cast<const QLineEdit*>(w) || qobject_cast<const QComboBox*>(w) ||
           qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QAbstractScrollArea*>(w) ||
           qobject_cast<const QGroupBox*>(w) || qobject_cast<const QTabBar*>(w);
}

// Inside a scroll area's viewport, content may extend beyond what is shown: that is what scrolling is for.
inline bool scrollsInside(const QWidget* parent)
{
    const QWidget* grand = parent->parentWidget();
    const auto* area = grand ? qobject_cast<const QAbstractScrollArea*>(grand) : nullptr;
    return area && area->viewport() == parent;
}

// A child that a Qt composite control lays out itself, at the size its style gives it.
inline bool partOfQtControl(const QWidget* w)
{
    const QWidget* parent = w->parentWidget();
    return qobject_cast<const QDockWidget*>(parent) || qobject_cast<const QTabBar*>(parent) ||
           qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QComboBox*>(parent);
}

// Visible controls under `root` that are cut off: their rectangle leaves their visible parent's (more than a
// pixel), or they are narrower or lower than their minimum size hint (their text or frame does not fit).
inline QStringList clippedControls(QWidget* root)
{
    QStringList out;
    const auto widgets = root->findChildren<QWidget*>();
    for (QWidget* w : widgets) {
        if (!w->isVisible() || !isControl(w) || w->isWindow())
            continue;
        QWidget* parent = w->parentWidget();
        if (!parent || scrollsInside(parent))
            continue;
        // The parts of a composite control (a spin box's editor, a tab bar's scroll buttons) are sized by the
        // control's style, not by a layout: the control itself is what is checked.
        if (qobject_cast<const QAbstractSpinBox*>(parent) || qobject_cast<const QComboBox*>(parent) ||
            qobject_cast<const QTabBar*>(parent))
            continue;
        const QRect inParent = w->geometry();
        const QRect bounds = parent->rect().adjusted(-1, -1, 1, 1);
        if (!bounds.contains(inParent))
            out << QStringLiteral("%1 at %2,%3 %4x%5 leaves its parent %6 (%7x%8)")
                       .arg(describe(w))
                       .arg(inParent.x())
                       .arg(inParent.y())
                       .arg(inParent.width())
                       .arg(inParent.height())
                       .arg(describe(parent))
                       .arg(parent->width())
                       .arg(parent->height());
        // Labels that wrap or elide, and scroll areas, legitimately shrink below their hint; so do the parts Qt's
        // composite controls size themselves (a dock's title buttons, a tab bar's scroll arrows, a spin box's
        // line edit).
        const auto* label = qobject_cast<const QLabel*>(w);
        if (qobject_cast<const QAbstractScrollArea*>(w) || (label && label->wordWrap()) || partOfQtControl(w))
            continue;
        const QSize hint = w->minimumSizeHint();
        if (hint.isValid() && (w->width() + 1 < hint.width() || w->height() + 1 < hint.height()))
            out << QStringLiteral("%1 is %2x%3, under its minimum %4x%5")
                       .arg(describe(w))
                       .arg(w->width())
                       .arg(w->height())
                       .arg(hint.width())
                       .arg(hint.height());
    }
    return out;
}

} // namespace coh::ui::test

#include "ui/tinted_icon.h"

#include "ui/theme.h"

#include <QApplication>
#include <QFile>
#include <QIconEngine>
#include <QPainter>
#include <QPalette>
#include <QPixmap>
#include <QPixmapCache>
#include <QSvgRenderer>

namespace coh::ui {

namespace {

class TintedSvgEngine : public QIconEngine {
  public:
    explicit TintedSvgEngine(QString path)
        : m_path(std::move(path))
    {
        QFile file(m_path);
        if (file.open(QIODevice::ReadOnly))
            m_svg = file.readAll();
    }

    QIconEngine* clone() const override { return new TintedSvgEngine(*this); }
    QString key() const override { return QStringLiteral("coh-tinted-svg"); }

    void paint(QPainter* painter, const QRect& rect, QIcon::Mode mode, QIcon::State state) override
    {
        QSvgRenderer renderer(tinted(colorFor(mode, state)));
        renderer.render(painter, rect);
    }

    QPixmap pixmap(const QSize& size, QIcon::Mode mode, QIcon::State state) override
    {
        const QColor color = colorFor(mode, state);
        // Keyed by the colour as well: a palette change draws the new colour instead of a stale pixmap.
        const QString key =
            QStringLiteral("coh-icon:%1:%2x%3:%4").arg(m_path).arg(size.width()).arg(size.height()).arg(color.rgba());
        QPixmap pm;
        if (QPixmapCache::find(key, &pm))
            return pm;
        pm = QPixmap(size);
        pm.fill(Qt::transparent);
        QPainter painter(&pm);
        painter.setRenderHint(QPainter::Antialiasing);
        QSvgRenderer renderer(tinted(color));
        renderer.render(&painter, QRectF(QPointF(0, 0), size));
        painter.end();
        QPixmapCache::insert(key, pm);
        return pm;
    }

    bool isNull() override { return m_svg.isEmpty(); }

  private:
    static QColor colorFor(QIcon::Mode mode, QIcon::State state)
    {
        const QPalette palette = QApplication::palette();
        if (mode == QIcon::Disabled)
            return palette.color(QPalette::Disabled, QPalette::ButtonText);
        if (mode == QIcon::Selected)
            return palette.color(QPalette::HighlightedText);
        if (state == QIcon::On) // a graphic, not text: WCAG's 3:1 for user-interface components
            return readableOn(palette.color(QPalette::Highlight), palette.color(QPalette::Button), 3.0);
        return palette.color(QPalette::ButtonText);
    }

    QByteArray tinted(const QColor& color) const
    {
        QByteArray svg = m_svg;
        svg.replace("currentColor", color.name().toLatin1());
        return svg;
    }

    QString m_path;
    QByteArray m_svg;
};

} // namespace

QIcon tintedIcon(const QString& svgPath)
{
    return QIcon(new TintedSvgEngine(svgPath));
}

} // namespace coh::ui

#include "ui/report_writers.h"

#include <QBuffer>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QPageLayout>
#include <QPainter>
#include <QPdfWriter>
#include <QRegularExpression>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QTextDocument>
#include <QWidget>

#include <algorithm>
#include <memory>

namespace coh::ui {

namespace {

QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

// One block as an HTML fragment (a chart's is its caption only: each writer draws the chart itself).
QString blockHtml(const ReportBlock& block)
{
    switch (block.kind) {
    case ReportBlock::Kind::Heading:
        return QStringLiteral("<h2>%1</h2>\n").arg(esc(block.text));
    case ReportBlock::Kind::Subheading:
        return QStringLiteral("<h3>%1</h3>\n").arg(esc(block.text));
    case ReportBlock::Kind::Paragraph:
        return QStringLiteral("<p>%1</p>\n").arg(esc(block.text));
    case ReportBlock::Kind::Note:
        return QStringLiteral("<p class=\"meta\">%1</p>\n").arg(esc(block.text));
    case ReportBlock::Kind::Table: {
        const ReportTable& t = block.table;
        QString out = t.header.isEmpty() ? QStringLiteral("<table class=\"kv\">\n") : QStringLiteral("<table>\n");
        const auto row = [](const QStringList& cells, const QString& tag) {
            QString r = QStringLiteral("<tr>");
            for (const QString& c : cells)
                r += QStringLiteral("<%1>%2</%1>").arg(tag, esc(c));
            return r + QStringLiteral("</tr>\n");
        };
        if (!t.header.isEmpty())
            out += row(t.header, QStringLiteral("th"));
        for (const QStringList& cells : t.rows)
            out += row(cells, QStringLiteral("td"));
        return out + QStringLiteral("</table>\n");
    }
    case ReportBlock::Kind::Chart:
        return QStringLiteral("<p class=\"caption\">%1</p>\n").arg(esc(block.text));
    }
    return {};
}

const char* kStyle = "body{font-family:sans-serif;max-width:64em;margin:2em auto;color:#222;line-height:1.4}\n"
                     "h1{font-size:1.6em;margin-bottom:0.2em} h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
                     "table{border-collapse:collapse;margin:0.6em 0} td,th{border:1px solid #ddd;padding:2px 8px;"
                     "text-align:right} th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}\n"
                     "table.kv td{text-align:left} .meta{color:#666} figure{margin:1em 0}\n"
                     "figcaption,.caption{color:#555;font-size:0.9em}\n";

// The SVG generator's document as an element to inline: its XML declaration and doctype dropped.
QString inlineSvg(const QByteArray& svg)
{
    QString text = QString::fromUtf8(svg);
    text.remove(QRegularExpression(QStringLiteral("<\\?xml[^>]*\\?>")));
    text.remove(QRegularExpression(QStringLiteral("<!DOCTYPE[^>]*>")));
    return text.trimmed();
}

// A chart view out of its panel's layout (which would size it back), shown off screen and laid out at `size` for
// as long as it is painted; back in its panel afterwards.
class PreparedChart {
  public:
    PreparedChart(QWidget* widget, QSize size)
        : m_widget(widget)
        , m_parent(widget->parentWidget())
    {
        widget->setParent(nullptr);
        widget->setAttribute(Qt::WA_DontShowOnScreen);
        widget->show();
        widget->resize(size); // a chart places its plot in its resize event
        QCoreApplication::sendPostedEvents();
        QCoreApplication::processEvents();
    }
    ~PreparedChart()
    {
        m_widget->hide();
        m_widget->setParent(m_parent); // its owner deletes it as before
    }
    PreparedChart(const PreparedChart&) = delete;
    PreparedChart& operator=(const PreparedChart&) = delete;

    void paint(QPainter& painter) { m_widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren); }

  private:
    QWidget* m_widget;
    QWidget* m_parent;
};

QString markdownText(QString text)
{
    // Characters Markdown would read as markup, and HTML's.
    static const QRegularExpression special(QStringLiteral("([\\\\`*_{}\\[\\]()#+!|<>&])"));
    return text.replace(special, QStringLiteral("\\\\1")).replace(QLatin1Char('\n'), QLatin1Char(' '));
}

// Writes a report's bytes, made whole in memory first, so that every write is one this function checks (a PDF writer
// or a data stream that meets a short write stops without a word). A file is written beside itself and takes its name
// only once every byte is on disk (QSaveFile), so a disk that fills leaves the file that was there before, or none; a
// device, and a path under /dev or /proc (`-o /dev/stdout >> log` is the log, which must be appended to, not
// replaced), is written in place. A file already there is replaced: a hard link to it keeps the old bytes, and the
// new one has this user as its owner.
bool writtenInPlace(const QString& path)
{
    const QFileInfo info(path);
    return (info.exists() && !info.isFile()) || path.startsWith(QLatin1String("/dev/")) ||
           path.startsWith(QLatin1String("/proc/"));
}

bool writeFile(const QString& path, const QByteArray& bytes, QString* error)
{
    const bool inPlace = writtenInPlace(path);
    std::unique_ptr<QFileDevice> file;
    if (inPlace) {
        file = std::make_unique<QFile>(path);
    } else {
        auto save = std::make_unique<QSaveFile>(path);
        save->setDirectWriteFallback(true); // a file made beforehand in a folder this user cannot write to
        file = std::move(save);
    }
    // In place: a file reached through /dev or /proc (`-o /dev/stdout` redirected to it) is appended to, since a
    // shell's `>` has emptied it already and `>>` asks for exactly this; a device or a pipe is only written.
    QIODevice::OpenMode mode = QIODevice::WriteOnly;
    if (!inPlace)
        mode |= QIODevice::Truncate;
    else if (QFileInfo(path).isFile())
        mode |= QIODevice::Append;
    if (!file->open(mode)) {
        *error = QStringLiteral("cannot write %1: %2").arg(path, file->errorString());
        return false;
    }
    // A short count is a failure even where Qt sets no error (a disk that filled part-way through the write).
    const qint64 count = file->write(bytes);
    QString reason;
    if (count != bytes.size() || !file->flush())
        reason = file->error() != QFileDevice::NoError
                     ? file->errorString()
                     : QStringLiteral("only %1 of its %2 bytes could be written (a full disk?)")
                           .arg(count)
                           .arg(bytes.size());
    if (auto* save = dynamic_cast<QSaveFile*>(file.get())) {
        if (!reason.isEmpty())
            save->cancelWriting();
        else if (!save->commit())
            reason = save->errorString();
    } else {
        file->close();
    }
    if (reason.isEmpty())
        return true;
    *error = QStringLiteral("cannot write %1: %2").arg(path, reason);
    return false;
}

} // namespace

bool writeReport(const ReportContent& report, const QString& format, const QString& path, QString* error)
{
    if (format == QLatin1String("pdf"))
        return writeReportPdf(report, path, error);
    if (format == QLatin1String("md")) {
        if (writtenInPlace(path)) {
            *error = QStringLiteral("a Markdown report's charts are files in a folder beside it, and %1 has no folder "
                                    "to hold them: write it to a file, or choose html or pdf")
                         .arg(path);
            return false;
        }
        // The charts as SVG files in a folder named after the report, beside it.
        const QFileInfo file(path);
        const QString assets = file.completeBaseName() + QStringLiteral("-files");
        return writeReportMarkdown(report, path, file.absoluteDir().filePath(assets), assets, error);
    }
    return writeFile(path, reportHtml(report).toUtf8(), error);
}

QByteArray widgetSvg(QWidget* widget, QSize size, const QString& title)
{
    PreparedChart chart(widget, size);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    QPainter painter(&svg);
    chart.paint(painter);
    painter.end();
    return bytes;
}

QString reportHtml(const ReportContent& report)
{
    QString html = QStringLiteral("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                                  "<meta charset=\"utf-8\"/>\n<title>%1</title>\n<style>\n%2</style>\n</head>\n"
                                  "<body>\n<h1>%1</h1>\n")
                       .arg(esc(report.title()), QString::fromLatin1(kStyle));
    for (const ReportBlock& block : report.blocks()) {
        if (block.kind == ReportBlock::Kind::Chart)
            html += QStringLiteral("<figure>\n%1\n<figcaption>%2</figcaption>\n</figure>\n")
                        .arg(inlineSvg(widgetSvg(block.chart, block.size, block.text)), esc(block.text));
        else
            html += blockHtml(block);
    }
    return html + QStringLiteral("</body>\n</html>\n");
}

bool writeReportMarkdown(const ReportContent& report, const QString& path, const QString& assetsFolder,
                         const QString& assetsLink, QString* error)
{
    QString md = QStringLiteral("# %1\n\n").arg(markdownText(report.title()));
    int chart = 0;
    for (const ReportBlock& block : report.blocks()) {
        switch (block.kind) {
        case ReportBlock::Kind::Heading:
            md += QStringLiteral("## %1\n\n").arg(markdownText(block.text));
            break;
        case ReportBlock::Kind::Subheading:
            md += QStringLiteral("### %1\n\n").arg(markdownText(block.text));
            break;
        case ReportBlock::Kind::Paragraph:
            md += markdownText(block.text) + QStringLiteral("\n\n");
            break;
        case ReportBlock::Kind::Note:
            md += QStringLiteral("*%1*\n\n").arg(markdownText(block.text));
            break;
        case ReportBlock::Kind::Table: {
            const ReportTable& t = block.table;
            const QStringList header = t.header.isEmpty() ? QStringList{QString(), QString()} : t.header;
            const auto row = [](const QStringList& cells) {
                QStringList escaped;
                for (const QString& c : cells)
                    escaped << markdownText(c);
                return QStringLiteral("| ") + escaped.join(QStringLiteral(" | ")) + QStringLiteral(" |\n");
            };
            md += row(header);
            md += QStringLiteral("|") + QStringLiteral("---|").repeated(static_cast<int>(header.size())) +
                  QStringLiteral("\n");
            for (const QStringList& cells : t.rows)
                md += row(cells);
            md += QStringLiteral("\n");
            break;
        }
        case ReportBlock::Kind::Chart: {
            if (!QDir().mkpath(assetsFolder)) {
                *error = QStringLiteral("cannot create %1").arg(assetsFolder);
                return false;
            }
            const QString name = QStringLiteral("chart-%1.svg").arg(++chart);
            if (!writeFile(QDir(assetsFolder).filePath(name), widgetSvg(block.chart, block.size, block.text), error))
                return false;
            md += QStringLiteral("![%1](%2/%3)\n\n").arg(markdownText(block.text), assetsLink, name);
            break;
        }
        }
    }
    return writeFile(path, md.toUtf8(), error);
}

bool writeReportPdf(const ReportContent& report, const QString& path, QString* error)
{
    // The pages go to memory, then to the file through writeFile: QPdfWriter says nothing of a write that fails.
    QByteArray pdf;
    QBuffer buffer(&pdf);
    buffer.open(QIODevice::WriteOnly);
    QPdfWriter writer(&buffer);
    writer.setPageSize(QPageSize(QPageSize::A4));
    writer.setPageMargins(QMarginsF(15, 15, 15, 15), QPageLayout::Millimeter);
    writer.setResolution(96); // lay out in screen pixels: charts and text at the sizes they have on screen
    writer.setTitle(report.title());
    writer.setCreator(QStringLiteral("Coherence Studio"));
    QPainter painter;
    if (!painter.begin(&writer)) {
        *error = QStringLiteral("cannot write %1").arg(path);
        return false;
    }
    const double width = writer.width(), height = writer.height();
    double y = 0;
    const auto room = [&](double needed) {
        if (y > 0 && y + needed > height) {
            writer.newPage();
            y = 0;
        }
    };
    // Text is laid out by QTextDocument and drawn as text: a PDF reader selects and searches it.
    const auto drawHtml = [&](const QString& html) {
        QTextDocument doc;
        doc.setDefaultStyleSheet(QStringLiteral("th{background:#f3f3f3} .meta,.caption{color:#555}"));
        doc.setHtml(html);
        doc.setTextWidth(width);
        const double h = doc.size().height();
        room(std::min(h, height));
        // A block taller than a page (a huge topology's table) continues on the next pages.
        for (double shown = 0; shown < h;) {
            const double slice = std::min(h - shown, height - y);
            painter.save();
            painter.translate(0, y - shown);
            doc.drawContents(&painter, QRectF(0, shown, width, slice));
            painter.restore();
            shown += slice;
            y += slice;
            if (shown < h) {
                writer.newPage();
                y = 0;
            }
        }
    };
    // QTextDocument draws a table's borders from its attributes, not from CSS.
    const auto bordered = [](QString html) {
        const QString table = QStringLiteral("<table border=\"1\" cellspacing=\"0\" cellpadding=\"3\">");
        return html.replace(QStringLiteral("<table class=\"kv\">"), table).replace(QStringLiteral("<table>"), table);
    };
    drawHtml(QStringLiteral("<h1>%1</h1>").arg(esc(report.title())));
    const auto chartHeight = [width](const ReportBlock& chart) {
        return chart.size.height() * std::min(1.0, width / chart.size.width());
    };
    const auto& blocks = report.blocks();
    for (std::size_t i = 0; i < blocks.size(); ++i) {
        const ReportBlock& block = blocks[i];
        if (block.kind != ReportBlock::Kind::Chart) {
            // A heading stays with the start of what it heads: a chart whole, else a few lines.
            if (block.kind == ReportBlock::Kind::Heading || block.kind == ReportBlock::Kind::Subheading) {
                const bool chartNext = i + 1 < blocks.size() && blocks[i + 1].kind == ReportBlock::Kind::Chart;
                room(50 + (chartNext ? chartHeight(blocks[i + 1]) + 40 : 120));
            }
            drawHtml(bordered(blockHtml(block)));
            continue;
        }
        // Charts as vector drawings, scaled to the page's width: the same SVG the HTML inlines, played onto the page
        // (painting the chart view onto the PDF directly lays its legend out for the wrong device), kept together
        // with its caption.
        const double h = chartHeight(block);
        const double scale = h / block.size.height();
        room(h + 40);
        QSvgRenderer svg(widgetSvg(block.chart, block.size, block.text));
        svg.render(&painter, QRectF(0, y, block.size.width() * scale, h));
        y += h;
        drawHtml(blockHtml(block));
    }
    if (!painter.end()) {
        *error = QStringLiteral("writing %1 failed").arg(path);
        return false;
    }
    return writeFile(path, pdf, error);
}

} // namespace coh::ui

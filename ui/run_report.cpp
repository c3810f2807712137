#include "ui/run_report.h"

#include "ui/chart_view.h"
#include "ui/charts_panel.h"
#include "ui/time_chart_view.h"

#include <nlohmann/json.hpp>

#include <QBuffer>
#include <QCoreApplication>
#include <QLineSeries>
#include <QPainter>
#include <QRegularExpression>
#include <QSvgGenerator>

namespace coh::ui {

namespace {

using json = nlohmann::json;

QString esc(const QString& text)
{
    return text.toHtmlEscaped();
}

QString esc(const std::string& text)
{
    return QString::fromStdString(text).toHtmlEscaped();
}

QString number(double v, int decimals = 3)
{
    return QString::number(v, 'f', decimals);
}

// Text of a JSON value for a table cell, escaped.
QString cell(const json& value)
{
    if (value.is_string())
        return esc(value.get<std::string>());
    if (value.is_null())
        return QStringLiteral("—");
    return esc(value.dump());
}

QString row(const QStringList& cells, bool header = false)
{
    const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
    QString out = QStringLiteral("<tr>");
    for (const QString& c : cells)
        out += QStringLiteral("<%1>%2</%1>").arg(tag, c);
    return out + QStringLiteral("</tr>\n");
}

QString distributionRow(const QString& name, const core::Distribution& d)
{
    return row({esc(name), QString::number(d.count), number(d.mean), number(d.p50), number(d.p90), number(d.p99),
                number(d.max)});
}

const json* at(const json& root, const char* pointer)
{
    const json::json_pointer p(pointer);
    return root.contains(p) ? &root.at(p) : nullptr;
}

QString scenarioSection(const json& scenario)
{
    QString out = QStringLiteral("<h2>Scenario</h2>\n");
    if (const json* d = at(scenario, "/description"))
        out += QStringLiteral("<p>%1</p>\n").arg(cell(*d));
    out += QStringLiteral("<table class=\"kv\">\n");
    const std::pair<const char*, const char*> fields[] = {
        {"Model", "/model"},
        {"Workload", "/workload/type"},
        {"Trace", "/workload/path"},
        {"Requests", "/workload/max_requests"},
        {"Time scale", "/workload/time_scale"},
        {"Decode protocol", "/coherence/decode"},
        {"Prefill protocol", "/coherence/prefill"},
        {"Protocols per tier", "/coherence/tiers"},
        {"Router", "/serving/router"},
        {"Replication", "/serving/replication"},
        {"KV tiers", "/serving/kv_tiers"},
        {"Failures", "/failures"},
        {"SLOs", "/slo"},
        {"Seed", "/seed"},
    };
    for (const auto& [label, pointer] : fields)
        if (const json* v = at(scenario, pointer))
            out += row({QString::fromLatin1(label), cell(*v)});
    out += QStringLiteral("</table>\n");
    if (const json* nodes = at(scenario, "/topology/nodes"); nodes && nodes->is_array()) {
        out += QStringLiteral("<h3>Topology</h3>\n<table>\n") +
               row({QStringLiteral("node"), QStringLiteral("kind"), QStringLiteral("role"), QStringLiteral("memory")},
                   true);
        for (const json& n : *nodes) {
            QStringList tiers;
            if (const json* memory = at(n, "/memory"); memory && memory->is_array())
                for (const json& m : *memory)
                    tiers << cell(m.value("tier", json())) + QStringLiteral(" ") + cell(m.value("capacity", json()));
            out += row({cell(n.value("id", json())), cell(n.value("kind", json())), cell(n.value("role", json())),
                        tiers.join(QStringLiteral(", "))});
        }
        out += QStringLiteral("</table>\n");
    }
    if (const json* links = at(scenario, "/topology/links"); links && links->is_array()) {
        out += QStringLiteral("<table>\n") +
               row({QStringLiteral("link"), QStringLiteral("between"), QStringLiteral("kind"),
                    QStringLiteral("bandwidth"), QStringLiteral("latency")},
                   true);
        for (const json& l : *links)
            out += row({cell(l.value("id", json())),
                        cell(l.value("a", json())) + QStringLiteral(" – ") + cell(l.value("b", json())),
                        cell(l.value("kind", json())), cell(l.value("bandwidth", json())),
                        cell(l.value("latency", json()))});
        out += QStringLiteral("</table>\n");
    }
    return out;
}

// The SVG generator's document as an element to inline: its XML declaration and doctype dropped.
QString inlineSvg(const QByteArray& svg)
{
    QString text = QString::fromUtf8(svg);
    text.remove(QRegularExpression(QStringLiteral("<\\?xml[^>]*\\?>")));
    text.remove(QRegularExpression(QStringLiteral("<!DOCTYPE[^>]*>")));
    return text.trimmed();
}

} // namespace

QByteArray widgetSvg(QWidget* widget, QSize size, const QString& title)
{
    // Out of any layout, which would size it back, and laid out at the size asked for before it is painted: a chart
    // places its plot in its resize event.
    QWidget* parent = widget->parentWidget();
    widget->setParent(nullptr);
    widget->setAttribute(Qt::WA_DontShowOnScreen);
    widget->show();
    widget->resize(size);
    QCoreApplication::sendPostedEvents();
    QCoreApplication::processEvents();
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator svg;
    svg.setOutputDevice(&buffer);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle(title);
    QPainter painter(&svg);
    widget->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
    painter.end();
    widget->hide();
    widget->setParent(parent); // its owner deletes it as before
    return bytes;
}

QString runReportHtml(const RunReportInput& input)
{
    const core::RunInfo& info = input.info;
    const core::RunSummary& s = input.run->summary;
    json scenario;
    try {
        scenario = json::parse(input.scenarioJson);
    } catch (const std::exception&) {
        scenario = json::object();
    }
    QString html;
    html +=
        QStringLiteral("<!DOCTYPE html>\n<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">\n<head>\n"
                       "<meta charset=\"utf-8\"/>\n<title>%1</title>\n<style>\n"
                       "body{font-family:sans-serif;max-width:64em;margin:2em auto;color:#222;line-height:1.4}\n"
                       "h1{font-size:1.6em;margin-bottom:0.2em} h2{border-bottom:1px solid #ccc;margin-top:1.6em}\n"
                       "table{border-collapse:collapse;margin:0.6em 0} td,th{border:1px solid #ddd;padding:2px "
                       "8px;text-align:right} th{background:#f3f3f3} td:first-child,th:first-child{text-align:left}\n"
                       "table.kv td{text-align:left} .meta{color:#666} figure{margin:1em 0} "
                       "figcaption{color:#555;font-size:0.9em}\n</style>\n</head>\n<body>\n")
            .arg(esc(info.name));
    html += QStringLiteral("<h1>%1</h1>\n<p class=\"meta\">Run #%2 · scenario %3 · %4 backend · %5 · seed %6 · "
                           "Coherence Studio %7</p>\n")
                .arg(esc(info.name))
                .arg(info.id)
                .arg(esc(info.scenarioName), esc(info.backend), esc(info.createdAt))
                .arg(info.seed)
                .arg(esc(info.version));

    html += QStringLiteral("<h2>Headline</h2>\n<table>\n");
    html += row({QStringLiteral("ms"), QStringLiteral("count"), QStringLiteral("mean"), QStringLiteral("p50"),
                 QStringLiteral("p90"), QStringLiteral("p99"), QStringLiteral("max")},
                true);
    html += distributionRow(QStringLiteral("TTFT"), s.ttftMs);
    html += distributionRow(QStringLiteral("TPOT"), s.tpotMs);
    html += distributionRow(QStringLiteral("ITL"), s.itlMs);
    html += distributionRow(QStringLiteral("E2E"), s.e2eMs);
    html += distributionRow(QStringLiteral("TPOT compute"), s.tpotComputeMs);
    html += distributionRow(QStringLiteral("TPOT transfer"), s.tpotTransferMs);
    html += distributionRow(QStringLiteral("TPOT coherence stall"), s.tpotStallMs);
    html += QStringLiteral("</table>\n<table class=\"kv\">\n");
    html += row({QStringLiteral("Requests"), QStringLiteral("%1 of %2 completed").arg(s.completed).arg(s.requests)});
    html += row({QStringLiteral("Output tokens"), QString::number(s.outputTokens)});
    html += row({QStringLiteral("Throughput"), number(s.throughputTokensPerSec, 1) + QStringLiteral(" tokens/s")});
    html += row({QStringLiteral("Goodput"), number(s.goodputRequestsPerSec, 3) + QStringLiteral(" requests/s")});
    html += row({QStringLiteral("SLO attainment"), number(100 * s.sloAttainment, 1) + QStringLiteral(" %")});
    html += row({QStringLiteral("KV protocol"), esc(s.protocol)});
    html += QStringLiteral("</table>\n");

    html += scenarioSection(scenario);

    // The Charts tab's own charts, painted as SVG at a size that reads on a page.
    html += QStringLiteral("<h2>Charts</h2>\n");
    ChartsPanel panel;
    panel.setRun(input.run);
    const std::pair<QWidget*, QString> charts[] = {
        {panel.ttftChart(), QStringLiteral("TTFT of each request over time")},
        {panel.tpotChart(), QStringLiteral("TPOT of each request over time")},
        {panel.cdfChart(), QStringLiteral("Latency CDFs")},
        {panel.splitChart(), QStringLiteral("Where each token's time went: compute, KV transfer, coherence stall")},
        {panel.linkChart(), QStringLiteral("Utilisation of the busiest links")},
        {panel.kindChart(), QStringLiteral("Messages by kind")},
    };
    for (TimeChartView* view : {panel.ttftChart(), panel.tpotChart(), panel.splitChart(), panel.linkChart()})
        view->cursor()->setVisible(false); // the replay's time: nothing on a page
    for (const auto& [view, caption] : charts) {
        const QSize size(860, view == panel.kindChart() ? std::max(360, view->minimumHeight()) : 360);
        html += QStringLiteral("<figure>\n%1\n<figcaption>%2</figcaption>\n</figure>\n")
                    .arg(inlineSvg(widgetSvg(view, size, caption)), esc(caption));
    }

    html += QStringLiteral("<h2>Coherence traffic</h2>\n<table>\n");
    html += row({QStringLiteral("kind"), QStringLiteral("role"), QStringLiteral("carries"), QStringLiteral("messages"),
                 QStringLiteral("bytes")},
                true);
    for (const core::MessageKindStats& k : s.messagesByKind)
        if (k.count > 0)
            html += row({esc(k.name), esc(k.role), k.data ? QStringLiteral("data") : QStringLiteral("control"),
                         QString::number(k.count), QString::number(k.bytes, 'g', 6)});
    html += QStringLiteral("</table>\n<table>\n");
    html += row({QStringLiteral("link"), QStringLiteral("direction"), QStringLiteral("bytes"),
                 QStringLiteral("mean utilisation %"), QStringLiteral("peak utilisation %")},
                true);
    for (const core::LinkTotal& l : s.links)
        html += row({esc(l.link), l.forward ? QStringLiteral("a→b") : QStringLiteral("b→a"),
                     QString::number(l.bytes, 'g', 6), number(100 * l.meanUtilization, 2),
                     number(100 * l.peakUtilization, 2)});
    html += QStringLiteral("</table>\n");

    html += QStringLiteral("<h2>Staleness and failures</h2>\n<table class=\"kv\">\n");
    html += row({QStringLiteral("Stale block reads (decode)"), QString::number(s.staleness.staleReads)});
    html += row({QStringLiteral("Requests given up after failures"), QString::number(s.failures.failed)});
    html += row({QStringLiteral("Availability"), number(100 * s.failures.availability, 2) + QStringLiteral(" %")});
    html += QStringLiteral("</table>\n");
    html += QStringLiteral("<p class=\"meta\">Made by Coherence Studio from the run database; every figure is the "
                           "stored run's.</p>\n</body>\n</html>\n");
    return html;
}

} // namespace coh::ui

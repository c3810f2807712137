#pragma once
// A report's content (report_content.h) written out (docs/reports.md): XHTML with the charts as inline SVG;
// Markdown with the charts as SVG files beside it; PDF with selectable text and the charts as vector drawings.
#include "ui/report_content.h"

#include <QByteArray>
#include <QSize>
#include <QString>

class QWidget;

namespace coh::ui {

QString reportHtml(const ReportContent& report);
// The charts go to `assetsFolder` as chart-N.svg and are linked as `assetsLink`/chart-N.svg.
bool writeReportMarkdown(const ReportContent& report, const QString& path, const QString& assetsFolder,
                         const QString& assetsLink, QString* error);
// A4 pages: text as text (selectable, searchable), charts as vector paths.
bool writeReportPdf(const ReportContent& report, const QString& path, QString* error);

// By format: "html", "md" (charts in NAME-files/ beside it) or "pdf".
bool writeReport(const ReportContent& report, const QString& format, const QString& path, QString* error);

// A widget painted into SVG (a chart view: its series, axes and text as vector paths and text).
QByteArray widgetSvg(QWidget* widget, QSize size, const QString& title);

} // namespace coh::ui

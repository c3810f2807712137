#include "ui/metric_format.h"

#include <QCoreApplication>
#include <QLocale>

#include <cmath>

namespace coh::ui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("coh::ui::MetricFormat", text);
}

// Significant digits where they matter: 3 decimals below 1, 2 below 100, 1 below 10,000, none above.
QString plain(double v)
{
    const double a = std::fabs(v);
    const int decimals = a == 0 ? 0 : a < 1 ? 3 : a < 100 ? 2 : a < 10'000 ? 1 : 0;
    return QLocale().toString(v, 'f', decimals);
}

QString bytes(double v)
{
    static constexpr std::pair<double, const char*> kPrefixes[] = {{1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
    for (const auto& [factor, unit] : kPrefixes)
        if (std::fabs(v) >= factor)
            return QStringLiteral("%1 %2").arg(QLocale().toString(v / factor, 'f', 1), QLatin1String(unit));
    return QStringLiteral("%1 B").arg(QLocale().toString(v, 'f', 0));
}

} // namespace

QString formatMetric(double value, core::MetricUnit unit)
{
    using enum core::MetricUnit;
    if (std::isnan(value))
        return tr("n/a");
    switch (unit) {
    case Milliseconds:
        return QStringLiteral("%1 ms").arg(plain(value));
    case Seconds:
        return QStringLiteral("%1 s").arg(plain(value));
    case Count:
        return QLocale().toString(value, 'f', 0);
    case Bytes:
        return bytes(value);
    case Percent:
        return QStringLiteral("%1%").arg(plain(value));
    case TokensPerSecond:
        return tr("%1 tok/s").arg(plain(value));
    case RequestsPerSecond:
        return tr("%1 req/s").arg(plain(value));
    }
    return plain(value);
}

QString formatDelta(double delta, double relative, core::MetricUnit unit, bool tenths)
{
    if (std::isnan(delta))
        return tr("n/a");
    const QString sign = delta > 0 ? QStringLiteral("+") : delta < 0 ? QStringLiteral("\u2212") : QString();
    const QString amount = sign + formatMetric(std::fabs(delta), unit);
    if (delta == 0)
        return formatMetric(0, unit);
    if (std::isnan(relative))
        return tr("%1 (none before)").arg(amount);
    const double p = 100 * std::fabs(relative);
    return QStringLiteral("%1 (%2%3%)").arg(amount, sign, QLocale().toString(p, 'f', p >= 10 && !tenths ? 0 : 1));
}

} // namespace coh::ui

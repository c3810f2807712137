#include "ui/topology_defaults.h"

#include "core/scenario/enum_names.h"
#include "ui/qt_text.h"

#include <QObject>

namespace coh::ui {

using nlohmann::ordered_json;

namespace {

template <class E> QStringList namesOf()
{
    QStringList names;
    for (const std::string& name : core::enumNames<E>())
        names << toQString(name);
    return names;
}

// Defaults are deliberately round numbers of the device class, marked as such in "source" so that a saved
// scenario never passes them off as datasheet figures.
const char* kDefaultSource = "editor default: replace with the figures from the device's datasheet";

ordered_json tier(const char* name, const char* capacity, const char* bandwidth)
{
    return ordered_json{{"tier", name}, {"capacity", capacity}, {"bandwidth", bandwidth}};
}

} // namespace

QStringList nodeKindNames()
{
    return namesOf<core::NodeKind>();
}

QStringList nodeRoleNames()
{
    QStringList names = namesOf<core::NodeRole>();
    names.removeAll(QStringLiteral("none"));
    return names;
}

QStringList tierNames()
{
    return namesOf<core::Tier>();
}

QStringList linkKindNames()
{
    return namesOf<core::LinkKind>();
}

QString nodeKindLabel(const QString& kind)
{
    if (kind == QLatin1String("cpu_socket"))
        return QObject::tr("CPU socket");
    if (kind == QLatin1String("gpu"))
        return QObject::tr("GPU");
    if (kind == QLatin1String("accelerator"))
        return QObject::tr("Accelerator");
    if (kind == QLatin1String("cxl_memory"))
        return QObject::tr("CXL memory");
    if (kind == QLatin1String("switch"))
        return QObject::tr("Switch");
    if (kind == QLatin1String("storage"))
        return QObject::tr("Storage");
    return kind;
}

ordered_json defaultNode(const QString& kind)
{
    ordered_json node = ordered_json::object();
    node["kind"] = toStdString(kind);
    if (kind == QLatin1String("gpu")) {
        node["compute"] = {{"peak_flops", "400 TFLOP/s"}, {"memory_bandwidth", "2 TB/s"}};
        node["memory"] = ordered_json::array({defaultTier(QStringLiteral("hbm"))});
    } else if (kind == QLatin1String("accelerator")) {
        node["compute"] = {{"peak_flops", "50 TFLOP/s"}, {"memory_bandwidth", "200 GB/s"}};
        node["memory"] = ordered_json::array({tier("hbm", "32 GB", "200 GB/s")});
    } else if (kind == QLatin1String("cpu_socket")) {
        node["role"] = "host";
        node["memory"] = ordered_json::array({defaultTier(QStringLiteral("dram"))});
    } else if (kind == QLatin1String("cxl_memory")) {
        node["role"] = "memory";
        node["memory"] = ordered_json::array({defaultTier(QStringLiteral("cxl"))});
    } else if (kind == QLatin1String("storage")) {
        node["memory"] = ordered_json::array({defaultTier(QStringLiteral("storage"))});
    }
    if (kind != QLatin1String("switch"))
        node["source"] = kDefaultSource;
    return node;
}

ordered_json defaultTier(const QString& name)
{
    if (name == QLatin1String("hbm"))
        return tier("hbm", "80 GB", "2 TB/s");
    if (name == QLatin1String("dram"))
        return tier("dram", "256 GB", "200 GB/s");
    if (name == QLatin1String("cxl"))
        return tier("cxl", "256 GB", "64 GB/s");
    return tier("storage", "4 TB", "7 GB/s");
}

QString nodeIdPrefix(const QString& kind)
{
    if (kind == QLatin1String("cpu_socket"))
        return QStringLiteral("cpu");
    if (kind == QLatin1String("cxl_memory"))
        return QStringLiteral("cxl");
    if (kind == QLatin1String("accelerator"))
        return QStringLiteral("acc");
    return kind.isEmpty() ? QStringLiteral("node") : kind;
}

ordered_json defaultLink(const QString& kind)
{
    // Typical one-way hop latency and per-direction bandwidth, as in the shipped presets.
    struct Row {
        const char* kind;
        const char* latency;
        const char* bandwidth;
    };
    static const Row rows[] = {
        {"on_chip", "10 ns", "1 TB/s"},   {"upi", "100 ns", "128 GB/s"},    {"pcie", "1 us", "64 GB/s"},
        {"cxl", "250 ns", "64 GB/s"},     {"nvlink", "0.7 us", "450 GB/s"}, {"infiniband", "1.5 us", "400 Gb/s"},
        {"ethernet", "10 us", "10 Gb/s"},
    };
    const std::string name = toStdString(kind);
    const Row* found = &rows[2];
    for (const Row& row : rows)
        if (name == row.kind)
            found = &row;
    return ordered_json{{"kind", name}, {"latency", found->latency}, {"bandwidth", found->bandwidth}};
}

QString suggestedLinkKind(const QString& kindA, const QString& kindB)
{
    auto either = [&](const char* kind) { return kindA == QLatin1String(kind) || kindB == QLatin1String(kind); };
    auto both = [&](const char* kind) { return kindA == QLatin1String(kind) && kindB == QLatin1String(kind); };
    if (both("cpu_socket"))
        return QStringLiteral("upi");
    if (either("cxl_memory"))
        return QStringLiteral("cxl");
    if ((either("gpu") || either("accelerator")) && !either("cpu_socket") && !either("storage"))
        return QStringLiteral("nvlink");
    return QStringLiteral("pcie");
}

} // namespace coh::ui

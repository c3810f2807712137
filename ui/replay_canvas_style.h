#pragma once
// Sizes and text forms the replay canvas's painting and its geometry queries share.
#include <QFont>
#include <QString>

#include <cstdint>
#include <vector>

namespace coh::ui::canvas {

inline constexpr int kMarkerSize = 6; // pixels, whatever the zoom: markers are symbols, not scene objects
inline constexpr int kIconSize = 36;
inline constexpr double kPickRadius = 6; // how near a click or hover must be to a marker or a link
inline constexpr double kPlatePadX = 3;  // a label plate's margin around its text, sideways
inline constexpr double kPlatePadY = 1;  // and above and below
inline constexpr double kPlateRadius = 3;

// Messages of one flow share path and timing; a small fixed offset per message keeps a stack of them visible.
inline int markerOffsetX(std::uint32_t message)
{
    return static_cast<int>(((message * 2654435761u) >> 27) % 5) * 2 - 4;
}
inline int markerOffsetY(std::uint32_t message)
{
    return static_cast<int>(((message * 2654435761u) >> 22) % 5) * 2 - 4;
}

inline QString blockCount(double blocks)
{
    return blocks >= 9999.5 ? QStringLiteral("%1k").arg(blocks / 1000, 0, 'f', blocks >= 99999.5 ? 0 : 1)
                            : QString::number(qRound(blocks));
}

inline QFont badgeFont(const QFont& base)
{
    QFont font = base;
    font.setPointSizeF(font.pointSizeF() * 0.85);
    return font;
}

// A node's block counts ("S 1416", "M 265", ...) packed into lines no wider than `maxWidth` (a part wider than
// that gets a line of its own): per line, the indices of its parts. `gap` separates parts on a line.
inline std::vector<std::vector<std::size_t>> packBadges(const std::vector<double>& widths, double gap, double maxWidth)
{
    std::vector<std::vector<std::size_t>> lines;
    double used = 0;
    for (std::size_t i = 0; i < widths.size(); ++i) {
        if (lines.empty() || used + gap + widths[i] > maxWidth) {
            lines.push_back({i});
            used = widths[i];
        } else {
            lines.back().push_back(i);
            used += gap + widths[i];
        }
    }
    return lines;
}

} // namespace coh::ui::canvas

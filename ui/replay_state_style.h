#pragma once
// How the replay draws a protocol state's block count, decided by the state's own StateInfo (what the table says
// it allows), never by its letters: one mapping for every protocol, so cxl-asymmetric's D, sealed-lease's W/R and
// lazy-causal's V get colours as M, E, O and S do.
#include "core/coherence/protocol_table.h"

#include <QColor>
#include <QPalette>
#include <QString>

namespace coh::ui {

// What a cache may do with a block in the state, as the table says (StateInfo::permission and holdsData).
enum class BlockStateClass {
    Writable, // read-write permission: the one writer's copy (M, D, W)
    Readable, // read permission with data (S, E, O, R, V)
    Held,     // data kept without permission: on its way out, or waiting for acks (MI^A, IM^A)
    Empty,    // no data (I, IS^D): never counted at a node
};

BlockStateClass blockStateClass(const core::coherence::StateInfo& state);
QString blockStateClassName(BlockStateClass c);
// The class's hue (Okabe-Ito: vermillion, bluish green, blue; grey only for Empty), readable as text (4.5:1) on
// the palette's base colour. Transient states share their class's colour; the replay sets them in italics.
QColor blockStateColor(BlockStateClass c, const QPalette& palette);
QColor blockStateColor(const core::coherence::StateInfo& state, const QPalette& palette);
// "M: modified … (writable, stable)": the legend's and the node tooltip's line for a state.
QString blockStateDescription(const core::coherence::StateInfo& state);

} // namespace coh::ui

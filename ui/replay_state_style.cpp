#include "ui/replay_state_style.h"

#include "ui/theme.h"

#include <QCoreApplication>

namespace coh::ui {

namespace coherence = core::coherence;

BlockStateClass blockStateClass(const core::coherence::StateInfo& state)
{
    if (!state.holdsData)
        return BlockStateClass::Empty;
    switch (state.permission) {
    case coherence::Permission::ReadWrite:
        return BlockStateClass::Writable;
    case coherence::Permission::Read:
        return BlockStateClass::Readable;
    case coherence::Permission::None:
        return BlockStateClass::Held;
    }
    return BlockStateClass::Held;
}

QString blockStateClassName(BlockStateClass c)
{
    switch (c) {
    case BlockStateClass::Writable:
        return QCoreApplication::translate("BlockState", "writable");
    case BlockStateClass::Readable:
        return QCoreApplication::translate("BlockState", "readable");
    case BlockStateClass::Held:
        return QCoreApplication::translate("BlockState", "held, not usable");
    case BlockStateClass::Empty:
        return QCoreApplication::translate("BlockState", "no data");
    }
    return {};
}

QColor blockStateColor(BlockStateClass c, const QPalette& palette)
{
    QColor hue;
    switch (c) {
    case BlockStateClass::Writable:
        hue = QColor(0xD5, 0x5E, 0x00);
        break;
    case BlockStateClass::Readable:
        hue = QColor(0x00, 0x9E, 0x73);
        break;
    case BlockStateClass::Held:
        hue = QColor(0x00, 0x72, 0xB2);
        break;
    case BlockStateClass::Empty:
        hue = QColor(0x80, 0x80, 0x80);
        break;
    }
    return readableOn(hue, palette.color(QPalette::Base));
}

QColor blockStateColor(const core::coherence::StateInfo& state, const QPalette& palette)
{
    return blockStateColor(blockStateClass(state), palette);
}

QString blockStateDescription(const core::coherence::StateInfo& state)
{
    return QCoreApplication::translate("BlockState", "%1: %2 (%3, %4)")
        .arg(QString::fromStdString(state.name), QString::fromStdString(state.meaning),
             blockStateClassName(blockStateClass(state)),
             state.stable ? QCoreApplication::translate("BlockState", "stable")
                          : QCoreApplication::translate("BlockState", "transient"));
}

} // namespace coh::ui

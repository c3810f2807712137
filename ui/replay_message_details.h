#pragma once
// The inspector's account of one recorded message: first the protocol step that sent it, the table row (state,
// trigger → actions, next state) as the protocol tables print it (coherence::transitionCell) and the row's
// explanation, then what it is (kind, role, blocks, request, route, bytes, times).
#include "ui/replay_model.h"

#include <QString>

namespace coh::ui {

struct MessageTransition {
    bool known = false;  // false: plain copy, or a record without a (valid) transition
    QString controller;  // "cache", or the home: "directory" or "bus"
    QString state;       // the sender's state before
    QString trigger;     // the event: a processor op or an arriving message
    QString actions;     // the row's cell: "Data→Req; Data→Dir / S"
    QString nextState;   // the sender's state after
    QString explanation; // the table's explanation, placeholders in words
};

MessageTransition messageTransition(const ReplayModel& model, std::uint32_t message);
// Rich text for the details pane.
QString messageDetailsHtml(const ReplayModel& model, std::uint32_t message);

} // namespace coh::ui

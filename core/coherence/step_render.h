#pragma once
// Steps as text (the lab's and the explorer's human output) and as JSON (the documented lab/verify format).
#include "core/coherence/step_record.h"

#include <nlohmann/json.hpp>

#include <string>

namespace coh::core::coherence {

nlohmann::ordered_json messageToJson(const MessageView& m);
nlohmann::ordered_json stepToJson(const StepRecord& step);

// A few lines: the step, the messages it sent, every controller's state afterwards, and why.
std::string stepToText(const StepRecord& step);
std::string messageToText(const MessageView& m);

} // namespace coh::core::coherence

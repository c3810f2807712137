#pragma once
// A RunResult as bytes and back, in the run store's own format (an in-memory SQLite database of the current schema,
// serialized): what a process hands a finished run to another over a wire (the tuner's MPI ranks) without a second
// encoding to keep in step with the store's.
#include "core/engine/run_result.h"

#include <string>

namespace coh::core {

std::string encodeRunResult(const RunResult& result);
// Throws std::runtime_error when the bytes are not an encoded run.
RunResult decodeRunResult(const std::string& bytes);

} // namespace coh::core

#pragma once
// The run every RunStore test stores: a RunResult with every field set to a value a lossy round trip would
// change (bits beyond 32, above INT64_MAX, -0.0, NaN-free doubles that are not exactly representable), and a
// check that two results agree field by field.
#include "core/engine/run_result.h"

#include <cstdint>
#include <string>

namespace coh::test {

core::RunResult makeResult();
// EXPECTs every field of `a` equal to `b`'s (doubles bit for bit where a sign of zero could be lost).
void expectEqual(const core::RunResult& a, const core::RunResult& b);
// Rows of `table` that belong to run `runId` in the database at `path`.
std::int64_t countRows(const std::string& path, const std::string& table, std::int64_t runId);

} // namespace coh::test

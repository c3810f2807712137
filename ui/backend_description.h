#pragma once
// A run's backend in words, for History's Backend tooltip (docs/real-backend.md): what executed the run and, for a
// real backend, what each topology node ran on (the mapping), what its copies and decode attention measured, what
// its stale reads cost, and what it scaled down. Rich text; every name from the run is escaped.
#include "core/net/backend_summary.h"

#include <QString>

namespace coh::ui {

QString backendDescription(const core::BackendSummary& backend);

} // namespace coh::ui

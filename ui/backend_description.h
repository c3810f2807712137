#pragma once
// A run's backend in words (docs/real-backend.md): what executed the run and, for a real backend, what each topology
// node ran on (the mapping), what its copies and decode attention measured, what its stale reads cost, and what it
// scaled down. History shows it below the list (rich text, every name from the run escaped); a report shows the same
// facts as a table.
#include "core/net/backend_summary.h"

#include <QList>
#include <QPair>
#include <QString>

namespace coh::ui {

// The facts, plain text: a headline, then labelled lines ("K/V carried", ...), then the mapping (node, resource).
struct BackendFacts {
    QString name;                                         // the backend's
    QString headline;                                     // its copies (real) or what it models (simulated)
    QList<QPair<QString, QString>> lines, mapping, after; // `after`: shown past the mapping (scaled down, injected)
};
BackendFacts backendFacts(const core::BackendSummary& backend);

QString backendDescription(const core::BackendSummary& backend);

} // namespace coh::ui

// The run store's cost_variants table (schema 9): what the simulator gave for a real run and its model on other costs
// than the model's profile (cost_variant.h). Their rows are read leniently: a damaged one is skipped, not the run.
#include "core/store/pool_protocol.h"
#include "core/store/run_serialization.h"
#include "core/store/run_store.h"
#include "core/store/run_store_guarded.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

namespace coh::core {

void RunStore::storeCostVariants(std::int64_t run, const std::vector<CostVariant>& variants)
{
    const std::string doing = fmt::format("store the simulator's figures on other costs for run {}", run);
    requireWritable(doing);
    guarded(doing, [&] {
        SQLite::Transaction transaction(*m_db);
        SQLite::Statement exists(*m_db, "SELECT 1 FROM runs WHERE id = ?");
        exists.bind(1, run);
        if (!exists.executeStep())
            throwNoSuchRun(run);
        SQLite::Statement insert(*m_db, "INSERT OR REPLACE INTO cost_variants (run_id, kind, factor, summary_json) "
                                        "VALUES (?, ?, ?, ?)");
        for (const CostVariant& v : variants) {
            insert.bind(1, run);
            insert.bind(2, toString(v.kind));
            insert.bind(3, v.kind == CostVariant::Kind::OwnCosts ? 1.0 : v.factor);
            insert.bind(4, toJson(v.summary).dump());
            insert.exec();
            insert.reset();
        }
        transaction.commit();
    });
}

std::vector<CostVariant> RunStore::costVariants(std::int64_t run)
{
    return guarded(fmt::format("read the simulator's figures on other costs for run {}", run), [&] {
        std::vector<CostVariant> out;
        SQLite::Statement q(*m_db, "SELECT v.kind, v.factor, v.summary_json, r.scenario_json FROM cost_variants v "
                                   "JOIN runs r ON r.id = v.run_id WHERE v.run_id = ? ORDER BY v.kind DESC, v.factor");
        q.bind(1, run);
        while (q.executeStep()) {
            const auto kind = parseCostVariantKind(q.getColumn(0).getString());
            // A damaged row is left unread: these figures are a comparison's, and their run reads without them.
            // (The CHECK constraint keeps other kinds out.)
            const auto summary =
                nlohmann::ordered_json::parse(q.getColumn(2).getString(), nullptr, /*allow_exceptions=*/false);
            if (!kind || !summary.is_object())
                continue;
            CostVariant v{*kind, q.getColumn(1).getDouble(), {}};
            try {
                v.summary = summaryFromJson(summary);
            } catch (const nlohmann::json::exception&) {
                continue;
            }
            completePoolProtocol(v.summary.prefixPool, q.getColumn(3).getString());
            out.push_back(std::move(v));
        }
        return out;
    });
}

} // namespace coh::core

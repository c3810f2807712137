#include "core/store/iteration_rows.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include <algorithm>

namespace coh::core {

void insertIterationRows(SQLite::Database& db, std::int64_t runId, const std::vector<DecodeIterationRecord>& rows)
{
    SQLite::Statement insert(db, "INSERT INTO decode_iterations (run_id, idx, instance, start_ns, compute_start_ns, "
                                 "end_ns, sequences, context_tokens) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const DecodeIterationRecord& r = rows[i];
        insert.bind(1, runId);
        insert.bind(2, static_cast<std::int64_t>(i));
        insert.bind(3, static_cast<std::int64_t>(r.instance));
        insert.bind(4, r.start);
        insert.bind(5, r.computeStart);
        insert.bind(6, r.end);
        insert.bind(7, static_cast<std::int64_t>(r.sequences));
        insert.bind(8, static_cast<std::int64_t>(r.contextTokens));
        insert.exec();
        insert.reset();
    }
}

std::vector<DecodeIterationRecord> loadIterationRows(SQLite::Database& db, std::int64_t runId)
{
    std::vector<DecodeIterationRecord> out;
    SQLite::Statement select(db, "SELECT instance, start_ns, compute_start_ns, end_ns, sequences, context_tokens "
                                 "FROM decode_iterations WHERE run_id = ? ORDER BY idx");
    select.bind(1, runId);
    while (select.executeStep()) {
        DecodeIterationRecord r;
        r.instance = static_cast<std::uint32_t>(select.getColumn(0).getInt64());
        r.start = select.getColumn(1).getInt64();
        r.computeStart = select.getColumn(2).getInt64();
        r.end = select.getColumn(3).getInt64();
        r.sequences = static_cast<std::uint32_t>(select.getColumn(4).getInt64());
        // A damaged negative count reads as zero rather than as a huge one.
        r.contextTokens = static_cast<std::uint64_t>(std::max<std::int64_t>(0, select.getColumn(5).getInt64()));
        out.push_back(r);
    }
    return out;
}

} // namespace coh::core

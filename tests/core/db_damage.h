#pragma once
// Damage to a closed run database file, as a disk or an editor leaves it: one page overwritten with a fixed pattern.
#include <SQLiteCpp/Database.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace coh::test {

// The page number `sql` selects (e.g. through dbstat), asked through a read-write connection: closing it checkpoints
// the WAL into the file, so the page found is the page on disk.
inline std::int64_t pageOf(const std::string& path, const std::string& sql)
{
    SQLite::Database db(path, SQLite::OPEN_READWRITE);
    return db.execAndGet(sql).getInt64();
}

// Overwrites page `page` (from 1) from byte `keep` on with a pattern no valid page holds; keep = 8 leaves a b-tree
// leaf's header, so the page still looks like one.
inline void overwritePage(const std::string& path, std::int64_t page, std::int64_t keep = 0)
{
    std::int64_t pageSize = 0;
    {
        SQLite::Database db(path, SQLite::OPEN_READONLY);
        pageSize = db.execAndGet("PRAGMA page_size").getInt64();
    }
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((page - 1) * pageSize + keep);
    for (std::int64_t i = keep; i < pageSize; ++i)
        file.put(static_cast<char>((i * 37 + 11) & 0xFF));
}

} // namespace coh::test

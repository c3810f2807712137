// docs/database.md's example queries run as written: every ```sql block of the guide is executed on the database a
// small study leaves (run 1 and study 1 exist), and each returns rows with values, so the guide cannot drift from
// the schema.
#include "core/store/run_store.h"
#include "core/tune/study_runner.h"
#include "temp_dir.h"
#include "tune_fixtures.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace coh::test {
namespace {

std::vector<std::string> sqlBlocks(const std::string& markdown)
{
    static const std::regex block("```sql\n([\\s\\S]*?)```");
    std::vector<std::string> out;
    for (auto it = std::sregex_iterator(markdown.begin(), markdown.end(), block); it != std::sregex_iterator(); ++it)
        out.push_back((*it)[1].str());
    return out;
}

TEST(DatabaseDoc, EveryQueryRuns)
{
    std::ifstream in(std::string(COH_TEST_DATA_DIR) + "/../../docs/database.md");
    ASSERT_TRUE(in) << "docs/database.md";
    std::stringstream text;
    text << in.rdbuf();
    const auto queries = sqlBlocks(text.str());
    ASSERT_GE(queries.size(), 8u);

    TempDir dir("coh-dbdoc");
    const std::string path = dir.file("runs.db");
    {
        core::RunStore store(path);
        auto study = smallStudyJson();
        study["record_iterations"] = 100; // a study keeps none unless asked: the iterations' query needs some
        const auto result = core::runStudy(parseStudyJson(study), &store, {});
        ASSERT_EQ(result.ran, 6u);
        // Run 2 stands for compare-real's model of run 1, with the figures compare-real keeps beside the pair: the
        // simulator's queries need them.
        store.setModelsRun(2, 1);
        const core::RunSummary summary = *store.runSummary(2);
        store.storeCostVariants(1, {{core::CostVariant::Kind::OwnCosts, 1, summary}});
        store.storeCostVariants(2, {{core::CostVariant::Kind::MovedCosts, 0.95, summary},
                                    {core::CostVariant::Kind::MovedCosts, 1.05, summary}});
    }
    SQLite::Database db(path, SQLite::OPEN_READONLY);
    for (const std::string& sql : queries) {
        SCOPED_TRACE(sql);
        SQLite::Statement query(db, sql);
        ASSERT_TRUE(query.executeStep()) << "no rows";
        bool anyValue = false;
        for (int c = 0; c < query.getColumnCount(); ++c)
            anyValue = anyValue || !query.getColumn(c).isNull();
        EXPECT_TRUE(anyValue) << "a row of NULLs";
    }
}

} // namespace
} // namespace coh::test

// The run store's study tables (schema 7): a tuning study and the runs behind its points (docs/tuning.md).
#include "core/store/process_probe.h"
#include "core/store/run_record.h"
#include "core/store/run_store.h"
#include "core/store/run_store_guarded.h"
#include "core/store/sql_text.h"

#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>
#include <SQLiteCpp/Transaction.h>
#include <fmt/format.h>

namespace coh::core {

namespace {

constexpr const char* kStudyColumns = "id, name, study_hash, study_json, status, error, created_at, finished_at";

StudyInfo readStudy(SQLite::Statement& q)
{
    StudyInfo s;
    s.id = q.getColumn(0).getInt64();
    s.name = q.getColumn(1).getString();
    s.hash = q.getColumn(2).getString();
    s.json = q.getColumn(3).getString();
    s.status = parseRunStatus(q.getColumn(4).getString()).value_or(RunStatus::Failed);
    s.error = textOrEmpty(q.getColumn(5));
    s.createdAt = q.getColumn(6).getString();
    s.finishedAt = textOrEmpty(q.getColumn(7));
    return s;
}

constexpr const char* kPointColumns = "point_key, params_json, requests, run_id, error, error_kind, capacity_at_slo";

StudyPoint readPoint(SQLite::Statement& q)
{
    StudyPoint p;
    p.key = q.getColumn(0).getString();
    p.paramsJson = q.getColumn(1).getString();
    p.requests = static_cast<std::uint32_t>(q.getColumn(2).getInt64());
    if (!q.getColumn(3).isNull())
        p.runId = q.getColumn(3).getInt64();
    p.error = textOrEmpty(q.getColumn(4));
    const std::string kind = textOrEmpty(q.getColumn(5));
    p.errorKind = kind == "invalid"  ? StudyPointError::Invalid
                  : kind == "failed" ? StudyPointError::Failed
                                     : StudyPointError::None;
    if (!q.getColumn(6).isNull())
        p.capacityAtSlo = q.getColumn(6).getDouble();
    return p;
}

} // namespace

std::int64_t RunStore::openStudy(const std::string& name, const std::string& hash, const std::string& json)
{
    requireWritable("open a study");
    requireSound("open a study");
    return guarded("open a study", [&] {
        SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
        SQLite::Statement find(*m_db, "SELECT id FROM studies WHERE study_hash = ? ORDER BY id DESC LIMIT 1");
        find.bind(1, hash);
        std::int64_t id = 0;
        if (find.executeStep()) {
            id = find.getColumn(0).getInt64();
        } else {
            SQLite::Statement insert(*m_db, "INSERT INTO studies (name, study_hash, study_json, status, created_at) "
                                            "VALUES (?, ?, ?, ?, ?)");
            insert.bind(1, name);
            insert.bind(2, hash);
            insert.bind(3, json);
            insert.bind(4, toString(RunStatus::Running));
            insert.bind(5, utcNow());
            insert.exec();
            id = m_db->getLastInsertRowid();
        }
        // New or resumed: running, by this process.
        const std::int64_t pid = currentProcessId();
        SQLite::Statement running(*m_db, "UPDATE studies SET status = ?, error = NULL, finished_at = NULL, pid = ?, "
                                         "host = ?, process_start = ? WHERE id = ?");
        running.bind(1, toString(RunStatus::Running));
        running.bind(2, pid);
        running.bind(3, currentHostName());
        running.bind(4, processStartToken(pid));
        running.bind(5, id);
        running.exec();
        transaction.commit();
        return id;
    });
}

void RunStore::endStudy(std::int64_t id, RunStatus status, const std::string& error)
{
    requireWritable("end a study");
    guarded("end a study", [&] {
        SQLite::Statement update(*m_db, "UPDATE studies SET status = ?, error = ?, finished_at = ? WHERE id = ?");
        update.bind(1, toString(status));
        if (error.empty())
            update.bind(2);
        else
            update.bind(2, error);
        update.bind(3, utcNow());
        update.bind(4, id);
        update.exec();
    });
}

std::vector<StudyInfo> RunStore::listStudies()
{
    return guarded("list the studies", [&] {
        SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM studies ORDER BY id DESC", kStudyColumns));
        std::vector<StudyInfo> studies;
        while (q.executeStep())
            studies.push_back(readStudy(q));
        return studies;
    });
}

std::optional<StudyInfo> RunStore::studyInfo(std::int64_t id)
{
    return guarded("read a study", [&]() -> std::optional<StudyInfo> {
        SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM studies WHERE id = ?", kStudyColumns));
        q.bind(1, id);
        if (!q.executeStep())
            return std::nullopt;
        return readStudy(q);
    });
}

void RunStore::recordStudyPoint(std::int64_t studyId, const StudyPoint& point)
{
    requireWritable("record a study point");
    guarded("record a study point", [&] { insertStudyPoint(studyId, point); });
}

void RunStore::insertStudyPoint(std::int64_t studyId, const StudyPoint& point)
{
    SQLite::Statement upsert(*m_db, "INSERT OR REPLACE INTO study_points (study_id, point_key, params_json, requests, "
                                    "run_id, error, error_kind, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
    upsert.bind(1, studyId);
    upsert.bind(2, point.key);
    upsert.bind(3, point.paramsJson);
    upsert.bind(4, static_cast<std::int64_t>(point.requests));
    if (point.runId)
        upsert.bind(5, *point.runId);
    else
        upsert.bind(5);
    if (point.error.empty())
        upsert.bind(6);
    else
        upsert.bind(6, point.error);
    if (point.errorKind == StudyPointError::None)
        upsert.bind(7);
    else
        upsert.bind(7, point.errorKind == StudyPointError::Invalid ? "invalid" : "failed");
    upsert.bind(8, utcNow());
    upsert.exec();
}

void RunStore::setStudyPointCapacity(std::int64_t studyId, const std::string& key, double capacity)
{
    requireWritable("record a point's capacity");
    guarded("record a point's capacity", [&] {
        SQLite::Statement q(*m_db, "UPDATE study_points SET capacity_at_slo = ? WHERE study_id = ? AND point_key = ?");
        q.bind(1, capacity);
        q.bind(2, studyId);
        q.bind(3, key);
        q.exec();
    });
}

std::int64_t RunStore::storeStudyRun(std::int64_t studyId, StudyPoint point, const std::string& runName,
                                     const std::string& scenarioJson, std::uint64_t seed, const RunResult& result)
{
    requireWritable("store a study point's run");
    requireSound("store a study point's run");
    return guarded("store a study point's run", [&] {
        SQLite::Transaction transaction(*m_db, SQLite::TransactionBehavior::IMMEDIATE);
        const std::int64_t id = insertRunRow(runName, scenarioJson, seed, "simulated");
        writeCompletedRun(*m_db, id, result, m_completeHook);
        point.runId = id;
        insertStudyPoint(studyId, point);
        transaction.commit();
        return id;
    });
}

std::vector<StudyPoint> RunStore::studyPoints(std::int64_t studyId)
{
    return guarded("read a study's points", [&] {
        SQLite::Statement q(*m_db, fmt::format("SELECT {} FROM study_points WHERE study_id = ? ORDER BY created_at, "
                                               "point_key",
                                               kPointColumns));
        q.bind(1, studyId);
        std::vector<StudyPoint> points;
        while (q.executeStep())
            points.push_back(readPoint(q));
        return points;
    });
}

std::optional<StudyPoint> RunStore::finishedStudyPoint(const std::string& key)
{
    return guarded("look up a study point", [&]() -> std::optional<StudyPoint> {
        SQLite::Statement q(*m_db,
                            fmt::format("SELECT {} FROM study_points p LEFT JOIN runs r ON r.id = p.run_id WHERE "
                                        "p.point_key = ? AND (r.status = 'completed' OR (p.run_id IS NULL AND "
                                        "p.error_kind = 'invalid')) LIMIT 1",
                                        "p.point_key, p.params_json, p.requests, p.run_id, p.error, p.error_kind, "
                                        "p.capacity_at_slo"));
        q.bind(1, key);
        if (!q.executeStep())
            return std::nullopt;
        return readPoint(q);
    });
}

void RunStore::markInterruptedStudies()
{
    SQLite::Statement running(*m_db, "SELECT id, pid, host, process_start FROM studies WHERE status = 'running'");
    std::vector<std::pair<std::int64_t, std::int64_t>> dead; // id, pid
    const std::string host = currentHostName();
    while (running.executeStep()) {
        const std::string studyHost = textOrEmpty(running.getColumn(2));
        if (!studyHost.empty() && studyHost != host)
            continue;
        const std::int64_t pid = running.getColumn(1).getInt64();
        if (!processAlive(pid, textOrEmpty(running.getColumn(3))))
            dead.emplace_back(running.getColumn(0).getInt64(), pid);
    }
    for (const auto& [id, pid] : dead) {
        SQLite::Statement mark(*m_db, "UPDATE studies SET status = 'interrupted', error = ? WHERE id = ? AND "
                                      "status = 'running'");
        mark.bind(1, fmt::format("the process that ran it (pid {}) ended before the study finished; run the study "
                                 "again to resume it",
                                 pid));
        mark.bind(2, id);
        mark.exec();
    }
}

} // namespace coh::core

#pragma once
// The run database: every run's metadata, summary and full RunResult in one SQLite file, so the CLI, the GUI
// and reports can list, compare, export and replay runs. One RunStore is one connection; use it from one
// thread at a time (open another RunStore for another thread or process; WAL mode lets them share the file).
#include "core/engine/run_result.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace SQLite {
class Database;
}

namespace coh::core {

// A run's life: Running until completeRun (Completed) or failRun (Failed, Cancelled). A Running row whose
// process died is marked Interrupted the next time any RunStore opens the file.
enum class RunStatus { Running, Completed, Failed, Cancelled, Interrupted };
const char* toString(RunStatus);
std::optional<RunStatus> parseRunStatus(std::string_view text);

// One row of the run list: metadata plus the summary columns it is sorted and shown by.
struct RunInfo {
    std::int64_t id = 0;
    std::string name;
    std::string scenarioName;
    std::uint64_t seed = 0;
    std::string version; // Coherence Studio version that made the run
    std::string backend; // "simulated", "real-cpu", ...
    RunStatus status = RunStatus::Running;
    std::string error;      // why it failed, was cancelled or interrupted
    std::string createdAt;  // ISO-8601 UTC, e.g. 2024-05-01T12:34:56Z
    std::string finishedAt; // empty until the run ends
    std::int64_t pid = 0;   // process that ran it
    std::string host;       // host that process ran on

    bool hasSummary = false; // the fields below are zero until the run completes
    std::uint64_t requests = 0;
    double ttftP50Ms = 0, ttftP99Ms = 0, tpotP50Ms = 0, tpotP99Ms = 0;
    double throughputTokensPerSec = 0;
    double goodputRequestsPerSec = 0;
    std::uint64_t events = 0;
    double wallSeconds = 0;
    std::uint64_t messagesTotal = 0;
};

class RunStore {
  public:
    // Opens or creates the database at `path` and migrates it to the current schema. Throws InputError naming
    // the file when it cannot be opened, is not a run database (or is corrupt), or is newer than this build.
    explicit RunStore(const std::string& path);
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    const std::string& path() const { return m_path; }

    // Records a run as Running (committed at once, with this process's pid) and returns its id.
    std::int64_t beginRun(const std::string& name, const std::string& scenarioJson, std::uint64_t seed,
                          const std::string& backend = "simulated");
    // Stores everything in `result` and marks the run Completed, in one transaction: on any error nothing is
    // written and the run stays Running. Throws InputError when the run does not exist or is not Running.
    void completeRun(std::int64_t id, const RunResult& result);
    // Ends a Running run as Failed, Cancelled or Interrupted with a reason. Throws like completeRun.
    void failRun(std::int64_t id, RunStatus status, const std::string& error);

    std::vector<RunInfo> listRuns(); // newest first
    std::optional<RunInfo> runInfo(std::int64_t id);
    std::optional<RunSummary> runSummary(std::int64_t id); // nullopt when absent or not completed
    std::optional<std::string> scenarioJson(std::int64_t id);
    // The full RunResult as completeRun stored it. Throws InputError when there is no such run.
    RunResult loadRun(std::int64_t id);
    // What `runs show` prints of a completed run besides its summary: the blocks held per node and protocol
    // state, with the node ids and bucket width that give them meaning (nothing else of the run is read).
    struct NodeBlocks {
        std::vector<NodeBlocksSeries> series;
        std::vector<std::string> nodeIds;
        SimTime linkInterval = 0;
    };
    NodeBlocks nodeBlocks(std::int64_t id);

    bool deleteRun(std::int64_t id); // false when there was no such run
    bool renameRun(std::int64_t id, const std::string& name);

    // Called by completeRun between its steps ("requests", "link_series", "messages", "summary") inside the
    // transaction; a hook that throws lets tests prove the rollback.
    void setCompleteHookForTesting(std::function<void(std::string_view step)> hook)
    {
        m_completeHook = std::move(hook);
    }

  private:
    void configureConnection();
    void markInterruptedRuns();
    void requireRunning(std::int64_t id);
    [[noreturn]] void throwNoSuchRun(std::int64_t id) const;

    std::string m_path;
    std::unique_ptr<SQLite::Database> m_db;
    std::function<void(std::string_view)> m_completeHook;
};

} // namespace coh::core

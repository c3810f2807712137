#pragma once
// The run database: every run's metadata, summary and full RunResult in one SQLite file, so the CLI, the GUI
// and reports can list, compare, export and replay runs. One RunStore is one connection; use it from one
// thread at a time (open another RunStore for another thread or process; WAL mode lets them share the file).
// What it guarantees on corruption, locks and kills: docs/run-store.md.
#include "core/engine/run_result.h"
#include "core/store/cost_variant.h"

#include <chrono>
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
    // The protocols the scenario asked for (its "coherence" section): decode's, prefill's (the prefix pool's)
    // and one per memory tier that names one ("cxl: sealed-lease, dram: msi-directory"; empty when none).
    std::string decodeProtocol = "direct";
    std::string prefillProtocol = "direct";
    std::string tierProtocols;
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
    std::uint64_t messages = 0; // protocol messages, per block (traffic_counts.h)
    std::uint64_t flows = 0;    // network flows that crossed a link
    // A simulated run of `cohsim compare-real`: the real run it models (its simulator's error is taken against
    // that run's figures); 0 for every other run.
    std::int64_t modelsRun = 0;
};

// A tuning study (docs/tuning.md): a study file's canonical JSON and how its last execution ended. Its points are
// runs of this store, linked through StudyPoint.
struct StudyInfo {
    std::int64_t id = 0;
    std::string name;
    std::string hash; // of the canonical study JSON: running the same study again resumes this row
    std::string json;
    RunStatus status = RunStatus::Running;
    std::string error;
    std::string createdAt, finishedAt;
};

// Why a study point has no run: its scenario is invalid (final: it is never tried again), or its run failed here
// (a trace that could not be read, memory: a later execution tries it again).
enum class StudyPointError { None, Invalid, Failed };

// One evaluated point of a study: the values it gave the varied fields and the run that measured it, or why it
// has none. `key` identifies the resolved scenario (with its request limit), so identical points share a key.
struct StudyPoint {
    std::string key;
    std::string paramsJson;
    std::uint32_t requests = 0; // the request limit it ran with; 0: the scenario's own
    std::optional<std::int64_t> runId;
    std::string error;
    StudyPointError errorKind = StudyPointError::None;
    // A capacity study's chosen run: the capacity its point's search found (x the base scenario's load; 0 when even
    // the lightest load missed the attainment). None for other points and for probes the search did not choose.
    std::optional<double> capacityAtSlo;
};

// How a RunStore waits for other processes and what it agrees to open.
struct RunStoreOptions {
    // How long a statement waits for another connection's lock before it fails as "locked by another process".
    std::chrono::milliseconds busyTimeout{60'000};
    // Told once per wait, when a statement first finds the database locked (the text names the file and how
    // long it will wait). cohsim prints it on stderr.
    std::function<void(const std::string& message)> onLockWait;
    // Polled while waiting for a lock; true stops the wait at once (cohsim: a second Ctrl-C).
    std::function<bool()> stopWaiting;
    // Open a file whose check at open found corruption, to read what can still be read; writes stay refused.
    bool readCorrupt = false;
};

class RunStore {
  public:
    // Opens or creates the database at `path` and migrates it to the current schema. Before anything is written
    // the file is identified (db_identity.h) and checked (PRAGMA quick_check); then results left pending by an
    // earlier process are stored and runs of dead processes are marked Interrupted. Throws InputError naming the
    // file and the fix when it cannot be opened, is not a run database, is corrupt (unless
    // options.readCorrupt), or is newer than this build. A read-only file or folder opens for reading.
    explicit RunStore(const std::string& path, RunStoreOptions options = {});
    ~RunStore();
    RunStore(const RunStore&) = delete;
    RunStore& operator=(const RunStore&) = delete;

    const std::string& path() const { return m_path; }

    // The file or its folder cannot be written: reading works, every write throws InputError saying why.
    bool readOnly() const { return m_readOnly; }
    // What the check at open found wrong (empty: nothing). Non-empty only with options.readCorrupt.
    const std::vector<std::string>& corruption() const { return m_corruption; }
    // What opening did that the user should hear of: results stored from pending files, pending files that
    // could not be stored (and why), maintenance skipped because another process held the lock.
    const std::vector<std::string>& notices() const { return m_notices; }
    // The full check (PRAGMA integrity_check and foreign_key_check): every problem found, at most `limit`;
    // empty when the file is sound. Reads every page: seconds for a large file.
    std::vector<std::string> checkIntegrity(int limit = 100);

    // Records a run as Running (committed at once, with this process's pid) and returns its id.
    std::int64_t beginRun(const std::string& name, const std::string& scenarioJson, std::uint64_t seed,
                          const std::string& backend = "simulated");
    // Stores everything in `result` and marks the run Completed, in one transaction: on any error nothing is
    // written and the run stays Running. Throws InputError when the run does not exist or is not Running. When
    // the database cannot take it (locked past the busy timeout, disk full, ...) the result is first kept in a
    // pending file (pending_results.h) that the next open stores, and the error says where it is.
    void completeRun(std::int64_t id, const RunResult& result);
    // Ends a Running run as Failed, Cancelled or Interrupted with a reason. Throws like completeRun, and when the
    // run's finished result is waiting in a pending file (the result wins).
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

    // Studies. openStudy returns the newest study with `hash` (set Running again, so an interrupted or cancelled
    // study resumes) or records a new one. A Running study found at open belongs to no live process (only one
    // writer runs a study) and reads as Interrupted until it is opened again.
    std::int64_t openStudy(const std::string& name, const std::string& hash, const std::string& json);
    void endStudy(std::int64_t id, RunStatus status, const std::string& error = {});
    std::vector<StudyInfo> listStudies(); // newest first
    std::optional<StudyInfo> studyInfo(std::int64_t id);
    // Records (or replaces) a point of a study, in one statement.
    void recordStudyPoint(std::int64_t studyId, const StudyPoint& point);
    // Marks the point `key` of the study as the run its capacity search chose, at `capacity`.
    void setStudyPointCapacity(std::int64_t studyId, const std::string& key, double capacity);
    // Stores a finished simulation of a study's point as a completed run and links it to the point, in one
    // transaction: a kill leaves the point whole or absent. Returns the run's id.
    std::int64_t storeStudyRun(std::int64_t studyId, StudyPoint point, const std::string& runName,
                               const std::string& scenarioJson, std::uint64_t seed, const RunResult& result);
    std::vector<StudyPoint> studyPoints(std::int64_t studyId);
    // A point with `key` in any study whose run completed, or whose scenario is invalid (running it again cannot
    // mend that): what makes identical points run once.
    std::optional<StudyPoint> finishedStudyPoint(const std::string& key);

    bool deleteRun(std::int64_t id); // false when there was no such run; deletes its pending file too
    bool renameRun(std::int64_t id, const std::string& name);
    // Records that run `simulated` models the real run `real` (RunInfo::modelsRun); throws InputError when either
    // is missing. modelsOf: the runs that model `real`, newest first.
    void setModelsRun(std::int64_t simulated, std::int64_t real);
    std::vector<std::int64_t> modelsOf(std::int64_t real);
    // What the simulator gave on other costs than a model's profile (cost_variant.h), kept with `run`: the real run
    // for its own costs, its model for moved costs. One transaction; a variant of the same kind and factor is
    // replaced. Throws InputError when the run does not exist.
    void storeCostVariants(std::int64_t run, const std::vector<CostVariant>& variants);
    // The run's: own costs first, then moved costs by factor; none for a run stored without them.
    std::vector<CostVariant> costVariants(std::int64_t run);

    // Called by completeRun between its steps ("requests", "link_series", "messages", "summary") inside the
    // transaction; a hook that throws lets tests prove the rollback.
    void setCompleteHookForTesting(std::function<void(std::string_view step)> hook)
    {
        m_completeHook = std::move(hook);
    }

  private:
    struct BusyContext; // what the busy handler knows: the options, and how long the last wait lasted
    static int onBusy(void* context, int count);
    void openConnection(bool create);
    void openImmutable();
    void requireCurrentSchema();
    std::vector<std::string> quickCheck(const char* table); // nullptr: every table
    void foundCorruption(std::vector<std::string> problems);
    // listRuns when one row is damaged: every run whose row reads, and a Failed "(damaged)" entry for each other.
    std::vector<RunInfo> listRunsRowByRow();
    void checkAtOpen();
    bool checkSound(); // the full check, once per connection; false when the file is corrupt
    void requireSound(const std::string& doing);
    void doMaintenance();
    void importPendingResults();
    void markInterruptedRuns();
    void markInterruptedStudies();
    void requireWritable(const std::string& doing) const;
    std::int64_t insertRunRow(const std::string& name, const std::string& scenarioJson, std::uint64_t seed,
                              const std::string& backend);
    void insertStudyPoint(std::int64_t studyId, const StudyPoint& point);
    void requireRunning(std::int64_t id);
    [[noreturn]] void throwNoSuchRun(std::int64_t id) const;
    template <class F> decltype(auto) guarded(const std::string& doing, F&& f);

    std::string m_path;
    RunStoreOptions m_options;
    std::unique_ptr<SQLite::Database> m_db;
    std::function<void(std::string_view)> m_completeHook;
    std::unique_ptr<BusyContext> m_busy;
    bool m_readOnly = false;
    std::vector<std::string> m_corruption;
    bool m_fullyChecked = false; // a full quick_check found this connection's file sound
    std::vector<std::string> m_notices;
};

} // namespace coh::core

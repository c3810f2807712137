#pragma once
// What the ranks of cohsim-tune-mpi say to each other (Boost.MPI with Boost.Serialization): rank 0 sends a point's
// resolved scenario, a worker rank answers with the finished run in the run store's own format (run_bytes.h).
#include <boost/serialization/string.hpp>

#include <cstdint>
#include <string>

namespace coh::mpi {

enum Tag : int { kTask = 1, kReply = 2, kStop = 3 };

struct TaskMessage {
    std::uint64_t task = 0;
    std::string scenarioJson; // the resolved scenario, as Scenario::json
    std::string sourcePath;   // where its relative paths (the trace) are resolved: the same file system on every rank

    template <class Archive> void serialize(Archive& ar, unsigned /*version*/) { ar& task& scenarioJson& sourcePath; }
};

struct ReplyMessage {
    std::uint64_t task = 0;
    std::string error;    // the run (or reading its scenario) threw
    std::string runBytes; // encodeRunResult of the finished run
    double wallSeconds = 0;

    template <class Archive> void serialize(Archive& ar, unsigned /*version*/)
    {
        ar& task& error& runBytes& wallSeconds;
    }
};

} // namespace coh::mpi

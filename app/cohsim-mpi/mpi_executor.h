#pragma once
// The tuner's PointExecutor over MPI: rank 0 (the study's one writer) hands each point to an idle worker rank and
// stores what comes back; every other rank serves points until told to stop (serveTasks).
#include "core/tune/point_executor.h"

#include <boost/mpi/communicator.hpp>

namespace coh::mpi {

class MpiExecutor final : public core::PointExecutor {
  public:
    explicit MpiExecutor(boost::mpi::communicator& world);
    unsigned concurrency() const override;
    // A cancel (`halt`) sends no new points; the ranks' running points finish and are stored.
    void run(const std::vector<core::PointTask>& tasks, const std::function<void(core::PointTaskResult&)>& finished,
             const std::function<void()>& idle, std::atomic<bool>& halt) override;
    // Tells every worker rank to leave serveTasks.
    void stopWorkers();

  private:
    boost::mpi::communicator& m_world;
};

// A worker rank's loop: run each point rank 0 sends, answer with its result, until rank 0 says stop.
void serveTasks(boost::mpi::communicator& world);

} // namespace coh::mpi

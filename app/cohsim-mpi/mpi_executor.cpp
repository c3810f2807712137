#include "app/cohsim-mpi/mpi_executor.h"

#include "app/cohsim-mpi/mpi_messages.h"
#include "core/scenario/scenario_loader.h"
#include "core/store/run_bytes.h"

#include <boost/mpi/status.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

namespace coh::mpi {

MpiExecutor::MpiExecutor(boost::mpi::communicator& world)
    : m_world(world)
{
}

unsigned MpiExecutor::concurrency() const
{
    return static_cast<unsigned>(m_world.size() - 1);
}

void MpiExecutor::run(const std::vector<core::PointTask>& tasks,
                      const std::function<void(core::PointTaskResult&)>& finished, const std::function<void()>& idle,
                      std::atomic<bool>& halt)
{
    std::vector<int> idleRanks;
    for (int rank = m_world.size() - 1; rank >= 1; --rank)
        idleRanks.push_back(rank);
    std::size_t next = 0, inFlight = 0;
    auto lastIdle = std::chrono::steady_clock::now();
    const auto receive = [&](const boost::mpi::status& status) {
        ReplyMessage reply;
        m_world.recv(status.source(), kReply, reply);
        idleRanks.push_back(status.source());
        --inFlight;
        return reply;
    };
    try {
        while (true) {
            while (!halt.load() && next < tasks.size() && !idleRanks.empty()) {
                const core::Scenario& scenario = *tasks[next].scenario;
                m_world.send(idleRanks.back(), kTask, TaskMessage{next, scenario.json, scenario.sourcePath});
                idleRanks.pop_back();
                ++next;
                ++inFlight;
            }
            if (inFlight == 0)
                break;
            if (const auto status = m_world.iprobe(boost::mpi::any_source, kReply)) {
                const ReplyMessage reply = receive(*status);
                core::PointTaskResult result;
                result.task = reply.task;
                result.error = reply.error;
                if (reply.error.empty()) {
                    result.result = std::make_unique<core::RunResult>(core::decodeRunResult(reply.runBytes));
                    // The rank's own wall time: what the run cost, not the trip through MPI.
                    result.result->summary.wallSeconds = reply.wallSeconds;
                }
                finished(result);
                continue;
            }
            if (std::chrono::steady_clock::now() - lastIdle >= std::chrono::milliseconds(50)) {
                idle();
                lastIdle = std::chrono::steady_clock::now();
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
    } catch (...) {
        // The ranks still running a point will send its reply; take them all, so that no rank blocks in a send
        // while rank 0 finalizes, then let the error through.
        halt = true;
        while (inFlight > 0)
            receive(m_world.probe(boost::mpi::any_source, kReply));
        throw;
    }
}

void MpiExecutor::stopWorkers()
{
    for (int rank = 1; rank < m_world.size(); ++rank)
        m_world.send(rank, kStop);
}

void serveTasks(boost::mpi::communicator& world)
{
    core::WorkloadCache workloads;
    const std::atomic<bool> never{false};
    while (true) {
        const boost::mpi::status status = world.probe(0, boost::mpi::any_tag);
        if (status.tag() == kStop) {
            world.recv(0, kStop);
            return;
        }
        TaskMessage task;
        world.recv(0, kTask, task);
        ReplyMessage reply;
        reply.task = task.task;
        try {
            const core::Scenario scenario =
                core::parseScenario(nlohmann::json::parse(task.scenarioJson), task.sourcePath);
            const core::PointTaskResult ran = core::runPointTask(scenario, *workloads.workloadFor(scenario), never);
            reply.error = ran.error;
            if (ran.result) {
                reply.wallSeconds = ran.result->summary.wallSeconds;
                reply.runBytes = core::encodeRunResult(*ran.result);
            }
        } catch (const std::exception& e) {
            reply.error = e.what();
        }
        world.send(0, kReply, reply);
    }
}

} // namespace coh::mpi

// Link failures in the serving engine: a link loses no KV and takes no request, so the network does all the work
// (core/net/flow_network_faults.cpp): the messages crossing the link stop, and go again once the monitor declares it
// down (over a route around it) or once it is back. Requests only wait, and the coherence stalls show the wait.
#include "core/serving/serving_engine.h"
#include "core/serving/serving_events.h"

namespace coh::core {

using namespace serving_event;

void ServingEngine::onLinkFail(std::uint32_t entry)
{
    if (allAccounted())
        return; // nothing left to slow down: random failures end with the run
    const std::int64_t made = m_failures->fail(m_sim, entry, FailureDetect, FailureRepair, Failure);
    if (made >= 0)
        m_transport->linkFailed(m_failures->linkOf(static_cast<std::uint32_t>(made)));
}

void ServingEngine::onLinkFailureDetected(std::uint32_t record)
{
    m_transport->linkDetected(m_failures->linkOf(record));
}

void ServingEngine::onLinkRepair(std::uint32_t record)
{
    m_failures->repair(m_sim, record, Failure, allAccounted());
    m_transport->linkRepaired(m_failures->linkOf(record));
}

} // namespace coh::core

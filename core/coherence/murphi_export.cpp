// The frame of the Murphi model: declarations, the network (one array kept in the explorer's canonical order),
// the start state and the invariants. The table-derived parts come from MurphiTableWriter.
#include "core/coherence/murphi_export.h"

#include "core/base/input_error.h"
#include "core/coherence/murphi_names.h"
#include "core/coherence/murphi_tables.h"

#include <fmt/format.h>

#include <vector>

namespace coh::core::coherence {

namespace {

class MurphiFrame {
  public:
    MurphiFrame(const Protocol& protocol, const MurphiOptions& options, std::string& out)
        : m_protocol(protocol)
        , m_options(options)
        , m_names(protocol)
        , m_out(out)
    {
    }

    void write()
    {
        writeHeader();
        writeDeclarations();
        writeNetwork();
        MurphiTableWriter tables(m_protocol, m_names, m_out);
        tables.writeFunctions();
        writeStartState();
        tables.writeRules();
        writeInvariants();
    }

  private:
    void line(int indent, std::string_view text) { appendMurphiLine(m_out, indent, text); }
    void lines(std::initializer_list<std::string_view> text)
    {
        for (std::string_view t : text)
            line(0, t);
    }
    std::string enumOf(const std::vector<std::string>& names) const
    {
        std::string out;
        for (const std::string& n : names)
            out += (out.empty() ? "" : ", ") + n;
        return "enum { " + out + " };";
    }

    void writeNameMap(bool directory);
    void writeHeader();
    void writeDeclarations();
    void writeNetwork();
    void writeStartState();
    void writeInvariants();

    const Protocol& m_protocol;
    MurphiOptions m_options;
    MurphiNames m_names;
    std::string& m_out;
};

void MurphiFrame::writeNameMap(bool directory)
{
    const ControllerTable& t = directory ? m_protocol.directory : m_protocol.cache;
    for (std::size_t s = 0; s < t.states.size(); ++s)
        line(0, fmt::format("--   {} state {} = {}", t.name, m_names.state(directory, static_cast<int>(s)),
                            t.states[s].name));
    for (std::size_t e = 0; e < t.events.size(); ++e)
        line(0, fmt::format("--   {} event {} = {}", t.name, m_names.event(directory, static_cast<int>(e)),
                            t.events[e].name));
}

void MurphiFrame::writeHeader()
{
    line(0, fmt::format("-- {}: {}", m_protocol.name, m_protocol.title));
    line(0, fmt::format("-- Generated from the protocol tables by `cohsim export-murphi --protocol {} --caches {}`.",
                        m_protocol.name, m_options.caches));
    lines({"-- Mirrors the C++ interpreter (core/coherence/block_system.cpp) and the explorer's canonical state",
           "-- encoding, so a clean protocol gives the same state count as `cohsim verify`. Check it with Rumur:",
           "--   rumur --output model.c model.m && cc -O2 -mcx16 model.c -lpthread -o model && ./model",
           "-- Names: caches are nodes 0..NCACHES-1, the home (directory or bus) is node DIR (= NCACHES)."});
    for (std::size_t m = 0; m < m_protocol.messages.size(); ++m) {
        const MessageType& type = m_protocol.messages[m];
        line(0, fmt::format("--   message {} = {} ({} network{}{})", m_names.message(static_cast<int>(m)), type.name,
                            networkName(type.network),
                            m_protocol.ordered[static_cast<int>(type.network)] ? ", point-to-point FIFO" : "",
                            type.carriesData ? ", carries data" : ""));
    }
    writeNameMap(false);
    writeNameMap(true);
    line(0, "");
}

void MurphiFrame::writeDeclarations()
{
    std::vector<std::string> cacheStates, dirStates, messages, cacheEvents, dirEvents;
    for (std::size_t s = 0; s < m_protocol.cache.states.size(); ++s)
        cacheStates.push_back(m_names.state(false, static_cast<int>(s)));
    for (std::size_t s = 0; s < m_protocol.directory.states.size(); ++s)
        dirStates.push_back(m_names.state(true, static_cast<int>(s)));
    for (std::size_t m = 0; m < m_protocol.messages.size(); ++m)
        messages.push_back(m_names.message(static_cast<int>(m)));
    for (std::size_t e = 0; e < m_protocol.cache.events.size(); ++e)
        cacheEvents.push_back(m_names.event(false, static_cast<int>(e)));
    cacheEvents.push_back(m_names.unclassified(false));
    for (std::size_t e = 0; e < m_protocol.directory.events.size(); ++e)
        dirEvents.push_back(m_names.event(true, static_cast<int>(e)));
    dirEvents.push_back(m_names.unclassified(true));

    line(0, "const");
    line(1, fmt::format("NCACHES: {};", m_options.caches));
    line(1, "DIR: NCACHES;          -- node id of the directory (home)");
    line(1, "NO_OWNER: NCACHES + 1; -- the directory's owner field when no cache owns the block");
    line(1,
         fmt::format("MAXMSG: {};            -- capacity of the network (messages in flight)", m_options.maxMessages));
    line(0, "");
    line(0, "type");
    lines({"  CacheId: 0..NCACHES-1;", "  NodeId: 0..NCACHES;", "  OwnerId: 0..NCACHES+1;"});
    if (m_protocol.consistency == Consistency::Strong)
        line(1, "Value: 0..1;                -- two values tell a stale copy from the latest write");
    else
        line(1, fmt::format("Value: 0..{};                -- versions mod {}: a copy's distance from the latest",
                            m_protocol.modelValues() - 1, m_protocol.modelValues()));
    lines({"  AckCount: -NCACHES..NCACHES; -- negative: Inv-Acks that beat the Data", "  MsgIndex: 0..MAXMSG-1;",
           "  NetworkId: 0..2;            -- request, forward, response"});
    line(1, "CacheState: " + enumOf(cacheStates));
    line(1, "DirState: " + enumOf(dirStates));
    line(1, "MsgType: " + enumOf(messages));
    line(1, "CacheEvent: " + enumOf(cacheEvents));
    line(1, "DirEvent: " + enumOf(dirEvents));
    lines({"  Msg: record", "    mtype: MsgType; src: NodeId; dst: NodeId;",
           "    req: NodeId;      -- the cache whose request this message serves",
           "    acks: AckCount; hasData: boolean; val: Value; -- val is 0 when the message carries no data", "  end;",
           "  CacheLine: record state: CacheState; dataValid: boolean; val: Value; acks: AckCount; end;",
           "  DirEntry: record state: DirState; owner: OwnerId; sharers: array [CacheId] of boolean; memory: Value; "
           "end;",
           "", "var", "  cache: array [CacheId] of CacheLine;", "  dir: DirEntry;",
           "  net: array [MsgIndex] of Msg; -- in flight, in canonical order; slots from netCount on are undefined",
           "  netCount: 0..MAXMSG;", "  lastWrite: Value;             -- ghost: the value of the last performed store",
           ""});
}

void MurphiFrame::writeNetwork()
{
    std::vector<std::string> byNetwork[kVirtualNetworks];
    std::vector<std::string> ordered;
    for (std::size_t m = 0; m < m_protocol.messages.size(); ++m) {
        const int net = static_cast<int>(m_protocol.messages[m].network);
        byNetwork[net].push_back(m_names.message(static_cast<int>(m)));
        if (m_protocol.ordered[net])
            ordered.push_back(m_names.message(static_cast<int>(m)));
    }
    line(0, "function vnet(t: MsgType): NetworkId;");
    line(0, "begin");
    line(1, "switch t");
    for (int n = 0; n < kVirtualNetworks; ++n) {
        std::string list;
        for (const std::string& m : byNetwork[n])
            list += (list.empty() ? "" : ", ") + m;
        if (!list.empty())
            line(1, fmt::format("case {}: return {};", list, n));
    }
    line(1, "endswitch;");
    line(1, "return 0;");
    line(0, "end;");
    line(0, "");
    line(0, "-- Messages on a network the protocol marks ordered keep point-to-point (src, dst) FIFO order.");
    line(0, "function ordered(t: MsgType): boolean;");
    line(0, "begin");
    std::string test;
    for (const std::string& m : ordered)
        test += (test.empty() ? "" : " | ") + ("t = " + m);
    line(1, "return " + (test.empty() ? std::string("false") : test) + ";");
    line(0, "end;");
    line(0, "");
    line(0, "function typeRank(t: MsgType): 0..255;");
    line(0, "begin");
    line(1, "switch t");
    for (std::size_t m = 0; m < m_protocol.messages.size(); ++m)
        line(1, fmt::format("case {}: return {};", m_names.message(static_cast<int>(m)), m));
    line(1, "endswitch;");
    line(1, "return 0;");
    line(0, "end;");
    line(0, "");
    lines({
        "-- The explorer's canonical order (state_codec.cpp): by (network, src, dst); inside an ordered channel",
        "-- send order, elsewhere by content. Keeping the array sorted makes equal network contents one state.",
        "function msgBefore(a: Msg; b: Msg): boolean;",
        "begin",
        "  if vnet(a.mtype) != vnet(b.mtype) then return vnet(a.mtype) < vnet(b.mtype) end;",
        "  if a.src != b.src then return a.src < b.src end;",
        "  if a.dst != b.dst then return a.dst < b.dst end;",
        "  if ordered(a.mtype) then return false end;",
        "  if a.mtype != b.mtype then return typeRank(a.mtype) < typeRank(b.mtype) end;",
        "  if a.req != b.req then return a.req < b.req end;",
        "  if a.acks != b.acks then return a.acks < b.acks end;",
        "  if a.hasData != b.hasData then return b.hasData end;",
        "  return a.val < b.val;",
        "end;",
        "",
        "procedure netSend(t: MsgType; src: NodeId; dst: NodeId; req: NodeId; acks: AckCount; hasData: boolean;",
        "                  v: Value);",
        "var m: Msg; i: 0..MAXMSG;",
        "begin",
        "  if netCount = MAXMSG then error \"more messages in flight than MAXMSG: export with a larger "
        "--max-messages\" end;",
        "  m.mtype := t; m.src := src; m.dst := dst; m.req := req; m.acks := acks; m.hasData := hasData; m.val := v;",
        "  i := netCount;",
        "  while i > 0 & msgBefore(m, net[i - 1]) do",
        "    net[i] := net[i - 1];",
        "    i := i - 1;",
        "  end;",
        "  net[i] := m;",
        "  netCount := netCount + 1;",
        "end;",
        "",
        "procedure netRemove(i: MsgIndex);",
        "begin",
        "  for j: MsgIndex do",
        "    if j >= i & j + 1 < netCount then net[j] := net[j + 1] end;",
        "  end;",
        "  netCount := netCount - 1;",
        "  undefine net[netCount];",
        "end;",
        "",
        "-- In canonical order a channel's messages are adjacent, so an older one on it sits just before.",
        "function deliverable(i: MsgIndex): boolean;",
        "begin",
        "  if i >= netCount then return false end;",
        "  if i = 0 | !ordered(net[i].mtype) then return true end;",
        "  return !(vnet(net[i - 1].mtype) = vnet(net[i].mtype) & net[i - 1].src = net[i].src",
        "           & net[i - 1].dst = net[i].dst);",
        "end;",
        "",
        "-- A node id that is the directory (or no owner) is in no sharer set, as in the interpreter.",
        "procedure setSharer(n: OwnerId; b: boolean);",
        "begin",
        "  if n < NCACHES then dir.sharers[n] := b end;",
        "end;",
        "",
        "function otherSharers(n: NodeId): boolean;",
        "begin",
        "  return exists k: CacheId do dir.sharers[k] & k != n end;",
        "end;",
        "",
        "function anySharer(): boolean;",
        "begin",
        "  return exists k: CacheId do dir.sharers[k] end;",
        "end;",
        "",
        "function sharersExcept(n: NodeId): AckCount;",
        "var count: AckCount;",
        "begin",
        "  count := 0;",
        "  for k: CacheId do",
        "    if dir.sharers[k] & k != n then count := count + 1 end;",
        "  end;",
        "  return count;",
        "end;",
        "",
    });
}

void MurphiFrame::writeStartState()
{
    line(0, "startstate \"every controller in its initial state, nothing in flight\"");
    line(0, "begin");
    line(1, "for c: CacheId do");
    line(2, "cache[c].state := " + m_names.state(false, m_protocol.cache.initial) + ";");
    line(2, "cache[c].dataValid := false; cache[c].val := 0; cache[c].acks := 0;");
    line(1, "end;");
    line(1, "dir.state := " + m_names.state(true, m_protocol.directory.initial) + ";");
    line(1, "dir.owner := NO_OWNER;");
    line(1, "for c: CacheId do dir.sharers[c] := false end;");
    line(1, "dir.memory := 0;");
    line(1, "undefine net;");
    line(1, "netCount := 0;");
    line(1, "lastWrite := 0;");
    line(0, "end;");
    line(0, "");
}

void MurphiFrame::writeInvariants()
{
    if (m_protocol.consistency == Consistency::Strong)
        lines({
            "-- Single writer or multiple readers: a cache with write permission excludes any other access.",
            "invariant \"SWMR\"",
            "  forall a: CacheId do",
            "    canWrite(cache[a].state) ->",
            "      forall b: CacheId do b = a | (!canWrite(cache[b].state) & !readOnly(cache[b].state)) end",
            "  end;",
            "",
        });
    else
        lines({
            "-- Bounded staleness: replicas read while the writer writes, but there is at most one writer.",
            "invariant \"single writer\"",
            "  forall a: CacheId do",
            "    canWrite(cache[a].state) -> forall b: CacheId do b = a | !canWrite(cache[b].state) end",
            "  end;",
            "",
        });
    lines({
        "-- The latest written value survives in memory, a valid cache copy or an in-flight data message.",
        "invariant \"no lost write\"",
        "  dir.memory = lastWrite",
        "  | (exists c: CacheId do cache[c].dataValid & cache[c].val = lastWrite end)",
        "  | (exists i: MsgIndex do i < netCount & net[i].hasData & net[i].val = lastWrite end);",
        "",
        "invariant \"ack counters settled\"",
        "  forall c: CacheId do !cacheStable(cache[c].state) | cache[c].acks = 0 end;",
        "",
        "-- As the explorer defines it: unless the block is quiescent, some message can be delivered.",
        "invariant \"no deadlock\"",
        "  (netCount = 0 & dirStable(dir.state) & (forall c: CacheId do cacheStable(cache[c].state) end))",
        "  | (exists i: MsgIndex do deliverable(i) & !stalled(net[i]) end);",
    });
}

} // namespace

std::string exportMurphi(const Protocol& protocol, const MurphiOptions& options)
{
    MurphiOptions o = options;
    std::vector<InputProblem> problems;
    if (o.caches < 1 || o.caches > kMaxCaches)
        problems.push_back({"", "--caches", fmt::format("{} caches is out of range", o.caches),
                            fmt::format("use 1 to {} (Rumur checks 3 in seconds)", kMaxCaches)});
    if (o.maxMessages == 0)
        o.maxMessages = 3 * o.caches;
    if (o.maxMessages < 1 || o.maxMessages > 255)
        problems.push_back({"", "--max-messages", fmt::format("{} messages is out of range", o.maxMessages),
                            "use 1 to 255, or 0 for 3 per cache"});
    if (!problems.empty())
        throw InputError(std::move(problems));

    std::string out;
    MurphiFrame(protocol, o, out).write();
    return out;
}

} // namespace coh::core::coherence

#pragma once
// Writes a ControllerTable by name, so protocol files read like the textbook tables:
//   c.on("I", "Load", {c.send("GetS", Target::Dir)}, "IS^D", "{self} has no copy, so it asks ...");
// Names are resolved and every entry is checked when the table is built; a mistake in a table is a
// programming error (std::logic_error naming the protocol, state and event), never silent.
#include "core/coherence/protocol_table.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace coh::core::coherence {

// Actions that take no operand, for table rows.
namespace act {
inline constexpr Action load{ActionKind::PerformLoad};
inline constexpr Action store{ActionKind::PerformStore};
inline constexpr Action copyData{ActionKind::CopyDataFromMessage};
inline constexpr Action addAcks{ActionKind::AddAcksFromMessage};
inline constexpr Action decAcks{ActionKind::DecrementAcks};
inline constexpr Action addReqToSharers{ActionKind::AddRequestorToSharers};
inline constexpr Action addOwnerToSharers{ActionKind::AddOwnerToSharers};
inline constexpr Action removeReqFromSharers{ActionKind::RemoveRequestorFromSharers};
inline constexpr Action clearSharers{ActionKind::ClearSharers};
inline constexpr Action setOwnerToReq{ActionKind::SetOwnerToRequestor};
inline constexpr Action clearOwner{ActionKind::ClearOwner};
inline constexpr Action writeMemory{ActionKind::WriteMemoryFromMessage};
inline constexpr Action loadAtHome{ActionKind::PerformLoadAtHome};
inline constexpr Action storeAtHome{ActionKind::PerformStoreAtHome};
inline constexpr Action completeLoad{ActionKind::CompleteLoad};
inline constexpr Action completeStore{ActionKind::CompleteStore};
} // namespace act

class TableBuilder {
  public:
    // `protocol` supplies the message types (declare them first) and names errors.
    TableBuilder(const Protocol& protocol, bool isDirectory);
    // Reopens a built table to amend it (bug-hunt variants replace single entries).
    TableBuilder(const Protocol& protocol, const ControllerTable& existing);

    void state(std::string name, bool stable, Permission permission, bool holdsData, std::string meaning);
    // The declared state holds its copy under a lease that expires (a stable, readable state).
    void leased(const std::string& state);
    void event(std::string name, ProcessorOp op);
    void event(std::string name, const std::string& message, Guard g1 = Guard::None, Guard g2 = Guard::None);

    Action send(const std::string& message, Target to, DataSource data = DataSource::None,
                AckSource acks = AckSource::None) const;

    // `next` empty: stay in `state`.
    void on(const std::string& state, const std::string& event, std::vector<Action> actions, const std::string& next,
            std::string explanation);
    // The same entry for several states.
    void on(std::initializer_list<const char*> states, const std::string& event, const std::vector<Action>& actions,
            const std::string& next, const std::string& explanation);
    // The message waits in its channel (or the processor op waits) until the state changes.
    void stall(std::initializer_list<const char*> states, std::initializer_list<const char*> events,
               const std::string& why);
    // Overwrites an entry that was already defined.
    void replace(const std::string& state, const std::string& event, std::vector<Action> actions,
                 const std::string& next, std::string explanation);

    ControllerTable build(const std::string& initialState);

  private:
    struct Entry {
        EntryKind kind = EntryKind::Undefined;
        int next = -1;
        std::vector<Action> actions;
        std::string explanation;
    };

    int stateIndex(const std::string& name) const;
    int eventIndex(const std::string& name) const;
    Entry& entry(const std::string& state, const std::string& event, bool mayExist);
    void check(const std::string& state, const std::string& event, const Entry& e) const;
    void checkLeases() const;
    [[noreturn]] void fail(const std::string& what) const;

    const Protocol& m_protocol;
    bool m_isDirectory;
    std::vector<StateInfo> m_states;
    std::vector<EventInfo> m_events;
    std::vector<std::vector<Entry>> m_entries; // [state][event], grown as states/events are declared
};

} // namespace coh::core::coherence

#pragma once
// Writes the parts of a Murphi model that come from a protocol's two controller tables: event classification
// (guards in declaration order), the Stall and store predicates, one step procedure per controller that applies
// a transition's actions in order, and the rules (one for processor ops, one for deliveries).
// Mirrors BlockSystem: see murphi_export.h for the frame these fit into.
#include "core/coherence/murphi_names.h"
#include "core/coherence/protocol_table.h"

#include <string>
#include <string_view>

namespace coh::core::coherence {

// Appends `text` on its own line, indented by `indent` levels of two spaces.
void appendMurphiLine(std::string& out, int indent, std::string_view text);

class MurphiTableWriter {
  public:
    MurphiTableWriter(const Protocol& protocol, const MurphiNames& names, std::string& out);

    void writeFunctions(); // classification, predicates, step procedures
    void writeRules();

  private:
    void line(int indent, std::string_view text) { appendMurphiLine(m_out, indent, text); }
    void writeCopies(); // the caches' copies, which a bus's guards sample
    void writeClassify(bool directory);
    enum class Entries { Stall, Store, OpFire }; // Store: Fire entries that use the store value
    void writePredicate(bool directory, const std::string& name, Entries which);
    void writeStep(bool directory);
    void writeTransition(bool directory, int state, int event, int indent);
    void writeAction(bool directory, const Action& a, const std::string& where, int indent);
    void writeSend(bool directory, const Action& a, const std::string& where, int indent);
    void writeOpRule();
    void writeDeliveryRule();

    const ControllerTable& table(bool directory) const { return directory ? m_protocol.directory : m_protocol.cache; }
    bool transitionStores(bool directory, int state, int event) const;
    bool anyDeliveryStores() const; // some cache transition on a message arrival performs a store
    std::string guardExpr(Guard g) const;
    std::string where(bool directory, int state, int event) const;

    const Protocol& m_protocol;
    const MurphiNames& m_names;
    std::string& m_out;
};

} // namespace coh::core::coherence

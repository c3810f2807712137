#include "core/real/injected_fault.h"

#include "core/base/input_error.h"
#include "core/base/printable_text.h"

#include <fmt/format.h>

#include <charconv>

namespace coh::core::real {

namespace {

struct Named {
    const char* name;
    std::optional<CopyFault> copy;
    std::optional<ReadFault> read;
};

const std::vector<Named>& faults()
{
    static const std::vector<Named> all{
        {"flip-byte", CopyFault::FlipByte, {}},
        {"partial-write", CopyFault::PartialWrite, {}},
        {"freed-source", CopyFault::FreedSource, {}},
        {"expired-lease", CopyFault::ExpiredLease, {}},
        {"lost-completion", CopyFault::LostCompletion, {}},
        {"torn-source", CopyFault::TornSource, {}},
        {"wrong-blocks", CopyFault::WrongBlocks, {}},
        {"freed-block", {}, ReadFault::FreedBlock},
        {"lost-append", {}, ReadFault::LostAppend},
        {"corrupted-row", {}, ReadFault::CorruptedRow},
    };
    return all;
}

// What the user typed, shown harmlessly (printable_text.h), at most 40 characters.
std::string shown(std::string_view text)
{
    return terminalSafe(text.substr(0, 40)) + (text.size() > 40 ? "…" : "");
}

} // namespace

const std::vector<std::string>& injectedFaultNames()
{
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const Named& f : faults())
            out.emplace_back(f.name);
        return out;
    }();
    return names;
}

InjectedFault parseInjectedFault(std::string_view text)
{
    const auto refuse = [&](const std::string& what) -> InjectedFault {
        throw InputError("", "--inject", what,
                         fmt::format("give one of {}, with @N to play it on the Nth copy (copy faults) or decode step "
                                     "(freed-block, lost-append, corrupted-row), e.g. flip-byte@3",
                                     fmt::join(injectedFaultNames(), ", ")));
    };
    const std::size_t at = text.find('@');
    const std::string_view name = text.substr(0, at);
    InjectedFault fault;
    for (const Named& f : faults())
        if (name == f.name) {
            fault.name = f.name;
            fault.copy = f.copy;
            fault.read = f.read;
        }
    if (fault.name.empty())
        return refuse(fmt::format("\"{}\" is not a fault the real backends play", shown(name)));
    if (at != std::string_view::npos) {
        const std::string_view number = text.substr(at + 1);
        const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), fault.at);
        if (error == std::errc::result_out_of_range)
            return refuse(fmt::format("\"{}\" after @ is past any copy or step a run makes", shown(number)));
        if (error != std::errc() || end != number.data() + number.size() || fault.at == 0)
            return refuse(fmt::format("\"{}\" after @ is not a copy or step number from 1", shown(number)));
    }
    return fault;
}

} // namespace coh::core::real

#pragma once
// Errors in user input (scenario, trace, database). Each problem names the file, the field and the fix,
// so the CLI and the GUI can show it as is.
#include <stdexcept>
#include <string>
#include <vector>

namespace coh::core {

struct InputProblem {
    std::string file;  // path as the user gave it; may be empty for in-memory input
    std::string field; // JSON pointer (/topology/links/3/bandwidth), CSV column, or table
    std::string message;
    std::string fix;
    // The same problem in a form's words ("Enter a bandwidth such as 64 GB/s"), for problems with the value itself
    // (its type, unit or range); empty for problems of how it fits the rest of the input (an unknown node id).
    std::string formText;

    std::string toString() const;
};

class InputError : public std::runtime_error {
  public:
    explicit InputError(std::vector<InputProblem> problems);
    InputError(std::string file, std::string field, std::string message, std::string fix);
    const std::vector<InputProblem>& problems() const { return m_problems; }

  private:
    std::vector<InputProblem> m_problems;
};

} // namespace coh::core

#include "core/base/input_error.h"

namespace coh::core {

std::string InputProblem::toString() const
{
    std::string s;
    if (!file.empty())
        s += file + ": ";
    if (!field.empty())
        s += field + ": ";
    s += message;
    if (!fix.empty())
        s += " (fix: " + fix + ")";
    return s;
}

static std::string joinProblems(const std::vector<InputProblem>& problems)
{
    std::string s;
    for (const auto& p : problems) {
        if (!s.empty())
            s += '\n';
        s += p.toString();
    }
    return s;
}

InputError::InputError(std::vector<InputProblem> problems)
    : std::runtime_error(joinProblems(problems))
    , m_problems(std::move(problems))
{
}

InputError::InputError(std::string file, std::string field, std::string message, std::string fix)
    : InputError(std::vector<InputProblem>{{std::move(file), std::move(field), std::move(message), std::move(fix)}})
{
}

} // namespace coh::core

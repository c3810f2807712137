#pragma once
// Runs the real cohsim binary for end-to-end tests and captures its exit code and output.
#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

namespace coh::test {

struct CliResult {
    int exitCode = -1;
    std::string output; // stdout, plus stderr when asked for
};

enum class Stderr { Merge, Discard, Inherit }; // Inherit: it goes to the test log

// Runs a shell command line and captures its stdout.
inline CliResult runShell(const std::string& command)
{
    CliResult result;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe)
        return result;
    std::array<char, 4096> buffer{};
    std::size_t n = 0;
    while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
        result.output.append(buffer.data(), n);
    const int status = ::pclose(pipe);
    result.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

// `args` is appended to the cohsim path as shell words.
inline CliResult runCohsim(const std::string& args, Stderr err = Stderr::Merge)
{
    const char* redirect = err == Stderr::Merge ? " 2>&1" : err == Stderr::Discard ? " 2>/dev/null" : "";
    return runShell(std::string(COH_COHSIM_PATH) + " " + args + redirect);
}

} // namespace coh::test

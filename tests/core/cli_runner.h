#pragma once
// Runs the real cohsim binary for end-to-end tests and captures its exit code and output.
#include <array>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

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

// Runs a shell command line as runShell does, and also returns the peak resident memory of that command alone, in
// KiB. RUSAGE_CHILDREN is the largest of every child a process has waited for, so a test process that ran other
// commands first would read theirs: the command is waited for by a child of its own, which reports its figure. (A
// forked child's peak starts at the test process's resident size, which Linux carries across exec: the figure is
// at least that, an upper bound, exact where the test process is small, as it is under ctest.)
struct MeasuredResult {
    CliResult result;
    long peakKiB = -1;
};
inline MeasuredResult runShellMeasured(const std::string& command)
{
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) // the command's own processes must not hold the write end open
        return {};
    const pid_t pid = ::fork();
    if (pid < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        return {};
    }
    if (pid == 0) { // the child: runs the command, then writes its exit code, its peak and its output
        ::close(fds[0]);
        CliResult r;
        try {
            r = runShell(command);
        } catch (...) {
            ::_exit(1); // never back into the test framework's copy
        }
        rusage usage{};
        ::getrusage(RUSAGE_CHILDREN, &usage);
        const long header[2] = {r.exitCode, usage.ru_maxrss};
        bool ok = ::write(fds[1], header, sizeof header) == static_cast<ssize_t>(sizeof header);
        for (std::size_t at = 0; ok && at < r.output.size();) {
            const ssize_t n = ::write(fds[1], r.output.data() + at, r.output.size() - at);
            ok = n > 0;
            at += ok ? static_cast<std::size_t>(n) : 0;
        }
        ::_exit(ok ? 0 : 1);
    }
    ::close(fds[1]);
    std::string bytes;
    std::array<char, 4096> buffer{};
    for (ssize_t n; (n = ::read(fds[0], buffer.data(), buffer.size())) > 0;)
        bytes.append(buffer.data(), static_cast<std::size_t>(n));
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    MeasuredResult m;
    long header[2] = {-1, -1};
    if (bytes.size() < sizeof header || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return m;
    std::memcpy(header, bytes.data(), sizeof header);
    m.result.exitCode = static_cast<int>(header[0]);
    m.peakKiB = header[1];
    m.result.output = bytes.substr(sizeof header);
    return m;
}

// `args` is appended to the cohsim path as shell words.
inline CliResult runCohsim(const std::string& args, Stderr err = Stderr::Merge)
{
    const char* redirect = err == Stderr::Merge ? " 2>&1" : err == Stderr::Discard ? " 2>/dev/null" : "";
    return runShell(std::string(COH_COHSIM_PATH) + " " + args + redirect);
}

} // namespace coh::test

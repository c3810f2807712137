#include "core/store/process_probe.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>

#include <sys/types.h>
#include <unistd.h>

namespace coh::core {

namespace {

std::string readFirstLine(const std::string& file)
{
    std::ifstream in(file);
    std::string line;
    std::getline(in, line);
    return line;
}

} // namespace

std::int64_t currentProcessId()
{
    return static_cast<std::int64_t>(::getpid());
}

std::string currentHostName()
{
    char name[256] = {};
    if (::gethostname(name, sizeof(name) - 1) != 0)
        return {};
    return name;
}

std::string processStartToken(std::int64_t pid)
{
    // /proc/<pid>/stat: "pid (comm) state ppid ..."; starttime is field 22. comm may hold spaces and
    // parentheses, so count fields from the last ')'.
    const std::string stat = readFirstLine("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    if (close == std::string::npos)
        return {};
    std::istringstream fields(stat.substr(close + 1));
    std::string field;
    for (int i = 3; i <= 22; ++i) {
        if (!(fields >> field))
            return {};
    }
    // Start ticks count from boot; the boot id keeps tokens from two boots apart.
    return readFirstLine("/proc/sys/kernel/random/boot_id") + ":" + field;
}

bool processAlive(std::int64_t pid, const std::string& startToken)
{
    if (pid <= 0)
        return false;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH)
        return false;
    // EPERM means it exists but belongs to another user: alive as far as we can tell.
    if (startToken.empty())
        return true;
    const std::string now = processStartToken(pid);
    return now.empty() || now == startToken;
}

} // namespace coh::core

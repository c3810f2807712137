#pragma once
// Whether a path names a descriptor the shell handed the process (/dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N,
// /proc/self/fd/N: a redirection or a process substitution, <(...)). Such a pipe already has its other end, where a
// named pipe's open waits for one, for ever if none comes: readers and writers refuse the one, not the other.
#include <string_view>

namespace coh::core {

inline bool isShellDescriptor(std::string_view path)
{
    return path == "/dev/stdin" || path == "/dev/stdout" || path == "/dev/stderr" || path.starts_with("/dev/fd/") ||
           path.starts_with("/proc/self/fd/");
}

} // namespace coh::core

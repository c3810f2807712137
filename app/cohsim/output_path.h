#pragma once
// Whether a file can be written at a path the user gave (-o), checked before the work that fills it: a calibration
// or a run should not be measured only to find its folder missing at the end.
#include "core/base/input_error.h"
#include "core/base/shell_descriptor.h"

#include <fmt/format.h>

#include <filesystem>
#include <string>

#include <unistd.h>

namespace coh::cli {

inline void checkOutputPath(const std::string& path, const std::string& option)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (path.empty())
        throw core::InputError("", option, "the path is empty", "name the file to write");
    if (fs::is_directory(path, ec))
        throw core::InputError(path, option, "this is a folder, not a file to write", "name a file in it");
    // A named pipe's open waits for a reader, after all the work; a descriptor the shell passed is written as given.
    if (fs::is_fifo(path, ec) && !core::isShellDescriptor(path))
        throw core::InputError(path, option, "this is a named pipe, whose writing waits for something to read it",
                               "give a regular file, or -o /dev/stdout to pipe it on");
    const fs::path folder = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    if (!fs::is_directory(folder, ec))
        throw core::InputError(path, option,
                               fs::exists(folder, ec) ? fmt::format("'{}' is a file, not a folder", folder.string())
                                                      : fmt::format("its folder '{}' does not exist", folder.string()),
                               "create the folder first, or give a path in a folder that exists");
    // A file that is there is written in place (its folder may be read-only: /dev/null, a pre-made file); a new one
    // needs the folder.
    if (fs::exists(path, ec) ? ::access(path.c_str(), W_OK) != 0 : ::access(folder.c_str(), W_OK) != 0)
        throw core::InputError(path, option, "this user cannot write there", "give a path in a folder you can write");
}

} // namespace coh::cli

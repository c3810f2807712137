#pragma once
// A file's extension, lower case with its dot (".pdf"; "" for none): what a command's output name says of the format
// wanted when --format is not given (`report -o run.pdf`, `export -o run.json`).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

namespace coh::cli {

inline std::string fileExtension(const std::string& path)
{
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension;
}

} // namespace coh::cli

#include "core/real/core_cache.h"

#include <cctype>
#include <fstream>
#include <unistd.h>

namespace coh::core::real {

std::size_t parseCacheSize(const std::string& text)
{
    std::size_t i = 0, value = 0;
    // Past a tebibyte it is no cache: stop before the sum could wrap.
    constexpr std::size_t kMost = std::size_t{1} << 40;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
        if ((value = value * 10 + static_cast<std::size_t>(text[i++] - '0')) > kMost)
            return 0;
    if (i == 0)
        return 0;
    std::size_t scale = 1;
    if (i < text.size() && (text[i] == 'K' || text[i] == 'M' || text[i] == 'G')) {
        scale = text[i] == 'K' ? std::size_t{1} << 10 : text[i] == 'M' ? std::size_t{1} << 20 : std::size_t{1} << 30;
        ++i;
    }
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i])))
        ++i;
    return i == text.size() && value <= kMost / scale ? value * scale : 0;
}

namespace {

std::size_t readCoreCacheBytes()
{
#ifdef _SC_LEVEL2_CACHE_SIZE
    if (const long bytes = ::sysconf(_SC_LEVEL2_CACHE_SIZE); bytes > 0)
        return static_cast<std::size_t>(bytes);
#endif
    // index2 is the unified level 2 cache on x86 and most ARM parts; check that it says so.
    const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index2/";
    std::ifstream level(dir + "level"), size(dir + "size");
    std::string levelText, sizeText;
    if (std::getline(level, levelText) && levelText == "2" && std::getline(size, sizeText))
        return parseCacheSize(sizeText);
    return 0;
}

} // namespace

std::size_t coreCacheBytes()
{
    static const std::size_t bytes = readCoreCacheBytes();
    return bytes;
}

} // namespace coh::core::real

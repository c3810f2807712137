#pragma once
// Large buffers a real backend fills once (node arenas, K/V pools): asking for transparent huge pages before the first
// touch makes filling them take a 2 MiB page fault where 512 of 4 KiB would be taken (Linux with THP on "madvise",
// as Debian ships it). Elsewhere, or where the kernel says no, the buffer keeps its small pages: only setup is slower.
#include <cstddef>

namespace coh::core::real {

// Advises huge pages for the whole 2 MiB pages inside [data, data + bytes); a no-op off Linux.
void adviseHugePages(void* data, std::size_t bytes);

} // namespace coh::core::real

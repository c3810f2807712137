// libFuzzer entry point; COH_FUZZ_TARGET names the target this binary fuzzes (tests/fuzz/CMakeLists.txt).
#include "tests/fuzz/fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    coh::fuzz::runInput(coh::fuzz::Target::COH_FUZZ_TARGET, data, size);
    return 0;
}

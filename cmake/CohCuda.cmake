# COH_ENABLE_CUDA=AUTO turns the CUDA backend on when nvcc is found. CUDA 13 dropped the old default
# architectures, so we always pass CMAKE_CUDA_ARCHITECTURES explicitly.
include(CheckLanguage)
set(COH_HAVE_CUDA OFF)
if(NOT COH_ENABLE_CUDA STREQUAL "OFF")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # Machine code for Hopper (sm_90: H100, H200) and PTX for Turing onwards, which the driver compiles for any
    # newer GPU: portable, and fast where it matters.
    set(CMAKE_CUDA_ARCHITECTURES "90-real;75-virtual" CACHE STRING "CUDA architectures to build for")
  endif()
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    set(COH_HAVE_CUDA ON)
  elseif(COH_ENABLE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "COH_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found; install the CUDA toolkit "
                        "or configure with -DCOH_ENABLE_CUDA=AUTO/OFF")
  endif()
endif()
message(STATUS "Coherence Studio: CUDA backend ${COH_HAVE_CUDA} (COH_ENABLE_CUDA=${COH_ENABLE_CUDA})")

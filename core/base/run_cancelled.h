#pragma once
// What a cancelled piece of work throws: a run, or a calibration (core::real::calibrate) cancelled between its
// measurements. The run store records a run that threw it as cancelled, not failed.
#include <stdexcept>

namespace coh::core {

class RunCancelled : public std::runtime_error {
  public:
    RunCancelled()
        : std::runtime_error("run cancelled")
    {
    }
};

} // namespace coh::core

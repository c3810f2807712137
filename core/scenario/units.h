#pragma once
// Physical quantities written as strings with a unit ("1.5 us", "64 GiB", "400 Gb/s", "989 TFLOP/s"),
// converted to the base units the model uses: nanoseconds, bytes, bytes per second, FLOP/s.
#include "core/sim/time.h"

#include <stdexcept>
#include <string>
#include <string_view>

namespace coh::core {

enum class Quantity { Time, Bytes, Bandwidth, Flops };

// Thrown when a quantity string cannot be read; what() says what is wrong with it (not how to fix it:
// quantityExample() gives a well-formed value to show the user).
class UnitError : public std::invalid_argument {
  public:
    using std::invalid_argument::invalid_argument;
};

// Each parser accepts "<number> <unit>" (space optional). A bare number is rejected: in JSON a plain
// number already means base units, so a unit-less string is almost always a forgotten unit.
double parseQuantity(Quantity quantity, std::string_view text);
SimTime parseTime(std::string_view text);     // rounded to whole nanoseconds
double parseBytes(std::string_view text);     // B, KB..PB (1000^n), KiB..PiB (1024^n)
double parseBandwidth(std::string_view text); // bytes/s: "GB/s", "GiB/s", "GBps"; bits: "Gb/s", "Gbps"
double parseFlops(std::string_view text);     // "TFLOP/s", "TFLOPS" with k/M/G/T/P/E prefixes

const char* quantityName(Quantity quantity);    // "time", "size in bytes", ...
const char* quantityExample(Quantity quantity); // a JSON value the user can copy, e.g. "\"64 GB/s\""

// Human-readable sizes and rates for messages and tables, decimal units: "80 GB", "3.35 TB/s".
std::string formatBytes(double bytes);
std::string formatBandwidth(double bytesPerSec);

} // namespace coh::core

#pragma once
/// @file format.hpp
/// Compact number formatting for tool result text.

#include <string>

namespace kioku::affective {

/// "0.4ms", "120ms", "2.1s", "3.5min".
std::string FormatLatency(double ms);
/// Fixed decimals, e.g. FormatFixed(0.91234, 3) = "0.912".
std::string FormatFixed(double value, int decimals);
/// "91.7%".
std::string FormatPercent(double fraction);

}  // namespace kioku::affective

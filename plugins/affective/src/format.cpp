#include "format.hpp"

#include <cstdio>

namespace kioku::affective {

std::string FormatFixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  return buf;
}

std::string FormatLatency(double ms) {
  if (ms < 10) return FormatFixed(ms, 1) + "ms";
  if (ms < 1000) return FormatFixed(ms, 0) + "ms";
  if (ms < 60'000) return FormatFixed(ms / 1000, 1) + "s";
  return FormatFixed(ms / 60'000, 1) + "min";
}

std::string FormatPercent(double fraction) { return FormatFixed(fraction * 100, 1) + "%"; }

}  // namespace kioku::affective

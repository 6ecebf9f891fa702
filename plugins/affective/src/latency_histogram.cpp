#include "latency_histogram.hpp"

#include <algorithm>
#include <cmath>

namespace kioku::affective {

int LatencyBin(double latency_ms) {
  constexpr double kFirstEdge = 1.0 / 16.0;  // 2^kLatencyMinExponent
  if (!(latency_ms >= kFirstEdge)) return 0;  // also catches NaN
  const double octaves = std::log2(latency_ms) - kLatencyMinExponent;
  const double k = std::floor(octaves * kLatencyBinsPerOctave) + 1;
  if (k >= kLatencyBins - 1) return kLatencyBins - 1;
  return std::max(1, static_cast<int>(k));
}

double LatencyBinValue(int bin) {
  if (bin <= 0) return 1.0 / 32.0;
  const double mid = (static_cast<double>(bin) - 0.5) / kLatencyBinsPerOctave + kLatencyMinExponent;
  return std::exp2(mid);
}

void LatencyHistogram::Add(int bin, std::uint64_t count) {
  bin = std::clamp(bin, 0, kLatencyBins - 1);
  counts_[static_cast<std::size_t>(bin)] += count;
  total_ += count;
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
}

std::optional<double> LatencyHistogram::Quantile(double q) const {
  if (total_ == 0) return std::nullopt;
  q = std::clamp(q, 0.0, 1.0);
  const auto rank = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(total_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return LatencyBinValue(static_cast<int>(i));
  }
  return LatencyBinValue(kLatencyBins - 1);
}

std::string LatencyHistogram::Encode() const {
  std::string out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    std::uint64_t c = counts_[i];
    if (c == 0) continue;
    out.push_back(static_cast<char>(i));
    do {
      unsigned char byte = c & 0x7f;
      c >>= 7;
      if (c != 0) byte |= 0x80;
      out.push_back(static_cast<char>(byte));
    } while (c != 0);
  }
  return out;
}

LatencyHistogram LatencyHistogram::Decode(std::string_view bytes) {
  LatencyHistogram h;
  std::size_t i = 0;
  while (i < bytes.size()) {
    const auto bin = static_cast<unsigned char>(bytes[i++]);
    if (bin >= kLatencyBins) break;
    std::uint64_t count = 0;
    int shift = 0;
    bool done = false;
    while (i < bytes.size() && shift < 64) {
      const auto byte = static_cast<unsigned char>(bytes[i++]);
      count |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      shift += 7;
      if ((byte & 0x80) == 0) {
        done = true;
        break;
      }
    }
    if (!done) break;
    h.Add(bin, count);
  }
  return h;
}

}  // namespace kioku::affective

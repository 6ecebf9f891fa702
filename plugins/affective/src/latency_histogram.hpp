#pragma once
/// @file latency_histogram.hpp
/// Fixed log-scale latency histogram kept per day bucket, so latency percentiles come from
/// a few counters instead of a scan of raw rows (the HdrHistogram / DDSketch idea of
/// log-spaced bins with a bounded relative error, reduced to a fixed layout).
///
/// Layout: bin 0 holds [0, 1/16 ms). Bin k >= 1 holds [2^((k-1)/4 - 4), 2^(k/4 - 4)) ms,
/// i.e. four bins per octave from 62.5 µs up; the last bin (kLatencyBins - 1) also takes
/// everything above its lower edge (≈ 37 h). A bin is reported as its geometric midpoint,
/// so a reported percentile is within a factor 2^(1/8) (±9.05 %) of the exact nearest-rank
/// percentile of the recorded values; bin 0 is reported as 1/32 ms (absolute error < 1/16 ms).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kioku::affective {

inline constexpr int kLatencyBinsPerOctave = 4;
inline constexpr int kLatencyMinExponent = -4;  ///< bin 1 starts at 2^-4 ms
inline constexpr int kLatencyBins = 1 + 31 * kLatencyBinsPerOctave;  ///< up to 2^27 ms

/// Bin index of a latency in ms (negative or NaN values go to bin 0).
int LatencyBin(double latency_ms);

/// The value reported for a bin: its geometric midpoint (bin 0: 1/32 ms).
double LatencyBinValue(int bin);

/// Counts per bin. Not thread-safe; cheap to copy (kLatencyBins × 8 bytes).
class LatencyHistogram {
 public:
  void Add(int bin, std::uint64_t count = 1);
  void AddValue(double latency_ms) { Add(LatencyBin(latency_ms)); }
  void Merge(const LatencyHistogram& other);
  std::uint64_t Total() const { return total_; }
  /// Nearest-rank quantile (q in (0, 1]): the value of the bin holding the
  /// ceil(q × total)-th smallest sample; nullopt when empty.
  std::optional<double> Quantile(double q) const;

  /// Compact storage form (a BLOB column): for each non-empty bin in increasing order, one
  /// byte with the bin index then its count as an unsigned LEB128 varint. Empty → "".
  std::string Encode() const;
  /// Inverse of Encode. Malformed input (truncated varint, bin out of range) stops decoding
  /// at that point; what was read so far is kept.
  static LatencyHistogram Decode(std::string_view bytes);

 private:
  std::array<std::uint64_t, kLatencyBins> counts_{};
  std::uint64_t total_ = 0;
};

}  // namespace kioku::affective

#pragma once
/// @file capture.hpp
/// Automatic capture: every kioku tool call the host reports on sdk::kToolCalledTopic is
/// recorded with its real outcome and latency — except the affective layer's own tools
/// (recording a feedback_record call would record itself) and `capture_exclude`.

#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "kioku/sdk/events.hpp"
#include "outcome.hpp"
#include "tools.hpp"

namespace kioku::affective {

/// The record for one tool-call event, or nullopt when it is skipped (own plugin, excluded
/// tool, empty tool name, unknown outcome word). `now_ms` is used when the event has no
/// time.
std::optional<OutcomeRecord> RecordFromToolCall(const sdk::ToolCallEvent& event,
                                                const Settings& settings,
                                                const Recorder& recorder,
                                                std::int64_t now_ms);

/// Captured records waiting for the host's background writer, in chunks of at most
/// kChunk. A burst of calls costs one deferred write, one transaction and one bucket and
/// total update per key, not one of each per call (per-call writes were a quarter of the
/// server's CPU under a stream of recalls). The deferred write owns its chunk: when the
/// host retries a batch that stayed locked, the chunk is written again, whole; when the host
/// drops the write (its queue full behind a lock), the chunk goes with it and the next record
/// opens a new one. Thread-safe.
class CaptureBuffer {
 public:
  static constexpr std::size_t kChunk = 256;
  struct Chunk {
    std::vector<OutcomeRecord> records;
    bool closed = false;  ///< being written: later records go to a new chunk
  };

  /// Adds `r` to the open chunk; returns the chunk when `r` opened it (the caller hands it
  /// to one deferred write), else nullptr.
  std::shared_ptr<Chunk> Add(OutcomeRecord r);
  /// Closes `chunk` to new records and returns them (unchanged from then on).
  const std::vector<OutcomeRecord>& Close(Chunk& chunk);

 private:
  std::mutex mutex_;
  std::weak_ptr<Chunk> open_;  ///< owned by its deferred write only
};

/// The event handler: adds the record to `buffer` and, when it opens a chunk, hands the
/// chunk to HostServices::DeferWrite (written in a batch on the host's background writer,
/// never on the publishing request thread). Never throws (a failed write is logged as a
/// warning and dropped). `ctx` and `buffer` must outlive the host's deferred writes.
sdk::EventBus::Handler MakeCaptureHandler(ToolContext& ctx, CaptureBuffer& buffer);

}  // namespace kioku::affective

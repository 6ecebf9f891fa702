#include "capture.hpp"

#include <algorithm>
#include <exception>

#include <SQLiteCpp/Exception.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::affective {

namespace {
constexpr const char* kPluginName = "affective";
}

std::optional<OutcomeRecord> RecordFromToolCall(const sdk::ToolCallEvent& event,
                                                const Settings& settings,
                                                const Recorder& recorder,
                                                std::int64_t now_ms) {
  if (event.plugin == kPluginName || event.tool.empty()) return std::nullopt;
  const auto& exclude = settings.capture_exclude;
  if (std::find(exclude.begin(), exclude.end(), event.tool) != exclude.end()) return std::nullopt;
  const auto outcome = ParseOutcome(event.outcome);
  if (!outcome) return std::nullopt;
  OutcomeRecord r;
  r.tool = sdk::TruncateUtf8(sdk::SanitizeUtf8(event.tool), kMaxToolNameChars, "");
  r.outcome = *outcome;
  if (event.latency_ms >= 0) r.latency_ms = event.latency_ms;
  // Caller strings reach the disk here without a tool call to refuse them: redact instead.
  r.agent_id = event.agent_id.empty() ? "unknown" : sdk::RedactSecrets(sdk::SanitizeUtf8(event.agent_id));
  r.session_id = sdk::RedactSecrets(sdk::SanitizeUtf8(event.session_id));
  r.project_id = sdk::RedactSecrets(sdk::SanitizeUtf8(event.project_id));
  if (r.outcome != OutcomeKind::kSuccess) r.error = recorder.CleanError(event.error);
  r.at_ms = event.at_ms != 0 ? event.at_ms : now_ms;
  r.source = std::string(kSourceEvent);
  return r;
}

std::shared_ptr<CaptureBuffer::Chunk> CaptureBuffer::Add(OutcomeRecord r) {
  std::lock_guard lock(mutex_);
  std::shared_ptr<Chunk> open = open_.lock();
  std::shared_ptr<Chunk> opened;
  if (!open || open->closed || open->records.size() >= kChunk) {
    opened = open = std::make_shared<Chunk>();
    open_ = open;
  }
  open->records.push_back(std::move(r));
  return opened;
}

const std::vector<OutcomeRecord>& CaptureBuffer::Close(Chunk& chunk) {
  std::lock_guard lock(mutex_);
  chunk.closed = true;
  return chunk.records;
}

namespace {

// One chunk, or record by record when it fails for a reason other than a lock (a lock makes
// the host retry the whole batch): one bad record costs itself, not its 255 neighbours.
void WriteChunk(ToolContext& ctx, const std::vector<OutcomeRecord>& records) {
  try {
    ctx.recorder.Record(records);
    return;
  } catch (const SQLite::Exception& e) {
    if (sdk::IsBusyError(e)) throw;
  }
  for (const OutcomeRecord& r : records) {
    try {
      ctx.recorder.Record({r});
    } catch (const SQLite::Exception& e) {
      if (sdk::IsBusyError(e)) throw;
      ctx.host.Log().Warn(std::string("capture: an outcome of ") + r.tool + " was not recorded: " + e.what());
    }
  }
}

}  // namespace

sdk::EventBus::Handler MakeCaptureHandler(ToolContext& ctx, CaptureBuffer& buffer) {
  return [&ctx, &buffer](const sdk::Event& event) noexcept {
    try {
      const auto call = sdk::ToolCallEvent::FromJson(event.payload);
      auto record =
          RecordFromToolCall(call, ctx.settings, ctx.recorder, ctx.host.GetClock().NowMs());
      if (!record) return;
      // Off the request thread: the host writes the chunk in a batch with other bookkeeping.
      if (std::shared_ptr<CaptureBuffer::Chunk> chunk = buffer.Add(std::move(*record))) {
        ctx.host.DeferWrite([&ctx, &buffer, chunk](SQLite::Database&) { WriteChunk(ctx, buffer.Close(*chunk)); });
      }
    } catch (const std::exception& e) {
      try {
        ctx.host.Log().Warn(std::string("capture: could not record a tool call: ") + e.what());
      } catch (...) {
      }
    } catch (...) {
    }
  };
}

}  // namespace kioku::affective

#pragma once
/// @file capture.hpp
/// Automatic capture: every kioku tool call the host reports on sdk::kToolCalledTopic is
/// recorded with its real outcome and latency — except the affective layer's own tools
/// (recording a feedback_record call would record itself) and `capture_exclude`.

#include <optional>

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

/// The event handler: hands the record to HostServices::DeferWrite (written in a batch on
/// the host's background writer, never on the publishing request thread). Never throws (a
/// failed write is logged as a warning and dropped).
sdk::EventBus::Handler MakeCaptureHandler(ToolContext& ctx);

}  // namespace kioku::affective

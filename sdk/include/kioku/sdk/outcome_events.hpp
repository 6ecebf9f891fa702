#pragma once
/// @file outcome_events.hpp
/// Outcomes a plugin reports for something that is not a kioku tool call — e.g. a
/// procedure an agent followed — so the affective layer can record them like tool calls.

namespace kioku::sdk {

/// Topic of a reported outcome. Payload: ToolCallEvent JSON (events.hpp) whose `tool`
/// names the thing with a prefix, e.g. "procedure/release-checklist", whose `plugin` is the
/// reporting plugin, `outcome` is "success" or "failure", `error` the note of a failure,
/// and `latency_ms` 0 when unknown. Publish it after the report is committed.
inline constexpr const char* kOutcomeReportedTopic = "outcome.reported";

}  // namespace kioku::sdk

#pragma once
/// @file events.hpp
/// In-process publish/subscribe between the host and plugins.

#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace kioku::sdk {

/// One event: a topic (dotted, e.g. "tool.called") and a JSON payload.
struct Event {
  std::string topic;
  nlohmann::json payload;
};

/// Topic the host publishes after every tool call a client makes (`tools/call` over MCP or
/// HTTP, `kioku call`), not after the calls plugins make through HostServices::CallTool
/// (see ToolCallEvent).
inline constexpr const char* kToolCalledTopic = "tool.called";

/// Payload of kToolCalledTopic.
/// outcome: "success" | "failure" (isError result or handler exception) | "rejected"
/// (arguments failed schema validation) | "timeout" (deadline passed or cancelled).
struct ToolCallEvent {
  std::string tool;
  std::string plugin;
  std::string agent_id;
  std::string session_id;
  std::string project_id;
  std::string outcome;
  double latency_ms = 0;
  std::string error;  ///< Error text for non-success outcomes, else empty.
  std::int64_t at_ms = 0;  ///< When the call finished, Unix ms.
  /// The tool's annotations.read_only. Layers that react to writes (the working layer's
  /// presence: every successful non-read-only call is a sign of life) test it.
  bool read_only = false;

  nlohmann::json ToJson() const;
  static ToolCallEvent FromJson(const nlohmann::json& payload);
};

/// Synchronous event bus: Publish runs every matching subscriber on the publishing thread,
/// in subscription order. A subscriber that throws is logged by the host and skipped; it
/// never affects the publisher. Subscribe/Publish are thread-safe. Subscriptions live until
/// the host stops (before plugins are destroyed).
class EventBus {
 public:
  using Handler = std::function<void(const Event&)>;
  virtual ~EventBus() = default;
  /// Subscribes to an exact topic, or to every topic with "*".
  virtual void Subscribe(std::string topic, Handler handler) = 0;
  virtual void Publish(const Event& event) = 0;
};

}  // namespace kioku::sdk

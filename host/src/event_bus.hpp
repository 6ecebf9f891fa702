#pragma once
/// @file event_bus.hpp
/// The host's synchronous EventBus (see sdk/events.hpp for the contract).

#include <mutex>
#include <string>
#include <vector>

#include "kioku/sdk/events.hpp"
#include "kioku/sdk/host.hpp"

namespace kioku::host {

class EventBusImpl final : public sdk::EventBus {
 public:
  explicit EventBusImpl(sdk::Logger& log) : log_(log) {}
  void Subscribe(std::string topic, Handler handler) override;
  /// Runs matching handlers; a handler that throws is logged and skipped.
  void Publish(const sdk::Event& event) override;
  /// Drops every subscription (before plugins are destroyed: handlers hold plugin code).
  void Clear();

 private:
  struct Subscription {
    std::string topic;
    std::shared_ptr<Handler> handler;
  };
  sdk::Logger& log_;
  std::mutex mutex_;
  std::vector<Subscription> subscriptions_;
};

}  // namespace kioku::host

#include "event_bus.hpp"

namespace kioku::host {

void EventBusImpl::Subscribe(std::string topic, Handler handler) {
  std::lock_guard lock(mutex_);
  subscriptions_.push_back({std::move(topic), std::make_shared<Handler>(std::move(handler))});
}

void EventBusImpl::Publish(const sdk::Event& event) {
  std::vector<std::shared_ptr<Handler>> matching;
  {
    std::lock_guard lock(mutex_);
    for (const auto& s : subscriptions_) {
      if (s.topic == "*" || s.topic == event.topic) matching.push_back(s.handler);
    }
  }
  // Handlers run outside the lock so a handler may publish or subscribe itself.
  for (const auto& handler : matching) {
    try {
      (*handler)(event);
    } catch (const std::exception& e) {
      log_.Warn(std::string("event subscriber for '") + event.topic + "' threw: " + e.what());
    } catch (...) {
      log_.Warn("event subscriber for '" + event.topic + "' threw a non-standard exception");
    }
  }
}

void EventBusImpl::Clear() {
  std::lock_guard lock(mutex_);
  subscriptions_.clear();
}

}  // namespace kioku::host

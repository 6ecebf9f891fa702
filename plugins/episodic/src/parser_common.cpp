#include "parser_common.hpp"

#include <algorithm>

namespace kioku::episodic::transcript {

void PendingCalls::Add(const std::string& id, PendingCall call) {
  if (calls_.size() >= kMax) {
    auto oldest = std::min_element(calls_.begin(), calls_.end(), [](auto& a, auto& b) {
      return a.second.line < b.second.line;
    });
    calls_.erase(oldest);
  }
  calls_[id] = std::move(call);
}

bool PendingCalls::Take(const std::string& id, PendingCall* call) {
  auto it = calls_.find(id);
  if (it == calls_.end()) return false;
  *call = std::move(it->second);
  calls_.erase(it);
  return true;
}

nlohmann::json PendingCalls::Save() const {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [id, c] : calls_) {
    j[id] = {{"tool", c.tool},       {"session", c.session_id}, {"detail", c.detail},
             {"paths", c.paths},     {"action", c.action},      {"reads", c.reads},
             {"at", c.at},           {"line", c.line},          {"sidechain", c.sidechain}};
  }
  return j;
}

void PendingCalls::Load(const nlohmann::json& j) {
  calls_.clear();
  if (!j.is_object()) return;
  for (const auto& [id, v] : j.items()) {
    PendingCall c;
    c.tool = v.value("tool", "");
    c.session_id = v.value("session", "");
    c.detail = v.value("detail", "");
    c.paths = v.value("paths", std::vector<std::string>{});
    c.action = v.value("action", "");
    c.reads = v.value("reads", std::vector<std::string>{});
    c.at = v.value("at", std::int64_t{0});
    c.line = v.value("line", std::int64_t{0});
    c.sidechain = v.value("sidechain", false);
    calls_[id] = std::move(c);
  }
}

void Resolve(const std::string& call_id, const PendingCall& call, const std::string& outcome,
             const std::string& error, std::int64_t at, std::int64_t line, ParsedBatch& out) {
  ToolOutcome o;
  o.session_id = call.session_id;
  o.call_id = call_id;
  o.tool = call.tool;
  o.outcome = outcome;
  o.error = outcome == "success" ? "" : error;
  o.detail = call.detail;
  o.at = at;
  if (call.at > 0 && at >= call.at) o.latency_ms = at - call.at;
  o.line = line;
  o.sidechain = call.sidechain;
  out.outcomes.push_back(std::move(o));
  out.Touch(call.session_id, 0);
  if (outcome != "success") return;
  for (const auto& p : call.paths) {
    if (!call.action.empty()) out.files.push_back({call.session_id, p, call.action, at});
  }
  for (const auto& p : call.reads) out.files.push_back({call.session_id, p, "read", at});
}

}  // namespace kioku::episodic::transcript

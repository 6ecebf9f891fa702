#pragma once
// Pending tool calls shared by the transcript parsers (internal).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "transcript.hpp"

namespace kioku::episodic::transcript {

struct PendingCall {
  std::string tool;
  std::string session_id;
  std::string detail;
  std::vector<std::string> paths;  ///< files the call touches when it succeeds
  std::string action;              ///< read | modified | ""
  std::vector<std::string> reads;  ///< files a successful shell call read
  std::int64_t at = 0;
  std::int64_t line = 0;
  bool sidechain = false;
};

/// Calls waiting for their result, bounded (the oldest are dropped beyond kMax).
class PendingCalls {
 public:
  static constexpr std::size_t kMax = 2'000;
  void Add(const std::string& id, PendingCall call);
  /// Removes and returns the call, or false when unknown.
  bool Take(const std::string& id, PendingCall* call);
  nlohmann::json Save() const;
  void Load(const nlohmann::json& j);

 private:
  std::map<std::string, PendingCall> calls_;
};

/// Records the outcome of `call` (and its files on success) into `out`.
void Resolve(const std::string& call_id, const PendingCall& call, const std::string& outcome,
             const std::string& error, std::int64_t at, std::int64_t line, ParsedBatch& out);

}  // namespace kioku::episodic::transcript

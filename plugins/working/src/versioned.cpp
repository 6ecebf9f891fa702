#include "versioned.hpp"

#include "kioku/sdk/caller.hpp"

namespace kioku::working {

WriteMode ModeArg(const Json& args) {
  if (args.is_object() && args.contains("mode") && args.at("mode") == "append") {
    return WriteMode::kAppend;
  }
  return WriteMode::kReplace;
}

std::optional<std::int64_t> ExpectedVersionArg(const Json& args) {
  if (!args.is_object() || !args.contains("expected_version") ||
      args.at("expected_version").is_null()) {
    return std::nullopt;
  }
  const auto& v = args.at("expected_version");
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0) {
    throw sdk::ToolError("expected_version must be a non-negative integer (0 = the text must "
                         "not exist yet)");
  }
  return v.get<std::int64_t>();
}

std::optional<std::string> VersionRefusal(const VersionedState& current,
                                          std::optional<std::int64_t> expected_version,
                                          WriteMode mode, const std::string& agent,
                                          std::string_view noun) {
  const std::string who =
      current.version == 0 ? std::string()
                           : ", last written by " + current.updated_by + " at " +
                                 Rfc(current.updated_at_ms);
  if (expected_version) {
    if (*expected_version == current.version) return std::nullopt;
    if (current.version == 0) {
      return "stale expected_version " + std::to_string(*expected_version) + ": " +
             std::string(noun) + " does not exist yet; send expected_version 0 or omit it";
    }
    return "stale expected_version " + std::to_string(*expected_version) + ": " +
           std::string(noun) + " is at version " + std::to_string(current.version) + who +
           ". Nothing was written. Merge your change into the current content below and "
           "retry with expected_version " + std::to_string(current.version) + ".";
  }
  // The text is the agent's own when its last writer is the same agent, whichever window
  // or session (instance) wrote it: instances tell leases apart, not authorship.
  if (current.version == 0 || sdk::HolderAgent(current.updated_by) == sdk::HolderAgent(agent) ||
      mode == WriteMode::kAppend) {
    return std::nullopt;
  }
  return std::string(noun) + " is at version " + std::to_string(current.version) + who +
         "; replacing another agent's text needs expected_version " +
         std::to_string(current.version) +
         " (read it first, merge, then write) — or use mode:\"append\". Nothing was written.";
}

std::string ApplyWrite(const VersionedState& current, const std::string& text,
                       WriteMode mode) {
  if (mode == WriteMode::kReplace || current.content.empty()) return text;
  std::string out = current.content;
  if (out.back() != '\n') out += '\n';
  out += text;
  return out;
}

}  // namespace kioku::working

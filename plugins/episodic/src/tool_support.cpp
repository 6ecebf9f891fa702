#include "tool_support.hpp"

#include "kioku/sdk/caller.hpp"
#include "kioku/sdk/project_identity.hpp"

#include <algorithm>

#include "kioku/sdk/clock.hpp"
#include "privacy.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

std::optional<std::vector<std::string>> ProjectScope(const sdk::Json& args,
                                                     const sdk::Caller& caller) {
  std::vector<std::string> keys;
  auto add = [&](const std::string& k) {
    if (!k.empty() && std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  };
  auto it = args.find("project");
  if (it != args.end() && it->is_string()) {
    const std::string p = it->get<std::string>();
    if (p == "*") return std::nullopt;
    add(sdk::CanonicalProjectKey(p));
    add(p);
    return keys;
  }
  // Rows are keyed by sdk::ResolveProject ids (migration 2 moved older spellings).
  add(caller.project_id);
  if (keys.empty()) return std::nullopt;
  return keys;
}

std::string ProjectClause(std::size_t keys) {
  std::string sql = "(se.project IN (";
  for (std::size_t i = 0; i < keys; ++i) sql += i ? ", ?" : "?";
  return sql + ") OR se.project = '')";
}

std::string AgentOf(const sdk::Caller& caller, const sdk::Json& args) {
  std::string agent = sdk::ResolveAgentId(caller, args, /*required=*/false);
  return agent.empty() ? caller.agent_id : agent;
}

std::string StrArg(const sdk::Json& args, const char* key, std::string fallback) {
  auto it = args.find(key);
  if (it == args.end() || !it->is_string()) return fallback;
  return it->get<std::string>();
}

std::string NormalizeKey(std::string_view text) {
  std::string s = sdk::CollapseWhitespace(text);
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

}  // namespace kioku::episodic

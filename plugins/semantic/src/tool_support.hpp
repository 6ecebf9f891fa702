#pragma once
/// @file tool_support.hpp
/// Shared pieces of the semantic tools: the plugin context handlers capture and the
/// semantic-only argument helpers (expiry, scope, tags). Times, secrets and schemas come
/// from the SDK kit (kioku/sdk/args.hpp, kioku/sdk/schema.hpp).

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kioku/sdk/args.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/plugin.hpp"
#include "kioku/sdk/schema.hpp"
#include "kioku/sdk/text.hpp"
#include "memory.hpp"
#include "memory_store.hpp"
#include "recall.hpp"
#include "settings.hpp"
#include "index_lag.hpp"
#include "rival_cache.hpp"
#include "term_counts.hpp"
#include "kioku/sdk/embed_worker.hpp"
#include "kioku/sdk/layer_vectors.hpp"

namespace kioku::semantic {

using Json = nlohmann::json;

/// What every handler needs; owned by the plugin, outlives the registered handlers.
struct ToolContext {
  ToolContext(sdk::HostServices& h, Settings s);
  ~ToolContext();
  sdk::HostServices& host;
  Settings settings;
  sdk::StatementCache statements;
  TermCountCache term_counts;
  RivalCache rivals;
  IndexLag index_lag{host};
  /// When MaybeScheduleMaintenance last looked (decay.hpp), host clock ms; 0 = never.
  std::atomic<std::int64_t> maintenance_checked_at{0};
  /// Vector search (status "off" without an embedder) and its background embed worker
  /// (vectors.hpp; near-duplicates fold through dedup.hpp).
  std::unique_ptr<sdk::LayerVectors> vectors;
  std::unique_ptr<sdk::EmbedWorker> worker;

  Env MakeEnv() { return Env{host.Db(), host.GetClock(), settings, statements, &term_counts, &rivals, &index_lag}; }
};

/// Hard limits (also in the input schemas).
inline constexpr int kMaxTextChars = 4000;
inline constexpr int kMaxQueryChars = 2000;
inline constexpr int kMaxBatch = 100;
inline constexpr int kMaxTags = 20;

Author AuthorOf(const sdk::Caller& caller);
Viewer ViewerOf(const sdk::Caller& caller);

/// `expires`: "permanent" → 0, or an RFC 3339 date-time/date in the future (sdk::ParseTime).
std::int64_t ParseExpires(const Json& value, std::int64_t now_ms);

/// Resolves scope + path for a write. `scope` may be empty (then the default: "path" when
/// a path is given, else settings.default_scope, downgraded to "global" without a project).
/// Paths are made project-relative; absolute paths outside the project root and paths
/// escaping it with ".." are refused.
Scope ResolveWriteScope(const std::string& scope, const std::optional<std::string>& path,
                        const sdk::Caller& caller, const Settings& settings);

/// Normalized, de-duplicated tags; ToolError on an empty or over-long tag.
std::vector<std::string> ParseTags(const Json& tags);

/// Compact one-line preview.
std::string Preview(std::string_view text, std::size_t max_bytes = 100);

using sdk::Plural;  // "1 memory" / "3 memories"

}  // namespace kioku::semantic

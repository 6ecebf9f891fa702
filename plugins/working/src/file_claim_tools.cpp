// file_claim / file_release / claim_list: advisory per-file leases (dokoro "Multi-agent file
// claims": all-or-nothing, renew by re-claiming, stale takeover, force recorded), kept in
// SQLite so several server processes sharing one database agree. Every write is one
// BEGIN IMMEDIATE transaction that checks and writes, so exactly one racer wins a path.
#include <algorithm>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/sql.hpp"
#include "paths.hpp"
#include "tools.hpp"

namespace kioku::working {
namespace {

constexpr std::int64_t kMaxIntentBytes = 500;
constexpr std::int64_t kDefaultListLimit = 200;
constexpr std::int64_t kMaxListLimit = 1000;

std::vector<std::string> PathsArg(const Json& args) {
  std::vector<std::string> out;
  if (!args.contains("paths") || args.at("paths").is_null()) return out;
  for (const auto& p : args.at("paths")) out.push_back(p.get<std::string>());
  return out;
}

std::int64_t TtlArg(const Json& args, std::int64_t def, std::int64_t max, const char* what) {
  if (!args.contains("ttl_seconds") || args.at("ttl_seconds").is_null()) return def;
  const auto& v = args.at("ttl_seconds");
  const std::int64_t ttl = v.is_number_integer() ? v.get<std::int64_t>() : -1;
  if (ttl < kMinTtlSeconds || ttl > max) {
    throw sdk::ToolError("ttl_seconds " + v.dump() + " is out of range for a " + what +
                         ": send " + std::to_string(kMinTtlSeconds) + " to " +
                         std::to_string(max) + " seconds (default " + std::to_string(def) +
                         "); nothing was claimed");
  }
  return ttl;
}

struct Existing {
  std::string holder;
  std::string intent;
  std::int64_t claimed_at_ms = 0;
  std::int64_t expires_at_ms = 0;
  std::int64_t heartbeat_seq = 0;
  std::optional<std::int64_t> holder_seen_ms;
};

std::optional<Existing> LoadClaim(SQLite::Statement& sel, const std::string& project,
                                  const std::string& path) {
  sel.reset();
  sdk::Bind(sel, project, path);
  if (!sel.executeStep()) return std::nullopt;
  Existing e;
  e.holder = sel.getColumn(0).getString();
  e.intent = sel.getColumn(1).getString();
  e.claimed_at_ms = sel.getColumn(2).getInt64();
  e.expires_at_ms = sel.getColumn(3).getInt64();
  e.heartbeat_seq = sel.getColumn(4).getInt64();
  if (!sel.getColumn(5).isNull()) e.holder_seen_ms = sel.getColumn(5).getInt64();
  return e;
}

constexpr const char* kSelectClaim =
    "SELECT c.holder, c.intent, c.claimed_at, c.expires_at, c.heartbeat_seq, "
    "p.last_seen_at FROM working_file_claims c LEFT JOIN working_presence p "
    "ON p.project_id = c.project_id AND p.agent_id = c.holder "
    "WHERE c.project_id = ? AND c.path = ?";

// Relative paths are relative to the caller's working folder inside the project.
std::vector<std::string> InWorkingDir(std::vector<std::string> inputs, const Actor& actor) {
  if (actor.subdir.empty()) return inputs;
  for (auto& p : inputs) {
    if (!p.empty() && p.front() != '/') p = actor.subdir + "/" + p;
  }
  return inputs;
}

sdk::ToolResult FileClaim(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const std::vector<std::string> raw_paths = PathsArg(args);
  for (std::size_t i = 0; i < raw_paths.size(); ++i) {
    RefuseSecret(env, raw_paths[i], "paths[" + std::to_string(i) + "]");
  }
  const auto paths = NormalizeClaimPaths(
      InWorkingDir(PathsArg(args), actor), actor.project_root,
      static_cast<std::size_t>(env.settings.max_paths_per_call));
  const std::int64_t ttl = TtlArg(args, env.settings.file_claim_default_ttl_seconds,
                                  env.settings.file_claim_max_ttl_seconds, "file claim");
  const auto intent = TextArg(env, args, "intent", kMaxIntentBytes);
  const bool force = args.value("force", false);
  const std::int64_t presence_ttl = env.settings.presence_ttl_seconds;

  auto& db = env.Db();
  Json claims;
  Json conflicts;
  std::int64_t now = 0;
  int renewed = 0;
  int taken = 0;
  sdk::WithWriteTransaction(db, [&] {
    claims = Json::array();
    conflicts = Json::array();
    renewed = 0;
    taken = 0;
    now = env.Now();  // read under the write lock: expiry is judged at commit time
    const std::int64_t expires = now + ttl * sdk::kMsPerSecond;
    struct Plan {
      const std::string* path;
      std::optional<Existing> old;
      std::string reason;  // "new" | "renew" | "expired" | "holder_stale" | "forced"
    };
    std::vector<Plan> plans;
    plans.reserve(paths.size());
    SQLite::Statement sel(db, kSelectClaim);
    for (const auto& path : paths) {
      auto old = LoadClaim(sel, actor.project_id, path);
      std::string reason;
      if (!old) {
        reason = "new";
      } else if (old->holder == actor.agent_id) {
        reason = "renew";
      } else if (old->expires_at_ms <= now) {
        reason = "expired";
      } else if (LivenessOf(old->holder_seen_ms, now, presence_ttl) == Liveness::kStale) {
        reason = "holder_stale";
      } else if (force) {
        reason = "forced";
      } else {
        const Liveness l = LivenessOf(old->holder_seen_ms, now, presence_ttl);
        conflicts.push_back({{"path", path},
                             {"holder", old->holder},
                             {"intent", old->intent},
                             {"expires_at", Rfc(old->expires_at_ms)},
                             {"liveness", LivenessName(l)}});
        continue;
      }
      plans.push_back({&path, std::move(old), std::move(reason)});
    }
    if (!conflicts.empty()) return;  // all-or-nothing: write nothing

    SQLite::Statement up(
        db,
        "INSERT INTO working_file_claims (project_id, path, holder, intent, session_id, "
        "claimed_at, renewed_at, expires_at, heartbeat_seq) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (project_id, path) DO UPDATE SET "
        "holder = excluded.holder, intent = excluded.intent, session_id = excluded.session_id, "
        "claimed_at = excluded.claimed_at, renewed_at = excluded.renewed_at, "
        "expires_at = excluded.expires_at, heartbeat_seq = excluded.heartbeat_seq");
    for (const auto& plan : plans) {
      const bool renew = plan.reason == "renew";
      const std::string the_intent =
          intent ? *intent : (renew && plan.old ? plan.old->intent : std::string());
      up.reset();
      sdk::Bind(up, actor.project_id, *plan.path, actor.agent_id, the_intent, actor.session_id,
                renew ? plan.old->claimed_at_ms : now, now, expires,
                renew ? plan.old->heartbeat_seq + 1 : std::int64_t{0});
      up.exec();
      Json item = {{"path", *plan.path},
                   {"holder", actor.agent_id},
                   {"intent", the_intent},
                   {"expires_at", Rfc(expires)},
                   {"renewed", renew},
                   {"takeover", nullptr}};
      if (renew) {
        ++renewed;  // the row's heartbeat_seq counts renewals; no log row per heartbeat
      } else if (plan.reason == "new") {
        RecordEvent(db, actor, "file.claim", *plan.path,
                    {{"expires_at_ms", expires}, {"intent", the_intent}}, now);
      } else {
        ++taken;
        Json t = {{"previous_holder", plan.old->holder},
                  {"reason", plan.reason},
                  {"previous_expires_at", Rfc(plan.old->expires_at_ms)}};
        item["takeover"] = t;
        Json detail = t;
        detail["expires_at_ms"] = expires;
        detail["intent"] = the_intent;
        RecordEvent(db, actor, "file.takeover", *plan.path, detail, now);
      }
      claims.push_back(std::move(item));
    }
    TouchPresence(db, actor, now);
  });

  const bool acquired = conflicts.empty();
  // The answer fits the host's result cap (a claim of many long paths is stored either
  // way): rows are listed while they fit; the rest is counted and left to claim_list.
  sdk::ResultPage page(0, paths.size(), sdk::ResultRoom(ctx));
  Json shown = Json::array();
  std::string lines;
  const auto offer = [&](Json& row, const std::string& line) {
    if (!page.Offer(sdk::RowBytes(row, line))) return;
    lines += line;
    shown.push_back(std::move(row));
  };
  std::string text;
  if (acquired) {
    text = "claimed " + std::to_string(claims.size()) + " file(s) until " +
           Rfc(now + ttl * sdk::kMsPerSecond);
    if (renewed > 0) text += " (" + std::to_string(renewed) + " renewed)";
    for (auto& c : claims) {
      std::string line = "\n- " + c["path"].get<std::string>();
      if (!c["takeover"].is_null()) {
        line += " (taken over from " + c["takeover"]["previous_holder"].get<std::string>() +
                ": " + c["takeover"]["reason"].get<std::string>() + ")";
      }
      offer(c, line);
    }
    claims = std::move(shown);
  } else {
    text = "not claimed: " + std::to_string(conflicts.size()) + " of " +
           std::to_string(paths.size()) +
           " path(s) are held by other agents, so nothing was claimed (all-or-nothing)";
    for (auto& c : conflicts) {
      std::string line = "\n- " + c["path"].get<std::string>() + ": " + c["holder"].get<std::string>();
      if (!c["intent"].get<std::string>().empty()) {
        line += " (" + Snip(c["intent"].get<std::string>(), 60) + ")";
      }
      line += " until " + c["expires_at"].get<std::string>() + ", " + c["liveness"].get<std::string>();
      offer(c, line);
    }
    conflicts = std::move(shown);
  }
  text += lines;
  if (page.Omitted() > 0) {
    text += "\n… " + std::to_string(page.Omitted()) + " more not listed (result size cap); claim_list shows them";
  }
  if (!acquired) {
    text += "\nCoordinate with the holder (handoff_write), wait for expiry, claim the other "
            "files, or send force:true to take over (recorded).";
  }
  Json out = {{"acquired", acquired},
              {"claims", std::move(claims)},
              {"conflicts", std::move(conflicts)},
              {"omitted", page.Omitted()},
              {"ttl_seconds", ttl}};
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult FileRelease(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const bool all = args.value("all", false);
  const bool has_paths = args.contains("paths") && !args.at("paths").is_null();
  if (all == has_paths) {
    throw sdk::ToolError(has_paths ? "send either paths or all:true, not both"
                                   : "send paths (a list of files) or all:true");
  }
  std::vector<std::string> paths;
  if (has_paths) {
    paths = NormalizeClaimPaths(InWorkingDir(PathsArg(args), actor), actor.project_root,
                                static_cast<std::size_t>(env.settings.max_paths_per_call));
  }
  auto& db = env.Db();
  Json released;
  Json not_held;
  Json expired;  // released claims whose lease had already run out: path → expiry
  std::string refusal;
  sdk::WithWriteTransaction(db, [&] {
    released = Json::array();
    not_held = Json::array();
    expired = Json::object();
    refusal.clear();
    const std::int64_t now = env.Now();
    if (all) {
      SQLite::Statement del(db,
                            "DELETE FROM working_file_claims WHERE project_id = ? AND "
                            "holder = ? RETURNING path, expires_at");
      sdk::Bind(del, actor.project_id, actor.agent_id);
      std::vector<std::string> gone;
      while (del.executeStep()) {
        gone.push_back(del.getColumn(0).getString());
        const std::int64_t until = del.getColumn(1).getInt64();
        if (until <= now) expired[gone.back()] = Rfc(until);
      }
      std::sort(gone.begin(), gone.end());
      for (const auto& p : gone) {
        RecordEvent(db, actor, "file.release", p, Json::object(), now);
        released.push_back(p);
      }
    } else {
      SQLite::Statement sel(db, kSelectClaim);
      std::vector<std::string> mine;
      for (const auto& path : paths) {
        auto old = LoadClaim(sel, actor.project_id, path);
        if (!old) {
          not_held.push_back(path);
        } else if (old->holder == actor.agent_id) {
          mine.push_back(path);
          if (old->expires_at_ms <= now) expired[path] = Rfc(old->expires_at_ms);
        } else {
          refusal += "\n- " + path + ": held by " + old->holder + " until " +
                     Rfc(old->expires_at_ms);
        }
      }
      if (!refusal.empty()) return;  // nothing released
      SQLite::Statement del(db,
                            "DELETE FROM working_file_claims WHERE project_id = ? AND path = ? "
                            "AND holder = ?");
      for (const auto& path : mine) {
        del.reset();
        sdk::Bind(del, actor.project_id, path, actor.agent_id);
        del.exec();
        RecordEvent(db, actor, "file.release", path, Json::object(), now);
        released.push_back(path);
      }
    }
    TouchPresence(db, actor, now);
  });
  if (!refusal.empty()) {
    throw sdk::ToolError(
        "cannot release claims held by other agents (only the holder releases); nothing was "
        "released:" + refusal +
        "\nRelease only your own paths, or take a claim over with file_claim force:true.");
  }
  std::string text = "released " + std::to_string(released.size()) + " claim(s)";
  if (!expired.empty()) {
    text += " (" + std::to_string(expired.size()) +
            " had already expired: others could have taken them since)";
  }
  // Every path is released; the answer names as many as fit the result cap (releasing
  // all of 400 long paths named them twice, over it) and counts the rest.
  const std::size_t released_count = released.size();
  const std::size_t room = sdk::ResultRoom(ctx) - 1024;
  sdk::ResultPage page(0, SIZE_MAX, room / 4 * 3);
  Json shown = Json::array();
  Json shown_expired = Json::object();
  for (const auto& p : released) {
    const std::string path = p.get<std::string>();
    std::string line = "\n- " + path;
    if (expired.contains(path)) line += " (expired " + expired[path].get<std::string>() + ")";
    if (!page.Offer(2 * line.size() + 8)) continue;  // path in text, `released` and `expired`
    text += line;
    shown.push_back(path);
    if (expired.contains(path)) shown_expired[path] = expired[path];
  }
  if (page.Omitted() > 0) {
    text += "\n… and " + std::to_string(page.Omitted()) + " more released (result size cap; claim_list shows what is left)";
  }
  sdk::ResultPage idle(0, SIZE_MAX, room / 4);
  Json idle_shown = Json::array();
  if (!not_held.empty()) {
    text += "\nnot claimed by anyone (nothing to do):";
    for (const auto& p : not_held) {
      if (!idle.Offer(2 * p.get_ref<const std::string&>().size() + 8)) continue;
      text += " " + p.get<std::string>();
      idle_shown.push_back(p);
    }
    if (idle.Omitted() > 0) text += " … and " + std::to_string(idle.Omitted()) + " more";
  }
  Json out = {{"released", std::move(shown)}, {"released_count", released_count}, {"omitted", page.Omitted()},
              {"not_held", std::move(idle_shown)}, {"expired", std::move(shown_expired)}};
  if (idle.Omitted() > 0) out["not_held_omitted"] = idle.Omitted();
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult ClaimList(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  std::optional<std::string> prefix;
  if (args.contains("path_prefix") && !args.at("path_prefix").is_null()) {
    const std::string raw = args.at("path_prefix").get<std::string>();
    // A prefix naming the project root itself ("", ".", "/abs/root/") means no filter.
    std::string probe;
    try {
      probe = NormalizeClaimPath(raw + "/x", actor.project_root);
    } catch (const sdk::ToolError&) {
      // reported below with the caller's own spelling
    }
    const bool is_root = raw.empty() || probe == "x";
    if (!is_root) {
      prefix = NormalizeClaimPath(raw, actor.project_root);
      if (raw.back() == '/') *prefix += '/';
    }
  }
  const bool include_expired = args.value("include_expired", false);
  const std::int64_t limit = args.value("limit", kDefaultListLimit);
  const std::int64_t now = env.Now();
  auto& db = env.Db();
  SQLite::Statement q(
      db,
      "SELECT c.path, c.holder, c.intent, c.claimed_at, c.renewed_at, c.expires_at, "
      "c.heartbeat_seq, p.last_seen_at FROM working_file_claims c LEFT JOIN working_presence "
      "p ON p.project_id = c.project_id AND p.agent_id = c.holder WHERE c.project_id = ?1 "
      "AND (?2 IS NULL OR substr(c.path, 1, length(?2)) = ?2) AND (?3 OR c.expires_at > "
      "?4) ORDER BY c.path LIMIT -1 OFFSET ?5");
  const std::size_t offset = sdk::CursorOffset(args, "claim_list");
  sdk::Bind(q, actor.project_id, prefix, include_expired, now, static_cast<std::int64_t>(offset));
  sdk::ResultPage page(offset, static_cast<std::size_t>(limit), sdk::ResultRoom(ctx));
  Json claims = Json::array();
  std::string lines;
  while (q.executeStep()) {
    if (page.Shown() >= static_cast<std::size_t>(limit) || page.Omitted() > 0) {
      page.Offer(0);  // past the page: counted only
      continue;
    }
    std::optional<std::int64_t> seen;
    if (!q.getColumn(7).isNull()) seen = q.getColumn(7).getInt64();
    const Liveness l = LivenessOf(seen, now, env.settings.presence_ttl_seconds);
    const std::int64_t expires = q.getColumn(5).getInt64();
    const std::string path = q.getColumn(0).getString();
    const std::string holder = q.getColumn(1).getString();
    const std::string intent = q.getColumn(2).getString();
    const bool active = expires > now;
    Json j = {{"path", path},
              {"holder", holder},
              {"intent", intent},
              {"claimed_at", Rfc(q.getColumn(3).getInt64())},
              {"renewed_at", Rfc(q.getColumn(4).getInt64())},
              {"expires_at", Rfc(expires)},
              {"heartbeat_seq", q.getColumn(6).getInt64()},
              {"state", active ? "active" : "expired"},
              {"liveness", LivenessName(l)},
              {"mine", !actor.agent_id.empty() && holder == actor.agent_id}};
    std::string line = "\n- " + path + ": " + holder +
                       (holder == actor.agent_id ? " (you)" : "") + (intent.empty() ? "" : " (" + Snip(intent, 60) + ")") +
                       (active ? " until " : " expired ") + Rfc(expires) + ", holder " +
                       std::string(LivenessName(l));
    if (!page.Offer(sdk::RowBytes(j, line))) continue;
    claims.push_back(std::move(j));
    lines += line;
  }
  const bool truncated = page.Omitted() > 0;
  std::string text = std::to_string(claims.size()) +
                     (include_expired ? " claim(s)" : " active claim(s)") +
                     (prefix ? " under '" + *prefix + "'" : std::string()) + lines;
  if (truncated) text += "\n" + page.MoreText("claim_list") + " (or narrow path_prefix)";
  Json out = {{"claims", std::move(claims)}, {"truncated", truncated}};
  page.Describe(out);
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

Json PathsProp(const ToolContext& env, const char* description) {
  Json p = {{"type", "array"},
            {"items", schema::String(static_cast<std::int64_t>(kMaxPathBytes), "", 1)},
            {"minItems", 1},
            {"maxItems", env.settings.max_paths_per_call}};
  if (*description != '\0') p["description"] = description;
  return p;
}

}  // namespace

void RegisterFileClaimTools(sdk::Registrar& registrar, const ToolContext& env) {
  const auto& s = env.settings;
  {
    sdk::ToolSpec spec;
    spec.name = "file_claim";
    spec.title = "Claim files you are about to edit";
    spec.description =
        "Lease files before editing so other agents see it; all-or-nothing. A live holder of "
        "any path gives acquired:false with the conflicts; stale or expired claims are taken "
        "over; force:true overrides. ttl_seconds default " +
        std::to_string(s.file_claim_default_ttl_seconds) + ".";
    Json claim = schema::Output({{"path", schema::Type("string")},
                                 {"holder", schema::Type("string")},
                                 {"expires_at", schema::Type("string")},
                                 {"intent", schema::Type("string")},
                                 {"renewed", schema::Bool()},
                                 {"takeover", {{"type", Json::array({"object", "null"})}}}},
                                {"path", "holder", "expires_at"});
    Json conflict = schema::Output({{"path", schema::Type("string")},
                                    {"holder", schema::Type("string")},
                                    {"intent", schema::Type("string")},
                                    {"expires_at", schema::Type("string")},
                                    {"liveness", {{"enum", {"live", "stale", "unknown"}}}}},
                                   {"path", "holder", "intent", "expires_at", "liveness"});
    spec.schemas = [=, &env](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {
              {"paths", PathsProp(env, "")},
              {"intent", schema::String(kMaxIntentBytes)},
              {"ttl_seconds", schema::Integer(kMinTtlSeconds, s.file_claim_max_ttl_seconds)},
              {"force", schema::Bool("")},
              {"agent_id", AgentIdProp()},
          },
          {"paths"});
      t.output_schema = schema::Output({{"acquired", schema::Bool()},
                                        {"claims", schema::ArrayOf(claim)},
                                        {"conflicts", schema::ArrayOf(conflict)},
                                        {"omitted", schema::Type("integer")},
                                        {"ttl_seconds", schema::Type("integer")}},
                                       {"acquired", "claims", "conflicts"});
    };
    spec.annotations.destructive = true;  // force:true overrides another agent's claim
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return FileClaim(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "file_release";
    spec.title = "Release your file claims";
    spec.description =
        "Release your file claims: paths, or all:true.";
    spec.schemas = [=, &env](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"paths", PathsProp(env, "")},
          {"all", schema::Bool("")},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema =
          schema::Output({{"released", schema::ArrayOf(schema::Type("string"))},
                          {"not_held", schema::ArrayOf(schema::Type("string"))},
                          {"released_count", schema::Type("integer")},
                          {"omitted", schema::Type("integer")},
                          {"expired", {{"type", "object"}, {"additionalProperties", schema::Type("string")}}}},
                         {"released", "not_held"});
    };
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return FileRelease(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "claim_list";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "List file claims";
    spec.description =
        "Lists file claims in this project with holder liveness (live / stale / unknown, "
        "from presence heartbeats): active ones by default, expired ones too with "
        "include_expired. Filter with path_prefix (a plain string prefix of the normalized "
        "path; end it with '/' for a folder).";
    Json claim = schema::Output({{"path", schema::Type("string")},
                                 {"holder", schema::Type("string")},
                                 {"intent", schema::Type("string")},
                                 {"claimed_at", schema::Type("string")},
                                 {"renewed_at", schema::Type("string")},
                                 {"expires_at", schema::Type("string")},
                                 {"heartbeat_seq", schema::Type("integer")},
                                 {"state", {{"enum", {"active", "expired"}}}},
                                 {"liveness", {{"enum", {"live", "stale", "unknown"}}}},
                                 {"mine", schema::Bool()}},
                                {"path", "holder", "expires_at", "state", "liveness"});
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"path_prefix", schema::String(static_cast<std::int64_t>(kMaxPathBytes),
                                         "Only paths starting with this (normalized like claims).")},
          {"include_expired", schema::Bool("Also list expired leases (default false).")},
          {"limit", schema::Integer(1, kMaxListLimit, "Most claims to return (default 200).")},
          {"cursor", schema::String(16)},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema = schema::Output({{"claims", schema::ArrayOf(claim)},
                                        {"truncated", schema::Bool()},
                                        {"omitted", schema::Type("integer")},
                                        {"next_cursor", schema::Type("string")}},
                                       {"claims", "omitted"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return ClaimList(env, a, c);
    });
  }
}

}  // namespace kioku::working

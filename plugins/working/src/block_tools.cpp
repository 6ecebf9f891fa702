// block_write / block_read / block_list: shared editable memory blocks (Letta core memory
// blocks: a labelled text with a size limit) with an optimistic version (dokoro
// dokoro_block_write). Every version is kept in working_block_history.
#include <algorithm>
#include <cctype>
#include <cstdint>

#include <SQLiteCpp/Statement.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "tools.hpp"
#include "versioned.hpp"

namespace kioku::working {
namespace {

constexpr std::size_t kMaxKeyBytes = 128;

std::string KeyArg(const Json& args) {
  const std::string key = args.value("key", std::string());
  bool ok = !key.empty() && key.size() <= kMaxKeyBytes &&
            std::isalnum(static_cast<unsigned char>(key[0]));
  for (unsigned char c : key) {
    if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || c == '/' || c == ':')) {
      ok = false;
    }
  }
  if (!ok) {
    throw sdk::ToolError("block key '" + Snip(key, 60) +
                         "' is not valid: use 1-128 characters of letters, digits and . _ - / "
                         ": starting with a letter or digit, e.g. \"project-conventions\"");
  }
  return key;
}

std::optional<VersionedState> LoadBlock(SQLite::Database& db, const std::string& project,
                                        const std::string& key) {
  SQLite::Statement q(db,
                      "SELECT content, version, updated_by, updated_at FROM working_blocks "
                      "WHERE project_id = ? AND key = ?");
  sdk::Bind(q, project, key);
  if (!q.executeStep()) return std::nullopt;
  return VersionedState{q.getColumn(0).getString(), q.getColumn(1).getInt64(),
                        q.getColumn(2).getString(), q.getColumn(3).getInt64()};
}

Json BlockJson(const std::string& key, const VersionedState& s) {
  return {{"key", key},
          {"content", s.content},
          {"version", s.version},
          {"updated_by", s.updated_by},
          {"updated_at", Rfc(s.updated_at_ms)}};
}

sdk::ToolResult BlockWrite(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  RefuseSecret(env, args.value("key", std::string()), "key");
  const std::string key = KeyArg(args);
  const std::string text = CheckText(env, args.value("content", std::string()), "content",
                                     env.settings.max_block_bytes);
  const auto expected = ExpectedVersionArg(args);
  const WriteMode mode = ModeArg(args);
  if (mode == WriteMode::kAppend && text.empty()) {
    throw sdk::ToolError("content is empty; appending nothing changes nothing");
  }
  auto& db = env.Db();
  std::optional<std::string> refusal;
  VersionedState current;
  VersionedState written;
  sdk::WithWriteTransaction(db, [&] {
    refusal.reset();
    const std::int64_t now = env.Now();
    current = LoadBlock(db, actor.project_id, key).value_or(VersionedState{});
    refusal = VersionRefusal(current, expected, mode, actor.agent_id, "block '" + key + "'");
    if (refusal) return;
    written.content = ApplyWrite(current, text, mode);
    if (static_cast<std::int64_t>(written.content.size()) > env.settings.max_block_bytes) {
      throw sdk::ToolError("block '" + key + "' would be " +
                           std::to_string(written.content.size()) + " bytes; the limit is " +
                           std::to_string(env.settings.max_block_bytes) +
                           " bytes. Nothing was written — condense it and replace.");
    }
    written.version = current.version + 1;
    written.updated_by = actor.agent_id;
    written.updated_at_ms = now;
    SQLite::Statement up(
        db,
        "INSERT INTO working_blocks (project_id, key, content, version, created_by, "
        "created_at, updated_by, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?5, ?6) "
        "ON CONFLICT (project_id, key) DO UPDATE SET content = excluded.content, version = "
        "excluded.version, updated_by = excluded.updated_by, updated_at = "
        "excluded.updated_at");
    sdk::Bind(up, actor.project_id, key, written.content, written.version, actor.agent_id, now);
    up.exec();
    SQLite::Statement hist(db,
                           "INSERT INTO working_block_history (project_id, key, version, "
                           "content, written_by, written_at) VALUES (?, ?, ?, ?, ?, ?)");
    sdk::Bind(hist, actor.project_id, key, written.version, written.content, actor.agent_id, now);
    hist.exec();
    RecordEvent(db, actor, "block.write", key,
                {{"version", written.version},
                 {"mode", mode == WriteMode::kAppend ? "append" : "replace"}},
                now);
    TouchPresence(db, actor, now);
  });
  // A large block is echoed only as far as the result cap allows (block_read pages it).
  const std::size_t echo = std::max<std::size_t>(sdk::ResultRoom(ctx) / 2, 1024) - 512;
  auto clip = [&](Json& j, const std::string& content) {
    if (content.size() <= echo) return;
    j["content"] = sdk::TruncateUtf8(content, echo, "");
    j["omitted_bytes"] = content.size() - j["content"].get_ref<const std::string&>().size();
  };
  if (refusal) {
    Json current_json = BlockJson(key, current);
    clip(current_json, current.content);
    std::string msg = *refusal;
    if (current.version > 0) msg += "\n--- current content (version " +
                                    std::to_string(current.version) + ") ---\n" +
                                    current_json["content"].get<std::string>();
    return sdk::ToolResult::Error(std::move(msg), {{"current", current_json}});
  }
  Json out = BlockJson(key, written);
  clip(out, written.content);
  out["previous_version"] = current.version;
  out["bytes"] = written.content.size();
  return sdk::ToolResult::Ok("block '" + key + "' written: version " +
                                 std::to_string(written.version) + " (" +
                                 std::to_string(written.content.size()) + " bytes)",
                             std::move(out));
}

sdk::ToolResult BlockRead(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  const std::string key = KeyArg(args);
  auto& db = env.Db();
  auto current = LoadBlock(db, actor.project_id, key);
  if (!current) {
    throw sdk::ToolError("no block '" + key +
                         "' in this project; block_list shows the existing keys, block_write "
                         "creates one");
  }
  Json out;
  if (args.contains("version") && !args.at("version").is_null()) {
    const std::int64_t v = args.at("version").get<std::int64_t>();
    SQLite::Statement q(db,
                        "SELECT content, written_by, written_at FROM working_block_history "
                        "WHERE project_id = ? AND key = ? AND version = ?");
    sdk::Bind(q, actor.project_id, key, v);
    if (!q.executeStep()) {
      throw sdk::ToolError("block '" + key + "' has no version " + std::to_string(v) +
                           "; versions run from 1 to " + std::to_string(current->version));
    }
    out = BlockJson(key, {q.getColumn(0).getString(), v, q.getColumn(1).getString(),
                          q.getColumn(2).getInt64()});
    out["current_version"] = current->version;
  } else {
    out = BlockJson(key, *current);
    out["current_version"] = current->version;
  }
  std::string text = "block '" + key + "' version " + std::to_string(out["version"].get<std::int64_t>()) +
                     (out["version"] != current->version
                          ? " (current is " + std::to_string(current->version) + ")"
                          : std::string()) +
                     ", by " + out["updated_by"].get<std::string>() + " at " +
                     out["updated_at"].get<std::string>();
  // The content goes out twice (text and JSON): a block larger than half the result room
  // is read in windows of whole UTF-8 characters, from `offset` (bytes).
  const std::string content = out["content"].get<std::string>();
  const std::size_t room = sdk::ResultRoom(ctx);
  const std::size_t fixed = 2 * text.size() + 256;
  auto [offset, part, omitted] = WindowOf(content, static_cast<std::size_t>(args.value("offset", std::int64_t{0})),
                                          room > fixed ? (room - fixed) / 2 : 1024);
  if (offset > 0 || omitted > 0) {
    text += " (bytes " + std::to_string(offset) + "–" + std::to_string(offset + part.size()) + " of " +
            std::to_string(content.size()) +
            (omitted > 0 ? "; " + std::to_string(omitted) + " more: block_read with offset " +
                               std::to_string(offset + part.size())
                         : std::string()) +
            ")";
    out["offset"] = offset;
    out["omitted_bytes"] = omitted;
    if (omitted > 0) out["next_offset"] = offset + part.size();
  }
  text += "\n" + part;
  out["content"] = std::move(part);
  return sdk::ToolResult::Ok(std::move(text), std::move(out));
}

sdk::ToolResult BlockList(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  const std::string prefix = args.value("key_prefix", std::string());
  const std::int64_t limit = args.value("limit", std::int64_t{100});
  auto& db = env.Db();
  SQLite::Statement q(db,
                      "SELECT key, version, updated_by, updated_at, length(CAST(content AS "
                      "BLOB)), content FROM working_blocks WHERE project_id = ?1 AND "
                      "substr(key, 1, length(?2)) = ?2 ORDER BY key LIMIT ?3");
  sdk::Bind(q, actor.project_id, prefix, limit + 1);
  Json blocks = Json::array();
  std::string lines;
  bool truncated = false;
  // The page also ends before the host's result byte cap (text and JSON together).
  const std::size_t room = sdk::ResultRoom(ctx);
  std::size_t used = 256;
  while (q.executeStep()) {
    if (static_cast<std::int64_t>(blocks.size()) == limit) {
      truncated = true;
      break;
    }
    const std::string key = q.getColumn(0).getString();
    const std::string preview = Snip(q.getColumn(5).getString(), 80);
    Json item = {{"key", key},
                 {"version", q.getColumn(1).getInt64()},
                 {"updated_by", q.getColumn(2).getString()},
                 {"updated_at", Rfc(q.getColumn(3).getInt64())},
                 {"bytes", q.getColumn(4).getInt64()},
                 {"preview", preview}};
    std::string line = "\n- " + key + " v" + std::to_string(q.getColumn(1).getInt64()) + " (" +
                       q.getColumn(2).getString() + "): " + preview;
    const std::size_t cost = sdk::DumpJson(item).size() + line.size() + 1;
    if (!blocks.empty() && used + cost > room) {
      truncated = true;
      break;
    }
    used += cost;
    blocks.push_back(std::move(item));
    lines += line;
  }
  std::string text = std::to_string(blocks.size()) + " block(s)" +
                     (truncated ? " (truncated; use key_prefix, a later key_prefix range, or raise limit)" : "") + lines;
  return sdk::ToolResult::Ok(std::move(text),
                             {{"blocks", std::move(blocks)}, {"truncated", truncated}});
}

Json BlockOutput(bool with_current) {
  Json props = {{"key", schema::Type("string")},
                {"content", schema::Type("string")},
                {"version", schema::Type("integer")},
                {"updated_by", schema::Type("string")},
                {"updated_at", schema::Type("string")}};
  if (with_current) props["current_version"] = schema::Type("integer");
  return schema::Output(props, {"key", "content", "version", "updated_by", "updated_at"});
}

}  // namespace

void RegisterBlockTools(sdk::Registrar& registrar, const ToolContext& env) {
  const auto& s = env.settings;
  const Json key_prop =
      schema::String(static_cast<std::int64_t>(kMaxKeyBytes),
                     "Block key: letters, digits and . _ - / : (e.g. \"project-conventions\").", 1);
  {
    sdk::ToolSpec spec;
    spec.name = "block_write";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Write a shared memory block";
    spec.description = "Creates or updates a shared, editable memory block (key + text, at most " +
                       std::to_string(s.max_block_bytes) +
                       " bytes) that every agent in this project can read — for conventions, shared state, "
                       "decisions in flight. Optimistic locking: send the expected_version you read "
                       "(0 = create only); a stale version is refused with the current version and content "
                       "so you can merge and retry. Without expected_version you may create a block or "
                       "replace your own last write; replacing another agent's text needs the version. "
                       "mode:\"append\" adds a line and never conflicts.";
    Json out = BlockOutput(false);
    out["properties"]["previous_version"] = schema::Type("integer");
    out["properties"]["bytes"] = schema::Type("integer");
    // The echoed content was cut (result cap).
    out["properties"]["omitted_bytes"] = schema::Type("integer");
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {
              {"key", key_prop},
              {"content", schema::String(s.max_block_bytes,
                                         "The text (the whole block for replace, the addition for "
                                         "append).")},
              {"expected_version",
               schema::Integer(0, std::int64_t{1} << 50, "Version you read (0 = the block must not exist yet).")},
              {"mode", schema::Enum({"replace", "append"}, "replace (default) or append.")},
              {"agent_id", AgentIdProp()},
          },
          {"key", "content"});
      t.output_schema = out;
    };
    spec.annotations.destructive = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return BlockWrite(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "block_read";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Read a shared memory block";
    spec.description =
        "Reads a shared block: content, version and who last wrote it. Read before "
        "block_write so you can send expected_version. `version` reads an older version "
        "from the block's history.";
    Json read_output = BlockOutput(true);
    read_output["properties"]["offset"] = schema::Type("integer");
    read_output["properties"]["omitted_bytes"] = schema::Type("integer");
    read_output["properties"]["next_offset"] = schema::Type("integer");
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {{"key", key_prop},
           {"version", schema::Integer(1, std::int64_t{1} << 50, "An older version to read (default: current).")},
           {"offset",
            schema::Integer(0, std::int64_t{1} << 40, "Byte offset to read from (next_offset of a cut read).")},
           {"agent_id", AgentIdProp()}},
          {"key"});
      t.output_schema = std::move(read_output);
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return BlockRead(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "block_list";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "List shared memory blocks";
    spec.description =
        "Lists this project's shared blocks with version, last writer, size and a preview. "
        "Use at the start of work to see what shared notes exist.";
    Json item = schema::Output({{"key", schema::Type("string")},
                                {"version", schema::Type("integer")},
                                {"updated_by", schema::Type("string")},
                                {"updated_at", schema::Type("string")},
                                {"bytes", schema::Type("integer")},
                                {"preview", schema::Type("string")}},
                               {"key", "version", "updated_by", "updated_at"});
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({
          {"key_prefix", schema::String(static_cast<std::int64_t>(kMaxKeyBytes), "Only keys starting with this.")},
          {"limit", schema::Integer(1, 1000, "Most blocks to return (default 100).")},
          {"agent_id", AgentIdProp()},
      });
      t.output_schema = schema::Output({{"blocks", schema::ArrayOf(item)}, {"truncated", schema::Bool()}}, {"blocks"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return BlockList(env, a, c);
    });
  }
}

}  // namespace kioku::working

// focus_get / focus_update: the shared focus document of a project, one section at a time
// with per-section optimistic versions (dokoro dokoro_update_current_section, without the
// whole-file rewrite that lost concurrent updates).
#include <algorithm>
#include <vector>

#include <SQLiteCpp/Statement.h>

#include "focus.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/json.hpp"
#include "kioku/sdk/result_page.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "tools.hpp"

namespace kioku::working {

VersionedState LoadFocusSection(SQLite::Database& db, const std::string& project_id,
                                std::string_view section) {
  SQLite::Statement q(db,
                      "SELECT content, version, updated_by, updated_at FROM working_focus "
                      "WHERE project_id = ? AND section = ?");
  sdk::Bind(q, project_id, std::string(section));
  if (!q.executeStep()) return {};
  return {q.getColumn(0).getString(), q.getColumn(1).getInt64(), q.getColumn(2).getString(),
          q.getColumn(3).getInt64()};
}

std::string FocusMarkdown(SQLite::Database& db, const std::string& project_id) {
  std::string doc;
  for (const auto& info : kFocusSections) {
    const auto s = LoadFocusSection(db, project_id, info.id);
    if (s.content.empty()) continue;
    if (!doc.empty()) doc += "\n";
    doc += "## " + std::string(info.title) + "\n" + s.content;
    if (doc.back() != '\n') doc += "\n";
  }
  return doc;
}

namespace {

std::vector<std::string> SectionIds() {
  std::vector<std::string> ids;
  for (const auto& info : kFocusSections) ids.emplace_back(info.id);
  return ids;
}

const FocusSectionInfo& SectionArg(const Json& args) {
  const std::string s = args.value("section", std::string());
  for (const auto& info : kFocusSections) {
    if (info.id == s) return info;
  }
  std::string all;
  for (const auto& id : SectionIds()) all += (all.empty() ? "" : ", ") + id;
  throw sdk::ToolError("unknown focus section '" + Snip(s, 40) + "'; send one of " + all);
}

Json SectionJson(const FocusSectionInfo& info, const VersionedState& s) {
  return {{"section", info.id},
          {"title", info.title},
          {"content", s.content},
          {"version", s.version},
          {"updated_by", s.version == 0 ? Json(nullptr) : Json(s.updated_by)},
          {"updated_at", s.version == 0 ? Json(nullptr) : Json(Rfc(s.updated_at_ms))}};
}

std::string SectionHeading(const FocusSectionInfo& info, const VersionedState& s) {
  return "## " + std::string(info.title) + " (" + std::string(info.id) + ", v" + std::to_string(s.version) +
         (s.version > 0 ? ", " + s.updated_by + " " + Rfc(s.updated_at_ms) : std::string()) + ")\n";
}

// One section read whole, in windows of whole UTF-8 characters from `offset` (its content
// goes out twice: text and JSON).
sdk::ToolResult FocusSectionGet(const ToolContext& env, const Actor& actor, const Json& args, const sdk::CallContext& ctx) {
  const FocusSectionInfo& info = SectionArg(args);
  const auto s = LoadFocusSection(env.Db(), actor.project_id, info.id);
  std::string text = SectionHeading(info, s);
  const std::size_t room = sdk::ResultRoom(ctx);
  const std::size_t fixed = 2 * text.size() + 512;
  auto [offset, part, omitted] = WindowOf(s.content, static_cast<std::size_t>(args.value("offset", std::int64_t{0})),
                                          room > fixed ? (room - fixed) / 2 : 1024);
  Json j = SectionJson(info, s);
  j["bytes"] = s.content.size();
  if (offset > 0 || omitted > 0) {
    j["offset"] = offset;
    j["omitted_bytes"] = omitted;
    if (omitted > 0) j["next_offset"] = offset + part.size();
    text += "(bytes " + std::to_string(offset) + "–" + std::to_string(offset + part.size()) + " of " +
            std::to_string(s.content.size()) +
            (omitted > 0 ? "; " + std::to_string(omitted) + " more: focus_get section \"" + std::string(info.id) +
                               "\" offset " + std::to_string(offset + part.size())
                         : std::string()) +
            ")\n";
  }
  text += (s.content.empty() ? std::string("(empty)") : part) + "\n";
  j["content"] = std::move(part);
  return sdk::ToolResult::Ok(std::move(text), {{"sections", Json::array({std::move(j)})}});
}

// Every section, each cut to its fair share of the result room at a whole UTF-8 character
// (marker, full byte length and how to read the rest); `section` reads one whole.
sdk::ToolResult FocusGet(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx, /*agent_required=*/false);
  if (args.contains("section")) return FocusSectionGet(env, actor, args, ctx);
  if (args.contains("offset")) throw sdk::ToolError("offset reads one section: send section too");
  auto& db = env.Db();
  std::vector<VersionedState> states;
  std::vector<std::size_t> need;  // bytes a section costs whole: text + escaped JSON
  for (const auto& info : kFocusSections) {
    states.push_back(LoadFocusSection(db, actor.project_id, info.id));
    need.push_back(states.back().content.size() + sdk::DumpJson(states.back().content).size());
  }
  const std::size_t fixed = 2048;  // headings, cut notes, versions and the JSON keys
  std::size_t room = sdk::ResultRoom(ctx) > fixed ? sdk::ResultRoom(ctx) - fixed : 4096;
  for (;;) {
    const auto share = FairShares(need, room);
    Json sections = Json::array();
    std::string text;
    for (std::size_t i = 0; i < kFocusSections.size(); ++i) {
      const auto& info = kFocusSections[i];
      const auto& s = states[i];
      Json j = SectionJson(info, s);
      j["bytes"] = s.content.size();
      text += SectionHeading(info, s);
      if (share[i] < need[i]) {
        // The share holds content + its JSON copy; cut the bytes in that proportion.
        const std::size_t keep = share[i] * s.content.size() / need[i];
        std::string part = sdk::TruncateUtf8(s.content, keep, "");
        j["omitted_bytes"] = s.content.size() - part.size();
        j["next_offset"] = part.size();
        text += part + "\n… [cut at " + std::to_string(part.size()) + " of " + std::to_string(s.content.size()) +
                " bytes: focus_get section \"" + std::string(info.id) + "\" offset " +
                std::to_string(part.size()) + " reads the rest]\n";
        j["content"] = std::move(part);
      } else {
        text += (s.content.empty() ? std::string("(empty)") : s.content) + "\n";
      }
      sections.push_back(std::move(j));
    }
    Json out = {{"sections", std::move(sections)}};
    // JSON escapes were counted per section; the loop only guards the fixed allowance.
    if (ctx.result_budget_bytes == 0 || text.size() + sdk::DumpJson(out).size() <= sdk::ResultRoom(ctx) ||
        room <= 4096) {
      return sdk::ToolResult::Ok(std::move(text), std::move(out));
    }
    room = room * 7 / 8;
  }
}

sdk::ToolResult FocusUpdate(const ToolContext& env, const Json& args, const sdk::CallContext& ctx) {
  const Actor actor = ResolveActor(env, args, ctx);
  const FocusSectionInfo& info = SectionArg(args);
  const std::string text = CheckText(env, args.value("content", std::string()), "content",
                                     env.settings.max_focus_section_bytes);
  const auto expected = ExpectedVersionArg(args);
  const WriteMode mode = ModeArg(args);
  if (mode == WriteMode::kAppend && text.empty()) {
    throw sdk::ToolError("content is empty; appending nothing changes nothing");
  }
  const std::string noun = "focus section '" + std::string(info.id) + "'";
  auto& db = env.Db();
  std::optional<std::string> refusal;
  VersionedState current;
  VersionedState written;
  sdk::WithWriteTransaction(db, [&] {
    const std::int64_t now = env.Now();
    current = LoadFocusSection(db, actor.project_id, info.id);
    refusal = VersionRefusal(current, expected, mode, actor.agent_id, noun);
    if (refusal) return;
    written.content = ApplyWrite(current, text, mode);
    if (static_cast<std::int64_t>(written.content.size()) >
        env.settings.max_focus_section_bytes) {
      throw sdk::ToolError(noun + " would be " + std::to_string(written.content.size()) +
                           " bytes; the limit is " +
                           std::to_string(env.settings.max_focus_section_bytes) +
                           " bytes. Nothing was written — condense it and replace.");
    }
    written.version = current.version + 1;
    written.updated_by = actor.agent_id;
    written.updated_at_ms = now;
    SQLite::Statement up(db,
                         "INSERT INTO working_focus (project_id, section, content, version, "
                         "updated_by, updated_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT "
                         "(project_id, section) DO UPDATE SET content = excluded.content, "
                         "version = excluded.version, updated_by = excluded.updated_by, "
                         "updated_at = excluded.updated_at");
    sdk::Bind(up, actor.project_id, std::string(info.id), written.content, written.version,
              actor.agent_id, now);
    up.exec();
    RecordEvent(db, actor, "focus.update", info.id,
                {{"version", written.version},
                 {"mode", mode == WriteMode::kAppend ? "append" : "replace"},
                 {"excerpt", Snip(text, 120)}},
                now);
    TouchPresence(db, actor, now);
  });
  // A section larger than the result room allows is echoed cut (focus_get section reads it).
  const std::size_t echo = std::max<std::size_t>(sdk::ResultRoom(ctx) / 2, 1024) - 512;
  auto clipped = [&](const VersionedState& s) {
    Json j = SectionJson(info, s);
    if (s.content.size() <= echo) return j;
    j["content"] = sdk::TruncateUtf8(s.content, echo, "");
    j["omitted_bytes"] = s.content.size() - j["content"].get_ref<const std::string&>().size();
    return j;
  };
  if (refusal) {
    std::string msg = *refusal;
    Json current_json = clipped(current);
    if (current.version > 0) {
      msg += "\n--- current content (version " + std::to_string(current.version) + ") ---\n" +
             current_json["content"].get<std::string>();
    }
    return sdk::ToolResult::Error(std::move(msg), {{"current", std::move(current_json)}});
  }
  Json out = clipped(written);
  out["previous_version"] = current.version;
  return sdk::ToolResult::Ok(noun + " updated to version " + std::to_string(written.version),
                             std::move(out));
}

Json SectionOutput() {
  return schema::Output({{"section", schema::Type("string")},
                         {"title", schema::Type("string")},
                         {"content", schema::Type("string")},
                         {"version", schema::Type("integer")},
                         {"updated_by", schema::Nullable(schema::Type("string"))},
                         {"updated_at", schema::Nullable(schema::Type("string"))}},
                        {"section", "content", "version"});
}

}  // namespace

void RegisterFocusTools(sdk::Registrar& registrar, const ToolContext& env) {
  {
    sdk::ToolSpec spec;
    spec.name = "focus_get";
    spec.profile = sdk::ToolProfile::kFull;
    spec.title = "Read the current focus document";
    spec.description =
        "Reads this project's focus document: sections active_task, in_progress, "
        "next_steps and notes, each with its version and last writer. Read it when you start "
        "or resume work, and before focus_update (to send expected_version). Long sections "
        "are cut (omitted_bytes); section (+ offset, bytes) reads one whole.";
    Json section_out = SectionOutput();
    for (const char* key : {"bytes", "offset", "omitted_bytes", "next_offset"}) {
      section_out["properties"][key] = schema::Type("integer");
    }
    spec.schemas = [=](sdk::ToolSpec& t) {
      t.input_schema = schema::Object({{"section", schema::Enum(SectionIds())},
                                       {"offset", schema::Integer(0, std::int64_t{1} << 40)},
                                       {"agent_id", AgentIdProp()}});
      t.output_schema = schema::Output({{"sections", schema::ArrayOf(section_out)}}, {"sections"});
    };
    spec.annotations.read_only = true;
    spec.annotations.idempotent = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return FocusGet(env, a, c);
    });
  }
  {
    sdk::ToolSpec spec;
    spec.name = "focus_update";
    spec.title = "Update one section of the focus document";
    spec.description =
        "Replace or append one section of the shared focus document. Replacing another "
        "agent's text needs its expected_version; a stale one is refused with the current text.";
    Json out = SectionOutput();
    out["properties"]["previous_version"] = schema::Type("integer");
    out["properties"]["omitted_bytes"] = schema::Type("integer");
    spec.schemas = [=, &env](sdk::ToolSpec& t) {
      t.input_schema = schema::Object(
          {
              {"section", schema::Enum(SectionIds())},
              // The cap counts UTF-8 bytes (JSON Schema's maxLength would count characters).
              {"content",
               {{"type", "string"},
                {"description",
                 "Markdown, at most " + std::to_string(env.settings.max_focus_section_bytes) + " bytes"}}},
              {"expected_version", schema::Integer(0, std::int64_t{1} << 50)},
              {"mode", schema::Enum({"replace", "append"})},
              {"agent_id", AgentIdProp()},
          },
          {"section", "content"});
      t.output_schema = out;
    };
    spec.annotations.destructive = true;
    registrar.AddTool(std::move(spec), [&env](const Json& a, const sdk::CallContext& c) {
      return FocusUpdate(env, a, c);
    });
  }
}

}  // namespace kioku::working

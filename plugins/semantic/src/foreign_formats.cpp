#include "foreign_formats.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>
#include <unordered_map>

#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/host.hpp"
#include "kioku/sdk/project_identity.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"
#include "anchors.hpp"
#include "graph_store.hpp"
#include "import_store.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "review_store.hpp"
#include "tool_support.hpp"

namespace kioku::semantic {
namespace {

using nlohmann::json;

std::string Lower(std::string_view s) { return AsciiLower(s); }

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::size_t Indent(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  return i;
}

// "- x", "* x", "+ x", "1. x", "1) x" → the text after the marker; npos when no item.
std::size_t ItemStart(std::string_view line) {
  std::size_t i = Indent(line);
  if (i >= line.size()) return std::string_view::npos;
  if ((line[i] == '-' || line[i] == '*' || line[i] == '+') && i + 1 < line.size() && line[i + 1] == ' ') {
    // "---" / "***" are rules, not items (they have no space after the first mark).
    return i + 2;
  }
  std::size_t d = i;
  while (d < line.size() && d - i < 9 && line[d] >= '0' && line[d] <= '9') ++d;
  if (d > i && d + 1 < line.size() && (line[d] == '.' || line[d] == ')') && line[d + 1] == ' ') return d + 2;
  return std::string_view::npos;
}

std::string StripTaskBox(std::string text) {
  if (StartsWith(text, "[ ] ") || StartsWith(text, "[x] ") || StartsWith(text, "[X] ")) text.erase(0, 4);
  return text;
}

// Lines of `text` without their '\n' / "\r\n".
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (end == text.size()) break;
    start = end + 1;
  }
  return lines;
}

// Refuses the file when `value` holds a secret (naming where and the rule, never the value)
// or a NUL character (refused in tool arguments too: it cuts the text for SQLite and FTS).
void Screen(const std::string& file, const std::string& where, std::string_view value) {
  if (value.find('\0') != std::string_view::npos) {
    throw std::runtime_error(file + " " + where +
                             ": holds a NUL character; remove it from the file and import again");
  }
  if (std::optional<sdk::SecretFinding> f = sdk::FindSecret(value)) {
    throw std::runtime_error(file + " " + where + ": looks like a secret (" + f->kind +
                             "); remove it from the file and import again (kioku stores no secrets)");
  }
}

// A writer in the transaction the host opened (WithMemoryWriter would open its own), indexed last.
void WithMemoryWriterInTransaction(const Env& env, const std::function<void(MemoryWriter&)>& body) {
  MemoryWriter writer(env);
  body(writer);
  writer.Finish();
}

std::string LineWhere(int line) { return "line " + std::to_string(line); }

Scope ImportScope(const sdk::ForeignImportRequest& request) {
  Scope scope;
  if (!request.project_id.empty()) {
    scope.kind = "project";
    scope.project_id = request.project_id;
  }
  return scope;
}

std::string CheckedText(const std::string& file, const std::string& where, std::string text) {
  text = sdk::CollapseWhitespace(text);
  if (sdk::Utf8Length(text) > static_cast<std::size_t>(kMaxTextChars)) {
    throw std::runtime_error(file + " " + where + ": " + std::to_string(sdk::Utf8Length(text)) +
                             " characters; the limit is 4000 — split it");
  }
  return text;
}

std::string Note(const std::string& where, const KnownMemory& k) {
  return where + ": already known as " + k.id + " (" + k.status + "), skipped";
}

// --- claude-md / agents-md -------------------------------------------------------------

sdk::ForeignImportResult ImportMarkdown(const Env& env, const sdk::ForeignImportRequest& request,
                                        const std::string& format) {
  const std::vector<MarkdownItem> items = ParseMarkdownItems(request.text);
  std::vector<MemoryDraft> drafts;
  std::vector<std::string> wheres;
  for (const MarkdownItem& item : items) {
    const std::string where = LineWhere(item.line);
    MemoryDraft d;
    d.text = CheckedText(request.file, where, item.text);
    Screen(request.file, where, d.text);
    d.kind = KindFromHeadings(item.headings);
    d.suggest = true;
    d.source = "derived";
    d.source_ref = sdk::TruncateUtf8(std::filesystem::path(request.file).filename().string(), 400) + ":" +
                   std::to_string(item.line);
    d.scope = ImportScope(request);
    d.tags.push_back(format);
    for (auto h = item.headings.rbegin(); h != item.headings.rend() && d.tags.size() < 4; ++h) {
      Screen(request.file, where, *h);  // as written: normalizing a heading into a tag hides what it says
      std::string tag = NormalizeTag(sdk::TruncateUtf8(*h, 64));
      Screen(request.file, where, tag);
      if (!tag.empty() && std::find(d.tags.begin(), d.tags.end(), tag) == d.tags.end()) d.tags.push_back(tag);
    }
    drafts.push_back(std::move(d));
    wheres.push_back(where);
  }
  sdk::ForeignImportResult result;
  sdk::ImportCounts& counts = result.counts["memories"];
  auto known = KnownTexts(env, ImportScope(request));
  const Author author{request.agent_id, ""};
  WithMemoryWriterInTransaction(env, [&](MemoryWriter& writer) {
    for (std::size_t i = 0; i < drafts.size(); ++i) {
      const std::string key = NormalizeText(drafts[i].text);
      if (auto it = known.find(key); it != known.end()) {
        ++counts.skipped;
        result.notes.push_back(Note(wheres[i], it->second));
        continue;
      }
      const WriteResult w = writer.Remember(drafts[i], author);
      known.emplace(key, KnownMemory{w.id, w.status});
      ++counts.inserted;
    }
  });
  return result;
}

// --- mcp-memory ----------------------------------------------------------------------------

std::string EntityType(const std::string& type) {
  std::string t = NormalizeTag(sdk::TruncateUtf8(type, 64));
  std::replace(t.begin(), t.end(), '-', '_');
  return t;
}

sdk::ForeignImportResult ImportMemoryGraph(const Env& env, const sdk::ForeignImportRequest& request) {
  const MemoryGraph graph = ParseMemoryJsonl(request.text);
  for (const GraphEntity& e : graph.entities) {
    const std::string where = LineWhere(e.line);
    Screen(request.file, where, e.name);
    Screen(request.file, where, e.type);
    for (const std::string& o : e.observations) Screen(request.file, where, o);
  }
  for (const GraphRelation& r : graph.relations) {
    const std::string where = LineWhere(r.line);
    Screen(request.file, where, r.from);
    Screen(request.file, where, r.to);
    Screen(request.file, where, r.type);
  }
  sdk::ForeignImportResult result;
  sdk::ImportCounts& memories = result.counts["memories"];
  sdk::ImportCounts& entities = result.counts["entities"];
  sdk::ImportCounts& relations = result.counts["relations"];
  const Scope scope = ImportScope(request);
  auto known = KnownTexts(env, scope);
  const Author author{request.agent_id, ""};
  const std::int64_t now = env.clock.NowMs();
  std::vector<std::int64_t> written;  // seqs, for rival detection
  // Relations name the file's own entities first (an entity of another type extracted
  // from an observation's text may share the name).
  std::unordered_map<std::string, Entity> defined;
  auto entity = [&](const std::string& name, const std::string& type, const std::string& where) {
    if (type.empty()) {
      if (auto it = defined.find(name); it != defined.end()) return it->second;
    }
    try {
      const std::string t = type.empty() ? "" : EntityType(type);
      if (std::optional<Entity> found = FindEntity(env.db, name, t)) {
        ++entities.skipped;
        return *found;
      }
      ++entities.inserted;
      return EnsureNamedEntity(env, name, t, now);
    } catch (const sdk::ToolError& e) {
      throw std::runtime_error(request.file + " " + where + ": " + e.what());
    }
  };
  WithMemoryWriterInTransaction(env, [&](MemoryWriter& writer) {
    for (const GraphEntity& e : graph.entities) {
      const std::string where = LineWhere(e.line);
      const Entity ent = entity(e.name, e.type, where);
      defined.emplace(e.name, ent);
      for (const std::string& observation : e.observations) {
        MemoryDraft d;
        d.text = CheckedText(request.file, where, e.name + ": " + observation);
        d.kind = "observation";
        d.source = "import";
        d.source_ref = "memory.jsonl:" + std::to_string(e.line);
        d.scope = scope;
        if (const std::string tag = NormalizeTag(sdk::TruncateUtf8(e.type, 64)); !tag.empty()) d.tags.push_back(tag);
        const std::string key = NormalizeText(d.text);
        if (auto it = known.find(key); it != known.end()) {
          ++memories.skipped;
          continue;
        }
        const WriteResult w = writer.Remember(d, author);
        known.emplace(key, KnownMemory{w.id, w.status});
        LinkMemoryEntity(env, w.seq, ent.seq);
        written.push_back(w.seq);
        ++memories.inserted;
      }
    }
    for (const GraphRelation& r : graph.relations) {
      const std::string where = LineWhere(r.line);
      const Entity from = entity(r.from, "", where);
      const Entity to = entity(r.to, "", where);
      try {
        const RelateOutcome o = Relate(env, from, NormalizeRelationType(r.type), to, now, 0, request.agent_id);
        if (o.already_known) {
          ++relations.skipped;
        } else {
          ++relations.inserted;
        }
      } catch (const sdk::ToolError& e) {
        throw std::runtime_error(request.file + " " + where + ": " + e.what());
      }
    }
    writer.Finish();  // rival detection reads the text index
    int contested = 0;
    RivalScan scan;
    for (const std::int64_t seq : written) {
      if (AnyContest(DetectRivals(env, seq, author, &scan))) ++contested;
    }
    if (contested > 0) {
      result.notes.push_back(std::to_string(contested) + " imported memories may contradict others: contested, "
                             "resolve them with memory_review (kioku review)");
    }
  });
  if (memories.skipped > 0) {
    result.notes.push_back(std::to_string(memories.skipped) + " observations were already stored, skipped");
  }
  return result;
}

// --- token-goat ----------------------------------------------------------------------------

Scope TokenGoatScope(const TokenGoatFact& f, const sdk::ForeignImportRequest& request) {
  if (f.scope == "global") return Scope{};
  Scope scope = ImportScope(request);
  if (!f.scope_root.empty()) {
    sdk::RecordedLocation where;
    where.cwd = f.scope_root;
    const sdk::ProjectInfo info = sdk::ProjectOfRecord(where);
    if (!info.id.empty()) scope = Scope{"project", info.id, ""};
  }
  if (f.scope == "path" && !f.path.empty() && scope.kind == "project") {
    scope.kind = "path";
    scope.path = f.path;
  }
  return scope;
}

sdk::ForeignImportResult ImportTokenGoat(const Env& env, const sdk::ForeignImportRequest& request) {
  const std::vector<TokenGoatFact> facts = ParseTokenGoatExport(request.text);
  sdk::ForeignImportResult result;
  std::vector<MemoryDraft> drafts;
  for (std::size_t i = 0; i < facts.size(); ++i) {
    const TokenGoatFact& f = facts[i];
    const std::string where = "facts[" + std::to_string(i) + "]" + (f.line ? " (line " + std::to_string(f.line) + ")" : "");
    MemoryDraft d;
    d.text = CheckedText(request.file, where, f.text);
    for (const std::string* s : {&f.id, &f.text, &f.subject, &f.value, &f.anchor, &f.scope_root, &f.path}) {
      Screen(request.file, where, *s);
    }
    d.kind = f.kind;
    d.subject = NormalizeSubject(f.subject);
    d.value = f.value;
    d.confidence = f.confidence;
    d.source = f.source;
    d.source_ref = "token-goat:" + f.id;
    d.scope = TokenGoatScope(f, request);
    d.suggest = true;  // pending on insert: an imported value never supersedes here
    d.anchor = f.anchor;
    if (!d.anchor.empty() && (!ValidateAnchor(d.anchor).empty() || !ConfineAnchor(d.anchor, request.project_root).empty())) {
      result.notes.push_back(where + ": anchor \"" + sdk::TruncateUtf8(d.anchor, 60) + "\" is not one kioku checks; dropped");
      d.anchor.clear();
    }
    drafts.push_back(std::move(d));
  }
  sdk::ImportCounts& counts = result.counts["memories"];
  auto by_ref = KnownSourceRefs(env, "token-goat:");
  auto known = KnownTexts(env, ImportScope(request));
  const Author author{request.agent_id, ""};
  WithMemoryWriterInTransaction(env, [&](MemoryWriter& writer) {
    std::vector<std::pair<std::size_t, Memory>> added;
    for (std::size_t i = 0; i < drafts.size(); ++i) {
      if (by_ref.count(drafts[i].source_ref)) {
        ++counts.skipped;
        continue;
      }
      const std::string key = NormalizeText(drafts[i].text);
      if (auto it = known.find(key); it != known.end()) {
        ++counts.skipped;
        result.notes.push_back(Note("facts[" + std::to_string(i) + "]", it->second));
        continue;
      }
      const WriteResult w = writer.Remember(drafts[i], author);
      known.emplace(key, KnownMemory{w.id, w.status});
      by_ref.emplace(drafts[i].source_ref, KnownMemory{w.id, w.status});
      if (std::optional<Memory> m = LoadMemoryById(env.db, w.id)) added.emplace_back(i, std::move(*m));
      ++counts.inserted;
    }
    // Statuses after every fact is in, so a winner named later in the file resolves.
    for (const auto& [i, m] : added) {
      const TokenGoatFact& f = facts[i];
      std::string winner;
      if (f.status == "superseded" && !f.superseded_by.empty()) {
        if (auto it = by_ref.find("token-goat:" + f.superseded_by); it != by_ref.end()) winner = it->second.id;
      }
      ApplyImportedState(env, m, f.status, winner, f.captured_at, request.agent_id,
                         "token-goat-mem export, id " + sdk::TruncateUtf8(f.id, 100));
    }
  });
  if (counts.skipped > 0 && result.notes.empty()) {
    result.notes.push_back(std::to_string(counts.skipped) + " facts were imported before, skipped");
  }
  return result;
}

bool LooksLikeMarkdown(const std::string& file, const std::string& name) {
  const std::string base = Lower(std::filesystem::path(file).filename().string());
  return base == name;
}

std::int64_t TimeField(const json& v, const std::string& where) {
  // Unix milliseconds from 1970 to the year 9999 (RFC 3339's four-digit years).
  constexpr std::int64_t kLastMs = 253402300799999;
  std::optional<std::int64_t> t;
  if (v.is_null()) return 0;
  if (v.is_number_integer() && !v.is_number_unsigned()) t = v.get<std::int64_t>();
  if (v.is_number_unsigned() && v.get<std::uint64_t>() <= static_cast<std::uint64_t>(kLastMs)) {
    t = static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  if (v.is_string()) t = sdk::ParseRfc3339(v.get<std::string>());
  if (!t || *t < 0 || *t > kLastMs) {
    throw std::runtime_error(where + ": captured_at must be an RFC 3339 time or Unix milliseconds from 1970 to 9999");
  }
  return *t;
}

int LineAt(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

}  // namespace

std::vector<MarkdownItem> ParseMarkdownItems(std::string_view text) {
  std::vector<MarkdownItem> items;
  std::vector<std::pair<int, std::string>> headings;  // level, text
  std::string fence;                                 // open fence marker, "" = none
  bool in_comment = false, in_kioku_block = false;
  bool continues = false;  // the previous line belongs to the last item
  std::size_t item_indent = 0;
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 byte order mark
  const std::vector<std::string_view> lines = Lines(text);
  std::size_t first = 0;
  if (!lines.empty() && lines[0] == "---") {  // YAML front matter
    for (std::size_t i = 1; i < lines.size(); ++i) {
      if (lines[i] == "---" || lines[i] == "...") {
        first = i + 1;
        break;
      }
    }
  }
  for (std::size_t n = first; n < lines.size(); ++n) {
    const std::string_view raw = lines[n];
    const std::size_t indent = Indent(raw);
    const std::string_view line = raw.substr(indent);
    if (!fence.empty()) {
      if (StartsWith(line, fence)) fence.clear();
      continue;
    }
    if (indent < 4 && (StartsWith(line, "```") || StartsWith(line, "~~~"))) {
      fence = std::string(line.substr(0, 3));
      continues = false;
      continue;
    }
    if (in_kioku_block) {
      if (StartsWith(line, "<!-- kioku:end")) in_kioku_block = false;
      continue;
    }
    if (StartsWith(line, "<!-- kioku:begin")) {
      in_kioku_block = true;
      continues = false;
      continue;
    }
    if (in_comment) {
      if (line.find("-->") != std::string_view::npos) in_comment = false;
      continue;
    }
    if (StartsWith(line, "<!--")) {
      in_comment = line.find("-->") == std::string_view::npos;
      continues = false;
      continue;
    }
    if (line.empty()) {
      continues = false;
      continue;
    }
    if (indent < 4 && line[0] == '#') {
      std::size_t level = 0;
      while (level < line.size() && line[level] == '#') ++level;
      if (level <= 6 && (level == line.size() || line[level] == ' ')) {
        std::string title(Trim(line.substr(level)));
        while (!title.empty() && title.back() == '#') title.pop_back();
        title = std::string(Trim(title));
        while (!headings.empty() && headings.back().first >= static_cast<int>(level)) headings.pop_back();
        headings.emplace_back(static_cast<int>(level), title);
        continues = false;
        continue;
      }
    }
    if (const std::size_t start = ItemStart(raw); start != std::string_view::npos) {
      MarkdownItem item;
      item.line = static_cast<int>(n + 1);
      item.text = StripTaskBox(std::string(Trim(raw.substr(start))));
      for (const auto& h : headings) item.headings.push_back(h.second);
      items.push_back(std::move(item));
      continues = true;
      item_indent = indent;
      continue;
    }
    if (continues && indent > item_indent) {
      items.back().text += " " + std::string(Trim(line));
      continue;
    }
    continues = false;  // a paragraph: not an item
  }
  // Items too short to mean anything ("-", "x") are dropped.
  items.erase(std::remove_if(items.begin(), items.end(),
                             [](const MarkdownItem& i) { return sdk::Utf8Length(i.text) < 3; }),
              items.end());
  return items;
}

std::string KindFromHeadings(const std::vector<std::string>& headings) {
  struct Hint {
    const char* word;
    const char* kind;
  };
  static const Hint kHints[] = {
      {"correction", "correction"}, {"lesson", "lesson"},       {"gotcha", "lesson"},
      {"pitfall", "lesson"},        {"learned", "lesson"},      {"todo", "todo"},
      {"to do", "todo"},            {"decision", "decision"},   {"decided", "decision"},
      {"prefer", "preference"},     {"style", "preference"},    {"convention", "preference"},
      {"rule", "preference"},       {"don't", "preference"},    {"command", "fact"},
      {"build", "fact"},            {"test", "fact"},           {"setup", "fact"},
      {"overview", "fact"},         {"structure", "fact"},      {"architecture", "fact"},
      {"layout", "fact"},           {"project", "fact"},        {"environment", "fact"},
  };
  for (auto h = headings.rbegin(); h != headings.rend(); ++h) {
    const std::string lower = Lower(*h);
    for (const Hint& hint : kHints) {
      if (lower.find(hint.word) != std::string::npos) return hint.kind;
    }
  }
  return "preference";
}

MemoryGraph ParseMemoryJsonl(std::string_view text) {
  MemoryGraph graph;
  const std::vector<std::string_view> lines = Lines(text);
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const int line = static_cast<int>(n + 1);
    const std::string where = "line " + std::to_string(line);
    if (Trim(lines[n]).empty()) continue;
    const json j = json::parse(lines[n], nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      throw std::runtime_error(where + ": not a JSON object; memory.jsonl holds one {\"type\": \"entity\"|\"relation\", …} per line");
    }
    auto str = [&](const char* key) {
      if (!j.contains(key) || !j[key].is_string() || Trim(j[key].get<std::string>()).empty()) {
        throw std::runtime_error(where + ": \"" + key + "\" must be a non-empty string");
      }
      return std::string(Trim(j[key].get<std::string>()));
    };
    const std::string type = j.value("type", std::string());
    if (type == "entity") {
      GraphEntity e;
      e.line = line;
      e.name = str("name");
      e.type = j.contains("entityType") ? str("entityType") : "";
      if (j.contains("observations")) {
        if (!j["observations"].is_array()) throw std::runtime_error(where + ": \"observations\" must be an array of strings");
        for (const json& o : j["observations"]) {
          if (!o.is_string()) throw std::runtime_error(where + ": \"observations\" must be an array of strings");
          if (!Trim(o.get<std::string>()).empty()) e.observations.emplace_back(Trim(o.get<std::string>()));
        }
      }
      graph.entities.push_back(std::move(e));
    } else if (type == "relation") {
      graph.relations.push_back({line, str("from"), str("to"), str("relationType")});
    } else {
      throw std::runtime_error(where + ": \"type\" must be \"entity\" or \"relation\"");
    }
  }
  return graph;
}

std::vector<TokenGoatFact> ParseTokenGoatExport(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::runtime_error("line " + std::to_string(LineAt(text, e.byte > 0 ? e.byte - 1 : 0)) + ": not valid JSON");
  }
  if (!doc.is_object() || !doc.contains("facts") || !doc["facts"].is_array()) {
    throw std::runtime_error("not a token-goat-mem export: expected {\"schemaVersion\": 1, \"facts\": [...]}");
  }
  const json& version = doc.contains("schemaVersion") ? doc["schemaVersion"] : doc.value("schema_version", json());
  if (!version.is_number_integer() || version.get<int>() < 1) {
    throw std::runtime_error("token-goat-mem export without an integer \"schemaVersion\"");
  }
  std::vector<TokenGoatFact> facts;
  std::size_t search_from = 0;
  const json& list = doc["facts"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const json& f = list[i];
    TokenGoatFact fact;
    std::string where = "facts[" + std::to_string(i) + "]";
    if (!f.is_object()) throw std::runtime_error(where + ": expected an object");
    auto field = [&](const char* snake, const char* camel) -> const json* {
      if (f.contains(snake)) return &f[snake];
      if (camel && f.contains(camel)) return &f[camel];
      return nullptr;
    };
    auto str = [&](const char* snake, const char* camel, bool required) {
      const json* v = field(snake, camel);
      if (!v || v->is_null()) {
        if (required) throw std::runtime_error(where + ": \"" + snake + "\" is missing; each fact needs id and text");
        return std::string();
      }
      if (!v->is_string()) throw std::runtime_error(where + ": \"" + snake + "\" must be a string");
      return std::string(Trim(v->get<std::string>()));
    };
    fact.id = str("id", nullptr, true);
    if (fact.id.empty()) throw std::runtime_error(where + ": \"id\" is empty; each fact needs its own id");
    if (const std::size_t at = text.find(json(fact.id).dump(), search_from); at != std::string_view::npos) {
      fact.line = LineAt(text, at);
      search_from = at;
      where += " (line " + std::to_string(fact.line) + ")";
    }
    fact.text = field("text", nullptr) ? str("text", nullptr, true) : str("fact", nullptr, true);
    if (fact.text.empty()) throw std::runtime_error(where + ": \"text\" is empty");
    fact.kind = str("kind", nullptr, false);
    if (fact.kind.empty()) fact.kind = "preference";
    const auto& kinds = MemoryKinds();
    if (std::find(kinds.begin(), kinds.end(), fact.kind) == kinds.end()) {
      throw std::runtime_error(where + ": unknown kind '" + sdk::TruncateUtf8(fact.kind, 40) +
                               "'; expected preference, decision, fact, correction (or another kioku kind)");
    }
    fact.status = str("status", nullptr, false);
    if (fact.status.empty()) fact.status = "active";
    static const std::vector<std::string> kStatuses = {"pending", "active", "pinned", "contested", "superseded"};
    if (std::find(kStatuses.begin(), kStatuses.end(), fact.status) == kStatuses.end()) {
      throw std::runtime_error(where + ": unknown status '" + sdk::TruncateUtf8(fact.status, 40) +
                               "'; expected pending, active, pinned, contested or superseded");
    }
    if (const json* c = field("confidence", nullptr); c && !c->is_null()) {
      if (!c->is_number() || c->get<double>() < 0 || c->get<double>() > 1) {
        throw std::runtime_error(where + ": \"confidence\" must be a number from 0 to 1");
      }
      fact.confidence = c->get<double>();
    }
    fact.subject = str("subject", nullptr, false);
    fact.value = str("value", nullptr, false);
    if (fact.subject.empty() != fact.value.empty()) {
      throw std::runtime_error(where + ": \"subject\" and \"value\" come together; send both or neither");
    }
    fact.anchor = str("anchor", nullptr, false);
    fact.scope = str("scope", nullptr, false);
    if (!fact.scope.empty() && fact.scope != "global" && fact.scope != "project" && fact.scope != "path") {
      throw std::runtime_error(where + ": \"scope\" must be global, project or path");
    }
    fact.scope_root = str("scope_root", "scopeRoot", false);
    fact.path = str("path", nullptr, false);
    if (!fact.path.empty() && std::filesystem::path(fact.path).is_absolute() && !fact.scope_root.empty()) {
      fact.path = std::filesystem::path(fact.path).lexically_relative(fact.scope_root).generic_string();
    }
    if (StartsWith(fact.path, "..") || std::filesystem::path(fact.path).is_absolute()) {
      throw std::runtime_error(where + ": \"path\" " + sdk::TruncateUtf8(fact.path, 60) +
                               " leaves the project; send a path inside scope_root, or scope project");
    }
    const std::string source = str("source_type", "sourceType", false);
    fact.source = source == "user" ? "user" : source == "derived" ? "derived" : "import";
    fact.superseded_by = str("superseded_by", "supersededBy", false);
    if (!fact.superseded_by.empty() && fact.superseded_by == fact.id) {
      throw std::runtime_error(where + ": superseded by itself; \"superseded_by\" names another fact's id");
    }
    if (const json* t = field("captured_at", "capturedAt")) fact.captured_at = TimeField(*t, where);
    facts.push_back(std::move(fact));
  }
  return facts;
}

std::vector<sdk::ForeignFormat> SemanticForeignFormats(sdk::HostServices& host, const Settings& settings) {
  auto run = [&host, &settings](auto import) {
    return [&host, &settings, import](SQLite::Database& db, const sdk::ForeignImportRequest& request) {
      sdk::StatementCache statements;
      const Env env{db, host.GetClock(), settings, statements};
      return import(env, request);
    };
  };
  std::vector<sdk::ForeignFormat> formats;
  for (const char* name : {"claude-md", "agents-md"}) {
    sdk::ForeignFormat f;
    f.name = name;
    f.summary = std::string("Markdown bullets (") +
                (f.name == "claude-md" ? "CLAUDE.md"
                                       : "AGENTS.md, GEMINI.md, copilot-instructions.md, .cursorrules, .windsurfrules, "
                                         ".clinerules, CONVENTIONS.md, .cursor/rules/*.mdc") +
                ") → pending memories";
    // Other agents' rule files are the same shape (bullets under headings): `auto` files
    // them as agents-md.
    const std::vector<std::string> names =
        f.name == "claude-md" ? std::vector<std::string>{"claude.md", "claude.local.md"}
                              : std::vector<std::string>{"agents.md", "gemini.md", "copilot-instructions.md",
                                                         ".cursorrules", ".windsurfrules", ".clinerules",
                                                         "conventions.md"};
    f.detect = [names, mdc = f.name == "agents-md"](const std::string& file, const std::string&) {
      for (const std::string& n : names) {
        if (LooksLikeMarkdown(file, n)) return true;
      }
      return mdc && Lower(std::filesystem::path(file).extension().string()) == ".mdc";
    };
    const std::string format = f.name;
    f.import = run([format](const Env& env, const sdk::ForeignImportRequest& r) { return ImportMarkdown(env, r, format); });
    formats.push_back(std::move(f));
  }
  sdk::ForeignFormat graph;
  graph.name = "mcp-memory";
  graph.summary = "memory.jsonl of @modelcontextprotocol/server-memory → memories and the entity graph";
  graph.detect = [](const std::string&, const std::string& text) {
    const std::string_view first = Lines(text).front();
    const json j = json::parse(first, nullptr, false);
    return j.is_object() && (j.value("type", "") == "entity" || j.value("type", "") == "relation");
  };
  graph.import = run([](const Env& env, const sdk::ForeignImportRequest& r) { return ImportMemoryGraph(env, r); });
  formats.push_back(std::move(graph));
  sdk::ForeignFormat goat;
  goat.name = "token-goat";
  goat.summary = "token-goat-mem `mem export` JSON → memories with their statuses";
  goat.detect = [](const std::string&, const std::string& text) {
    const json j = json::parse(text, nullptr, false);
    return j.is_object() && j.contains("facts") && (j.contains("schemaVersion") || j.contains("schema_version"));
  };
  goat.import = run([](const Env& env, const sdk::ForeignImportRequest& r) { return ImportTokenGoat(env, r); });
  formats.push_back(std::move(goat));
  return formats;
}

}  // namespace kioku::semantic

#include "ingest.hpp"

#include "kioku/sdk/project_identity.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

#include <SQLiteCpp/Statement.h>

#include "compaction.hpp"
#include "facets.hpp"
#include "tool_support.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/layer_contracts.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"
#include "line_reader.hpp"
#include "privacy.hpp"
#include "statements.hpp"
#include "store.hpp"

namespace kioku::episodic {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr std::size_t kHeadBytes = 256;
constexpr std::string_view kHeadPrefix = "fnv1a64:";
constexpr std::size_t kFeedbackBatch = 1'000;
constexpr std::size_t kMaxRequestBytes = 2'000;

// Raised when another ingest moved the file's offset under us; the batch is rolled back.
class ConcurrentIngest : public std::runtime_error {
 public:
  ConcurrentIngest() : std::runtime_error("another ingest of this file is running") {}
};

struct FileRow {
  bool exists = false;
  std::string format;
  std::uint64_t offset = 0;
  std::int64_t line_no = 0;
  std::string head;
  json state = json::object();
};

FileRow LoadFileRow(SQLite::Database& db, const std::string& path) {
  FileRow r;
  SQLite::Statement q(db,
                      "SELECT format, byte_offset, line_no, head, state FROM "
                      "episodic_ingest_files WHERE path = ?");
  sdk::Bind(q, path);
  if (!q.executeStep()) return r;
  r.exists = true;
  r.format = q.getColumn(0).getString();
  r.offset = static_cast<std::uint64_t>(q.getColumn(1).getInt64());
  r.line_no = q.getColumn(2).getInt64();
  const void* blob = q.getColumn(3).getBlob();
  r.head.assign(static_cast<const char*>(blob), static_cast<std::size_t>(q.getColumn(3).getBytes()));
  r.state = json::parse(q.getColumn(4).getString(), nullptr, false);
  if (!r.state.is_object()) r.state = json::object();
  return r;
}

std::string ReadHead(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(kHeadBytes));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return head;
}

// What is kept of a file's head: its length and a 64-bit FNV-1a hash, never the bytes (the
// head of a transcript can hold a secret). Enough to tell "same file, grown" from "replaced".
std::string HeadFingerprint(std::string_view head) {
  std::uint64_t h = 14695981039346656037ULL;  // FNV-1a 64 offset basis
  for (unsigned char c : head) {
    h ^= c;
    h *= 1099511628211ULL;  // FNV 64-bit prime
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return std::string(kHeadPrefix) + std::to_string(head.size()) + ":" + hex;
}

// True when `head` (the current first bytes) starts like the file recorded as `stored`.
bool SameHead(const std::string& stored, const std::string& head) {
  if (stored.rfind(kHeadPrefix, 0) != 0) return stored.empty();  // legacy rows are migrated
  const std::size_t colon = stored.find(':', kHeadPrefix.size());
  if (colon == std::string::npos) return false;
  const std::size_t len = std::strtoull(stored.c_str() + kHeadPrefix.size(), nullptr, 10);
  if (head.size() < len) return false;
  return HeadFingerprint(std::string_view(head).substr(0, len)) == stored;
}

bool Blank(const std::string& line) {
  return line.find_first_not_of(" \t\r\n") == std::string::npos;
}

// `text` as it is stored: valid UTF-8, one line, secrets redacted, the home folder as ~;
// only its first 4 × max_bytes bytes are read.
std::string Scrubbed(std::string_view text, std::size_t max_bytes) {
  return ScrubHome(sdk::RedactSecrets(sdk::CollapseWhitespace(sdk::SanitizeUtf8(text.substr(0, max_bytes * 4)))));
}

std::string Clean(std::string_view text, std::size_t max_bytes) {
  return sdk::TruncateUtf8(Scrubbed(text, max_bytes), max_bytes);
}

// Drops queued (undelivered) memory_suggest rows of `project` whose subject is `subject`
// with another value, said before `at`. Returns true when a row said after `at` sets the
// subject already: the caller's older statement is not queued.
bool SupersedePendingSuggestion(SQLite::Database& db, const std::string& project,
                                const std::string& subject, const std::string& value,
                                std::int64_t at) {
  static constexpr const char* kWhere =
      " FROM episodic_outbox WHERE status = 'pending' AND tool = 'memory_suggest' AND "
      "json_extract(caller, '$.project_id') = ?1 AND lower(json_extract(payload, '$.subject')) = "
      "lower(?2) AND lower(json_extract(payload, '$.value')) <> lower(?3)";
  SQLite::Statement newer(db, std::string("SELECT 1") + kWhere +
                                  " AND json_extract(caller, '$.said_at') > ?4 LIMIT 1");
  sdk::Bind(newer, project, subject, value, static_cast<int64_t>(at));
  if (newer.executeStep()) return true;
  SQLite::Statement del(db, std::string("DELETE") + kWhere);
  sdk::Bind(del, project, subject, value);
  del.exec();
  return false;
}

// Counters of one committed batch (the transaction body may run more than once).
struct Applied {
  std::int64_t messages = 0, outcomes = 0, failed = 0, files = 0, statements = 0, suggested = 0;
};

// Every string of a batch that will be stored, redacted once before the transaction (so a
// retried transaction does not count twice, and each secret of the transcript counts once).
// Session ids are redacted too, consistently (RedactSecrets is deterministic).
void RedactBatch(ParsedBatch& b, sdk::RedactionCounts& counts) {
  const auto r = [&counts](std::string& v) {
    if (!v.empty()) v = sdk::RedactSecrets(v, &counts);
  };
  std::map<std::string, SessionDelta> sessions;
  for (auto& [id, d] : b.sessions) {
    for (std::string* f : {&d.id, &d.agent, &d.cwd, &d.model, &d.branch, &d.title, &d.version,
                           &d.last_message}) {
      r(*f);
    }
    std::string key = id;
    r(key);
    sessions.emplace(std::move(key), std::move(d));
  }
  b.sessions = std::move(sessions);
  for (auto& id : b.session_order) r(id);
  for (auto& h : b.human) {
    r(h.session_id);
    r(h.text);
  }
  for (auto& o : b.outcomes) {
    for (std::string* f : {&o.session_id, &o.call_id, &o.tool, &o.outcome, &o.error, &o.detail}) r(*f);
  }
  for (auto& f : b.files) {
    r(f.session_id);
    r(f.path);
    r(f.action);
  }
  for (auto& k : b.seen_keys) r(k);
}

}  // namespace

std::vector<fs::path> ListTranscripts(const fs::path& dir, std::size_t max_files,
                                      std::size_t* skipped_outside) {
  std::vector<fs::path> out;
  std::error_code ec;
  // Every file is resolved (symlinks followed) and kept only when its target lies inside
  // the resolved folder: a link x.jsonl -> /elsewhere/secret.jsonl is skipped, not read.
  const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
  if (ec) return out;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (out.size() >= max_files) break;
    std::error_code e2;
    if (!it->is_regular_file(e2) || it->path().extension() != ".jsonl") continue;
    const fs::path real = fs::canonical(it->path(), e2);
    if (e2) continue;
    const auto [r, p] = std::mismatch(root.begin(), root.end(), real.begin(), real.end());
    if (r != root.end()) {
      if (skipped_outside) ++*skipped_outside;
      continue;
    }
    out.push_back(real);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());  // two links to one file
  return out;
}

std::string BuildTranscriptSummary(SQLite::Database& db, const std::string& session_id) {
  auto s = LoadSession(db, session_id);
  if (!s) return {};
  auto entries = [&](const char* type, int limit, bool newest) {
    std::vector<std::string> v;
    SQLite::Statement q(db, std::string("SELECT entry FROM episodic_log WHERE session_id = ? AND "
                                        "type = ? ORDER BY seq ") +
                                (newest ? "DESC" : "ASC") + " LIMIT " + std::to_string(limit));
    sdk::Bind(q, session_id, type);
    while (q.executeStep()) v.push_back(q.getColumn(0).getString());
    if (newest) std::reverse(v.begin(), v.end());
    return v;
  };
  auto count = [&](const char* type) {
    SQLite::Statement q(db, "SELECT COUNT(*) FROM episodic_log WHERE session_id = ? AND type = ?");
    sdk::Bind(q, session_id, type);
    q.executeStep();
    return q.getColumn(0).getInt64();
  };
  // Most useful first (recall shows the start of a summary): what was asked, what was
  // decided, which files changed, what broke; then the other requests.
  auto first_sentence = [](const std::string& text, std::size_t max) {
    const auto sentences = SplitSentences(text);
    return sdk::TruncateAtBoundary(sentences.empty() ? text : sentences.front(), max);
  };
  const std::int64_t n_requests = count("request");
  std::vector<std::string> first = entries("request", 4, false);
  // A transcript that names no title gets its first request's first 120 bytes as one (cut
  // at a sentence or a word, sdk::TruncateAtBoundary): then "Asked:" would say it again
  // ("<title> (…) Asked: <title>…"), in the context block a SessionStart hook injects too.
  // The session's first line (session_recall) keeps it whole. Every prose line here is cut
  // at a sentence or a word, so the summary never stops inside a word.
  const std::string_view stem = std::string_view(s->title).substr(
      0, s->title.ends_with("…") ? s->title.size() - std::string_view("…").size() : s->title.size());
  const bool title_is_first = !first.empty() && !stem.empty() && first.front().starts_with(stem);
  std::string out = s->title.empty() ? "Session" : s->title;
  out += " (" + s->source + " session";
  if (!s->branch.empty()) out += " on branch " + s->branch;
  out += ")";
  if (!first.empty() && !title_is_first) out += "\nAsked: " + sdk::TruncateAtBoundary(first.front(), 300);
  auto decisions = entries("decision", 40, false);
  if (!decisions.empty()) {
    out += "\nDecisions:";
    for (auto& d : decisions) out += "\n- " + sdk::TruncateAtBoundary(d, 400);
  }
  for (const char* action : {"modified", "read"}) {
    SQLite::Statement q(db,
                        "SELECT path FROM episodic_files WHERE session_id = ? AND action = ? "
                        "ORDER BY count DESC, path LIMIT 40");
    sdk::Bind(q, session_id, action);
    std::string list;
    while (q.executeStep()) list += (list.empty() ? "" : ", ") + q.getColumn(0).getString();
    if (!list.empty()) out += std::string("\nFiles ") + action + ": " + list;
  }
  auto issues = entries("issue", 5, true);
  if (!issues.empty()) {
    out += "\nProblems hit:";
    for (auto& i : issues) out += "\n- " + sdk::TruncateAtBoundary(i, 200);
  }
  {
    SQLite::Statement q(db,
                        "SELECT tool, calls, failures FROM episodic_tool_stats WHERE session_id = ? "
                        "ORDER BY calls DESC, tool LIMIT 12");
    sdk::Bind(q, session_id);
    std::string list;
    std::int64_t calls = 0, failures = 0;
    while (q.executeStep()) {
      const std::int64_t c = q.getColumn(1).getInt64(), f = q.getColumn(2).getInt64();
      calls += c;
      failures += f;
      list += (list.empty() ? "" : ", ") + q.getColumn(0).getString() + " " + std::to_string(c);
      if (f > 0) list += " (" + std::to_string(f) + " failed)";
    }
    if (calls > 0) {
      out += "\nTool calls: " + std::to_string(calls) + " (" + std::to_string(failures) +
             " failed) — " + list;
    }
  }
  if (n_requests > 1) {
    out += "\nOther requests:";
    for (std::size_t i = 1; i < first.size(); ++i) out += "\n- " + first_sentence(first[i], 160);
    if (n_requests > 4) {
      std::vector<std::string> last = entries("request", std::min<std::int64_t>(3, n_requests - 4), true);
      if (n_requests > 7) out += "\n- (" + std::to_string(n_requests - 7) + " more requests)";
      for (auto& r : last) out += "\n- " + first_sentence(r, 160);
    }
  }
  SQLite::Statement lm(db, "SELECT last_message FROM episodic_sessions WHERE id = ?");
  sdk::Bind(lm, session_id);
  if (lm.executeStep() && !lm.getColumn(0).getString().empty()) {
    out += "\nLast message: " + sdk::TruncateAtBoundary(lm.getColumn(0).getString(), 300);
  }
  return out;
}

Ingester::Ingester(sdk::HostServices& host, const Settings& settings, sdk::Caller caller)
    : host_(host), settings_(settings), caller_(std::move(caller)) {}

FileReport Ingester::IngestFile(const fs::path& path, Format forced,
                                const std::function<bool()>& should_stop) {
  FileReport report;
  std::error_code ec;
  fs::path canon = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) canon = path;
  report.path = ScrubHome(canon.string());
  const auto st = fs::status(canon, ec);
  if (ec || !fs::exists(st)) {
    report.error = "no such file: " + report.path;
    return report;
  }
  if (!fs::is_regular_file(st)) {
    report.error = report.path + " is not a regular file (pass a transcript .jsonl file)";
    return report;
  }
  const std::uint64_t size = fs::file_size(canon, ec);
  auto& db = host_.Db();
  const std::string key = canon.string();
  const std::string source = sdk::RedactSecrets(canon.filename().string());
  FileRow row = LoadFileRow(db, key);
  const std::string head = ReadHead(canon);
  const std::string head_print = HeadFingerprint(head);

  std::optional<std::uint64_t> expected_offset;  // CAS value; nullopt = no row yet
  std::uint64_t offset = 0;
  std::int64_t line_no = 0;
  json state = json::object();
  Format format = forced;
  if (row.exists) {
    expected_offset = row.offset;
    const bool replaced = size < row.offset || !SameHead(row.head, head);
    if (replaced) {
      report.reset = true;
    } else {
      offset = row.offset;
      line_no = row.line_no;
      state = row.state;
      if (format == Format::kUnknown) format = FormatFromName(row.format);
    }
  }
  report.format = FormatName(format);
  if (offset >= size && !report.reset) {
    report.unchanged = true;
    return report;
  }

  ParserContext pctx;
  pctx.seen = [&db](const std::string& k) {
    SQLite::Statement q(db, "SELECT 1 FROM episodic_ingest_seen WHERE key = ?");
    sdk::Bind(q, k);
    return q.executeStep();
  };
  // Formats without session ids get one per file, kept in the parser state.
  if (!state.contains("file_session")) state["file_session"] = sdk::NewId(host_.GetClock().NowMs());
  pctx.default_session_id = state["file_session"].get<std::string>();
  std::unique_ptr<TranscriptParser> parser;
  if (format != Format::kUnknown) {
    parser = MakeParser(format, pctx);
    parser->LoadState(state.value("parser", json::object()));
  }

  LineReader reader(canon, offset, settings_.max_line_bytes);
  ParsedBatch batch;
  std::uint64_t batch_start = offset;
  std::set<std::string> sessions_seen;
  std::map<std::string, std::string> cwd_of;  // session → working directory (this run)
  std::map<std::string, sdk::ProjectInfo> project_of_sid;  // session → its project (this run)
  const bool suggest =
      settings_.suggest_memories && host_.HasTool(sdk::contract::kMemorySuggest);
  const bool feedback =
      settings_.record_outcomes && host_.HasTool(sdk::contract::kFeedbackRecord);

  auto apply = [&](const ParsedBatch& b, Applied& a) {
    const std::int64_t now = host_.GetClock().NowMs();
    for (const auto& sid : b.session_order) {
      const SessionDelta& d = b.sessions.at(sid);
      if (!d.cwd.empty()) cwd_of[sid] = d.cwd;
      if (!d.cwd.empty() || !d.git_remote.empty()) {
        // The one folder → project mapping the host uses for live callers, so what this
        // transcript yields is found by an agent started in that folder.
        project_of_sid[sid] = sdk::ProjectOfRecord({d.cwd, d.git_remote, d.branch}, host_.Projects());
      }
      SessionSeed seed;
      seed.id = sid;
      seed.agent_id = d.agent;
      seed.model = d.model;
      auto known = project_of_sid.find(sid);
      seed.project = known != project_of_sid.end() ? known->second.id : caller_.project_id;
      report.session_projects[sid] = seed.project;
      seed.title = Clean(d.title, 200);
      seed.source = FormatName(format);
      seed.branch = d.branch;
      seed.started_at = d.first_at > 0 ? d.first_at : now;
      UpsertSession(db, seed, now);
      SQLite::Statement up(db,
                           "UPDATE episodic_sessions SET last_activity_at = MAX(last_activity_at, "
                           "?1), message_count = message_count + ?2, last_message = CASE WHEN ?3 "
                           "<> '' THEN ?3 ELSE last_message END WHERE id = ?4");
      sdk::Bind(up, static_cast<int64_t>(d.last_at), static_cast<int64_t>(d.messages),
                Clean(d.last_message, 600), sid);
      up.exec();
      a.messages += d.messages;
    }
    auto session_of = [&](const std::string& sid) -> const SessionDelta* {
      auto it = b.sessions.find(sid);
      return it == b.sessions.end() ? nullptr : &it->second;
    };
    auto project_of = [&](const std::string& sid) {
      auto it = project_of_sid.find(sid);
      return it == project_of_sid.end() ? caller_.project_id : it->second.id;
    };
    for (const auto& h : b.human) {
      const std::string ref = source + ":" + std::to_string(h.line);
      LogEntry e;
      e.session_id = h.session_id;
      e.at = h.at;
      e.type = "request";
      e.entry = Clean(h.text, kMaxRequestBytes);
      e.agent_id = session_of(h.session_id) ? session_of(h.session_id)->agent : "";
      e.source_ref = ref;
      if (e.entry.empty()) continue;
      AppendLog(db, e);
      SQLite::Statement title(db,
                              "UPDATE episodic_sessions SET title = ? WHERE id = ? AND title = ''");
      sdk::Bind(title, sdk::TruncateAtBoundary(Scrubbed(h.text, 120), 120), h.session_id);
      title.exec();
      for (const auto& stmt : FindDurableStatements(h.text)) {
        // Redacted statements are logged but never filed as memories.
        const bool secret = sdk::FindSecret(stmt.text).has_value() ||
                            stmt.text.find("[REDACTED:") != std::string::npos;
        LogEntry d = e;
        d.id.clear();
        d.type = "decision";
        d.entry = Clean(stmt.text, kMaxRequestBytes);
        d.tags = json::array({"statement", stmt.kind});
        AppendLog(db, d);
        ++a.statements;
        if (!suggest || secret) continue;
        const std::string project = project_of(h.session_id);
        sdk::contract::MemorySuggestion suggestion{
            d.entry, stmt.kind, "import", ref + " (" + sdk::FormatRfc3339(h.at) + ")",
            {"transcript", FormatName(format)}, "", ""};
        json caller = {{"agent_id", e.agent_id.empty() ? caller_.agent_id : e.agent_id},
                       {"session_id", h.session_id},
                       {"project_id", project},
                       {"project_root", project_of_sid.count(h.session_id)
                                            ? project_of_sid[h.session_id].root
                                            : caller_.project_root},
                       {"said_at", h.at}};
        if (!stmt.subject.empty()) {
          suggestion.subject = Clean(stmt.subject, 200);
          suggestion.value = Clean(stmt.value, 500);
          // statements.hpp: a later value for a subject supersedes an earlier one. A
          // suggestion still waiting here is replaced; once delivered, semantic keeps both
          // pending and confirming one supersedes the other.
          if (SupersedePendingSuggestion(db, project, suggestion.subject, suggestion.value, h.at)) {
            continue;  // a newer value for this subject is already queued
          }
        }
        json payload = sdk::contract::MemorySuggestArgs(suggestion);
        SQLite::Statement ob(db,
                             "INSERT OR IGNORE INTO episodic_outbox (dedupe_key, tool, payload, "
                             "caller, created_at) VALUES (?, ?, ?, ?, ?)");
        sdk::RedactSecretsInJson(payload);  // backstop: the batch is already redacted
        sdk::RedactSecretsInJson(caller);
        sdk::Bind(ob, sdk::RedactSecrets("suggest:" + project + ":" + NormalizeKey(d.entry)),
                  std::string(sdk::contract::kMemorySuggest), sdk::DumpJson(payload),
                  sdk::DumpJson(caller), static_cast<int64_t>(now));
        a.suggested += ob.exec();
      }
    }
    json records = json::array();
    auto flush_records = [&] {
      if (records.empty()) return;
      SQLite::Statement ob(db,
                           "INSERT INTO episodic_outbox (tool, payload, caller, created_at) "
                           "VALUES (?, ?, ?, ?)");
      json payload = sdk::contract::FeedbackRecordArgs(std::move(records));
      // No caller agent: each imported record names the transcript's agent itself, which
      // sdk::ResolveAgentId only accepts from a caller that does not name one.
      json caller = {{"agent_id", ""},
                     {"project_id", caller_.project_id},
                     {"project_root", caller_.project_root}};
      sdk::RedactSecretsInJson(payload);  // backstop: the batch is already redacted
      sdk::RedactSecretsInJson(caller);
      sdk::Bind(ob, std::string(sdk::contract::kFeedbackRecord), sdk::DumpJson(payload),
                sdk::DumpJson(caller), static_cast<int64_t>(now));
      ob.exec();
      records = json::array();
    };
    for (const auto& o : b.outcomes) {
      SQLite::Statement ts(db,
                           "INSERT INTO episodic_tool_stats (session_id, tool, calls, failures) "
                           "VALUES (?1, ?2, 1, ?3) ON CONFLICT(session_id, tool) DO UPDATE SET "
                           "calls = calls + 1, failures = failures + ?3");
      sdk::Bind(ts, o.session_id, o.tool, o.outcome == "success" ? 0 : 1);
      ts.exec();
      ++a.outcomes;
      const SessionDelta* d = session_of(o.session_id);
      if (o.outcome != "success") {
        ++a.failed;
        LogEntry e;
        e.session_id = o.session_id;
        e.at = o.at;
        e.type = "issue";
        // A file argument reads better relative to the project (privacy.hpp).
        std::string detail = o.detail;
        if (!detail.empty() && detail.find(' ') == std::string::npos) {
          auto cwd = cwd_of.find(o.session_id);
          detail = StoredPath(detail, cwd == cwd_of.end() ? std::string_view()
                                                          : std::string_view(cwd->second));
        }
        e.entry = Clean(o.tool + (o.outcome == "rejected" ? " refused" : " failed") +
                            (detail.empty() ? "" : " (" + detail + ")") +
                            (o.error.empty() ? "" : ": " + o.error),
                        600);
        e.agent_id = d ? d->agent : "";
        e.source_ref = source + ":" + std::to_string(o.line);
        AppendLog(db, e);
      }
      if (!feedback) continue;
      sdk::contract::ToolOutcome r;
      r.tool = o.tool;
      r.outcome = o.outcome;
      r.session_id = o.session_id;
      r.project_id = project_of(o.session_id);
      r.at_ms = o.at;
      r.agent_id = d && !d->agent.empty() ? d->agent : caller_.agent_id;
      if (d) r.model = d->model;
      if (o.latency_ms && *o.latency_ms <= 86'400'000) {
        r.latency_ms = static_cast<double>(*o.latency_ms);
      }
      if (!o.error.empty()) r.error = Clean(o.error, 500);
      if (!o.call_id.empty()) r.source_id = sdk::TruncateUtf8(o.call_id, 200);
      records.push_back(sdk::contract::FeedbackRecordItem(r));
      if (records.size() >= kFeedbackBatch) flush_records();
    }
    flush_records();
    for (const auto& f : b.files) {
      auto cwd = cwd_of.find(f.session_id);
      const std::string p =
          StoredPath(f.path, cwd == cwd_of.end() ? std::string_view() : std::string_view(cwd->second));
      SQLite::Statement q(db,
                          "INSERT INTO episodic_files (session_id, path, action, count, first_at, "
                          "last_at) VALUES (?1, ?2, ?3, 1, ?4, ?4) ON CONFLICT(session_id, path, "
                          "action) DO UPDATE SET count = count + 1, first_at = MIN(first_at, ?4), "
                          "last_at = MAX(last_at, ?4)");
      sdk::Bind(q, f.session_id, p, f.action, static_cast<int64_t>(f.at));
      q.exec();
      ++a.files;
    }
    for (const auto& k : b.seen_keys) {
      SQLite::Statement q(db, "INSERT OR IGNORE INTO episodic_ingest_seen (key) VALUES (?)");
      sdk::Bind(q, k);
      q.exec();
    }
    // One transcript summary per session, rebuilt from what is stored.
    std::set<std::string> touched(b.session_order.begin(), b.session_order.end());
    for (const auto& o : b.outcomes) touched.insert(o.session_id);
    for (const auto& sid : touched) {
      if (!LoadSession(db, sid)) continue;
      auto s = *LoadSession(db, sid);
      const std::string text = BuildTranscriptSummary(db, sid);
      const std::string skey = "transcript:" + sid;
      SQLite::Statement up(db,
                           "UPDATE episodic_summaries SET summary = ?, token_count = ?, model = ?, "
                           "message_count = ?, started_at = ?, ended_at = ? WHERE source_key = ?");
      sdk::Bind(up, text, static_cast<int64_t>(sdk::EstimateTokens(text)), s.model,
                static_cast<int64_t>(s.message_count), static_cast<int64_t>(s.started_at),
                static_cast<int64_t>(s.last_activity_at), skey);
      if (up.exec() == 0) {
        Summary sum;
        sum.session_id = sid;
        sum.kind = "transcript";
        sum.text = text;
        sum.token_count = static_cast<std::int64_t>(sdk::EstimateTokens(text));
        sum.model = s.model;
        sum.message_count = s.message_count;
        sum.started_at = s.started_at;
        sum.ended_at = s.last_activity_at;
        sum.created_at = now;
        sum.agent_id = s.agent_id;
        sum.method = "extractive";
        sum.source_key = skey;
        InsertSummary(db, sum);
      }
      CompactSession(db, sid, settings_, now);
    }
  };

  std::int64_t skipped_committed = 0;
  auto commit = [&](std::uint64_t new_offset, std::int64_t new_line_no) {
    const std::int64_t skipped_delta = report.skipped_lines - skipped_committed;
    json new_state = state;
    new_state["parser"] = parser->SaveState();
    // Pending tool inputs (a psql URL with its password) wait in the parser state: redact
    // it like everything else stored. Not counted: what surfaces later is counted then.
    sdk::RedactSecretsInJson(new_state);
    sdk::RedactionCounts batch_redacted;
    RedactBatch(batch, batch_redacted);
    Applied applied;
    sdk::WithWriteTransaction(db, [&] {
      applied = Applied{};
      const std::int64_t now = host_.GetClock().NowMs();
      if (expected_offset) {
        SQLite::Statement q(db,
                            "UPDATE episodic_ingest_files SET format = ?, byte_offset = ?, "
                            "line_no = ?, head = ?, state = ?, skipped_lines = skipped_lines + ?, "
                            "updated_at = ? WHERE path = ? AND byte_offset = ?");
        sdk::Bind(q, FormatName(format), static_cast<int64_t>(new_offset),
                  static_cast<int64_t>(new_line_no));
        q.bind(4, head_print.data(), static_cast<int>(head_print.size()));
        q.bind(5, sdk::DumpJson(new_state));
        q.bind(6, static_cast<int64_t>(skipped_delta));
        q.bind(7, static_cast<int64_t>(now));
        q.bind(8, key);
        q.bind(9, static_cast<int64_t>(*expected_offset));
        if (q.exec() != 1) throw ConcurrentIngest();
      } else {
        SQLite::Statement q(db,
                            "INSERT INTO episodic_ingest_files (path, format, byte_offset, line_no, "
                            "head, state, skipped_lines, updated_at) VALUES (?,?,?,?,?,?,?,?) "
                            "ON CONFLICT(path) DO NOTHING");
        sdk::Bind(q, key, FormatName(format), static_cast<int64_t>(new_offset),
                  static_cast<int64_t>(new_line_no));
        q.bind(5, head_print.data(), static_cast<int>(head_print.size()));
        q.bind(6, sdk::DumpJson(new_state));
        q.bind(7, static_cast<int64_t>(skipped_delta));
        q.bind(8, static_cast<int64_t>(now));
        if (q.exec() != 1) throw ConcurrentIngest();
      }
      apply(batch, applied);
    });
    expected_offset = new_offset;
    skipped_committed = report.skipped_lines;
    report.messages += applied.messages;
    report.tool_outcomes += applied.outcomes;
    report.failed_tools += applied.failed;
    report.files_touched += applied.files;
    report.statements += applied.statements;
    report.suggested += applied.suggested;
    report.duplicates += batch.duplicates;
    for (const auto& [kind, n] : batch_redacted) report.redacted[kind] += n;
    report.bad_timestamps += batch.bad_timestamps;
    for (const auto& sid : batch.session_order) {
      if (sessions_seen.insert(sid).second) report.sessions.push_back(sid);
    }
    report.bytes += new_offset - batch_start;
    batch = ParsedBatch{};
    batch_start = new_offset;
  };

  auto feed = [&](const std::string& raw) {
    const std::string text = sdk::IsValidUtf8(raw) ? raw : sdk::SanitizeUtf8(raw);
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      ++report.skipped_lines;
      return;
    }
    if (!parser) {
      const Format f = DetectLineFormat(j);
      if (f == Format::kUnknown) {
        ++report.skipped_lines;
        return;
      }
      format = f;
      report.format = FormatName(f);
      parser = MakeParser(format, pctx);
      parser->LoadState(state.value("parser", json::object()));
    }
    if (!parser->Feed(j, line_no, batch)) ++report.skipped_lines;
  };

  try {
    std::string line;
    for (;;) {
      const auto status = reader.Next(line);
      if (status == LineReader::Status::kEnd) {
        // A last line without '\n' is taken only when it is a whole JSON object: a writer
        // in the middle of a line leaves an unparsable tail that a later read completes.
        const std::string& tail = reader.Tail();
        if (!Blank(tail) && json::accept(tail)) {
          ++line_no;
          ++report.lines;
          feed(tail);
          reader.AcceptTail();
        }
        break;
      }
      ++line_no;
      ++report.lines;
      if (status == LineReader::Status::kOversize) {
        ++report.oversize_lines;
        ++report.skipped_lines;
      } else if (Blank(line)) {
        ++report.blank_lines;
      } else {
        feed(line);
      }
      if (parser && reader.Offset() - batch_start >= settings_.batch_bytes) {
        commit(reader.Offset(), line_no);
        if (should_stop && should_stop()) {
          report.stopped = true;
          return report;
        }
      }
    }
    if (!parser) {
      if (report.lines > report.blank_lines) {
        report.error = "no Claude Code, Codex or {role, content} JSONL line found in " +
                       report.path + " (" + std::to_string(report.skipped_lines) +
                       " lines skipped); nothing was recorded";
      }
      return report;
    }
    commit(reader.Offset(), line_no);
  } catch (const ConcurrentIngest& e) {
    report.error = std::string(e.what()) + "; this batch was not recorded, try again";
  } catch (const std::exception& e) {
    report.error = std::string("ingest failed: ") + e.what() +
                   "; nothing of the failing batch was recorded";
  }
  return report;
}

DeliveryReport Ingester::Deliver() {
  DeliveryReport rep;
  auto& db = host_.Db();
  std::int64_t after = 0;
  for (;;) {
    struct Row {
      std::int64_t id;
      std::string tool, payload, caller;
    };
    std::vector<Row> rows;
    {
      SQLite::Statement q(db,
                          "SELECT id, tool, payload, caller FROM episodic_outbox WHERE status = "
                          "'pending' AND id > ? AND attempts < 5 ORDER BY id LIMIT 50");
      sdk::Bind(q, static_cast<int64_t>(after));
      while (q.executeStep()) {
        rows.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getString(),
                        q.getColumn(2).getString(), q.getColumn(3).getString()});
      }
    }
    if (rows.empty()) break;
    for (const auto& r : rows) {
      after = r.id;
      if (!host_.HasTool(r.tool)) {
        ++rep.waiting;
        continue;
      }
      json payload = json::parse(r.payload, nullptr, false);
      json cj = json::parse(r.caller, nullptr, false);
      sdk::Caller caller = caller_;
      if (cj.is_object()) {
        if (cj.contains("agent_id")) {
          caller.agent_id = cj.value("agent_id", caller.agent_id);
          caller.agent_source = sdk::AgentSource::kNone;  // imported rows name their agent
          caller.instance_id.clear();
        }
        caller.session_id = cj.value("session_id", caller.session_id);
        caller.project_id = cj.value("project_id", caller.project_id);
        caller.project_root = cj.value("project_root", caller.project_root);
      }
      sdk::ToolResult res = host_.CallTool(r.tool, payload, caller);
      const std::int64_t now = host_.GetClock().NowMs();
      sdk::WithWriteTransaction(db, [&] {
        if (!res.is_error && r.tool == sdk::contract::kFeedbackRecord) {
          SQLite::Statement d(db, "DELETE FROM episodic_outbox WHERE id = ?");
          sdk::Bind(d, static_cast<int64_t>(r.id));
          d.exec();
        } else if (!res.is_error) {
          SQLite::Statement u(db,
                              "UPDATE episodic_outbox SET status = 'sent', sent_at = ?, payload = "
                              "'' WHERE id = ?");
          sdk::Bind(u, static_cast<int64_t>(now), static_cast<int64_t>(r.id));
          u.exec();
        } else {
          SQLite::Statement u(db,
                              "UPDATE episodic_outbox SET attempts = attempts + 1, last_error = ? "
                              "WHERE id = ?");
          sdk::Bind(u, sdk::TruncateUtf8(res.text, 500), static_cast<int64_t>(r.id));
          u.exec();
        }
      });
      if (!res.is_error && r.tool == sdk::contract::kFeedbackRecord) {
        rep.expired_outcomes += sdk::contract::FeedbackRecordExpired(res.structured).value_or(0);
      }
      if (res.is_error) {
        ++rep.failed;
        if (rep.errors.size() < 5) rep.errors.push_back(r.tool + ": " + sdk::TruncateUtf8(res.text, 200));
      } else {
        ++rep.sent;
      }
    }
  }
  return rep;
}

}  // namespace kioku::episodic

#include <chrono>
#include <cstdlib>
#include <sqlite3.h>
#include <sys/stat.h>

#include <SQLiteCpp/SQLiteCpp.h>

#include "cli/commands.hpp"
#include "config.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/match_key.hpp"
#include "migrations.hpp"
#include "plugin_loader.hpp"
#include "providers/http_client.hpp"
#include "providers/openai_chat.hpp"
#include "providers/openai_embedder.hpp"
#include "providers/provider_call.hpp"

namespace kioku::host::cli {
namespace {

using nlohmann::json;

struct Report {
  json checks = json::array();
  bool ok = true;
  void Add(const std::string& name, bool pass, const std::string& detail) {
    checks.push_back({{"check", name}, {"ok", pass}, {"detail", detail}});
    ok = ok && pass;
  }
};

std::string Mode(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return "missing";
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", st.st_mode & 07777);
  return buf;
}

// The circuit breaker every process on this home shares for a provider (provider_call.hpp).
providers::CircuitBreaker SharedCircuit(const Loaded& loaded, const ProviderConfig& p, const std::string& endpoint,
                                        const std::string& kind) {
  return providers::CircuitBreaker(p.breaker_failures, p.breaker_cooldown_ms, std::make_shared<sdk::SystemClock>(),
                                   providers::BreakerKey(endpoint, p.model),
                                   providers::BreakerStateFile(ResolveHome(loaded.config.home.string()), kind));
}

// "" while the shared circuit is closed, else what the processes on this home are doing.
std::string OpenCircuitNote(const providers::CircuitBreaker& circuit) {
  const sdk::EmbedderHealth h = circuit.Health();
  if (!h.circuit_open) return "";
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch()).count();
  return "circuit open after " + std::to_string(h.consecutive_failures) + " failures in a row (last: " + h.last_error +
         "): every kioku process on this home skips it for " + std::to_string((h.retry_at_ms - now + 999) / 1000) +
         " s more";
}

// A provider check without --online: passes unless the shared circuit is open.
void AddOfflineCheck(Report& report, const std::string& name, const std::string& detail,
                     const providers::CircuitBreaker& shared) {
  const std::string open = OpenCircuitNote(shared);
  report.Add(name, open.empty(),
             detail + (open.empty() ? " (not contacted; use --online)"
                                    : ": " + open + "; `kioku doctor --online` probes it and closes the circuit if "
                                                    "it answers"));
}

// After a good probe: closes the shared circuit for every process; what to add to the detail.
std::string CloseAfterGoodProbe(providers::CircuitBreaker& shared) {
  const bool was_open = !OpenCircuitNote(shared).empty();
  shared.RecordSuccess();
  return was_open ? " (its open circuit is now closed)" : "";
}

bool TryExec(SQLite::Database& db, const char* sql, std::string& error) {
  try {
    db.exec(sql);
    return true;
  } catch (const std::exception& e) {
    error = e.what();
    return false;
  }
}

// Each layer's own counts (ExporterSpec::doctor_counts: memories per status, the review
// backlog, ...), read through the registered plugins without migrating anything.
void LayerCounts(const GlobalOptions& global, SQLite::Database& db, Report& report) {
  try {
    auto described = LoadRuntime(global, StartMode::kDescribe);
    for (const auto& e : described.runtime->Exporters()) {
      if (!e.doctor_counts) continue;
      try {
        report.Add(e.name + " counts", true, sdk::DumpJson(e.doctor_counts(db)));
      } catch (const std::exception& ex) {
        report.Add(e.name + " counts", false, ex.what());
      }
    }
  } catch (const std::exception& e) {
    report.Add("layer counts", false, e.what());
  }
}

// "<endpoint> model M, key from $VAR" — names the variable, never reads the key out.
std::string ProviderDetail(const std::string& endpoint, const ProviderConfig& c) {
  std::string detail = endpoint + " model " + c.model;
  if (!c.api_key_env.empty()) {
    const char* key = std::getenv(c.api_key_env.c_str());
    detail += key != nullptr && *key != '\0' ? ", key from $" + c.api_key_env : ", $" + c.api_key_env + " is NOT set";
  }
  return detail;
}

}  // namespace

int Doctor(const GlobalOptions& global, bool as_json, std::ostream& out, bool online) {
  Report report;
  Loaded loaded;
  try {
    loaded = LoadConfig(global);
    report.Add("config", true, loaded.config.source + " (enabled: " + std::to_string(loaded.config.enabled.size()) + " layers)");
  } catch (const std::exception& e) {
    report.Add("config", false, e.what());
  }
  std::string dirs;
  for (const auto& d : loaded.search_path) dirs += (dirs.empty() ? "" : ":") + d.string();
  report.Add("plugin path", !ListModules(loaded.search_path).empty(), dirs.empty() ? "(none)" : dirs);

  for (const auto& name : loaded.config.enabled) {
    auto path = FindModule(name, loaded.search_path);
    try {
      auto module = LoadModule(path, name);
      report.Add("plugin " + name, true, path.string() + " v" + module.manifest->version);
    } catch (const std::exception& e) {
      report.Add("plugin " + name, false, e.what());
    }
  }

  SQLite::Database mem(":memory:", SQLite::OPEN_READWRITE);
  std::string err;
  report.Add("sqlite", sqlite3_libversion_number() >= 3035000, std::string("version ") + sqlite3_libversion());
  report.Add("fts5", TryExec(mem, "CREATE VIRTUAL TABLE f USING fts5(x, tokenize='porter unicode61')", err),
             err.empty() ? "porter unicode61 tokenizer available" : err);
  err.clear();
  report.Add("fts5 trigram", TryExec(mem, "CREATE VIRTUAL TABLE t USING fts5(x, tokenize='trigram')", err),
             err.empty() ? "trigram tokenizer available" : err);
  const std::string icu_problem = sdk::UnicodeMatchKeysProblem();
  report.Add("unicode keys", icu_problem.empty(),
             icu_problem.empty()
                 ? std::string(sdk::UnicodeLibraryName()) + " loaded: non-ASCII names, subjects and tags match by NFKC case folding"
                 : icu_problem + ": writes and searches with non-ASCII names, subjects or tags fail until ICU loads");

  if (!loaded.config.source.empty()) {
    const auto home = ResolveHome(loaded.config.home.string());
    const auto db_path = home / "kioku.db";
    std::error_code ec;
    const bool home_exists = std::filesystem::is_directory(home, ec);
    const std::string home_mode = Mode(home);
    report.Add("data directory", !home_exists || home_mode == "0700",
               home.string() + (home_exists ? " mode " + home_mode +
                                                   (home_mode == "0700" ? "" : " (want 0700; kioku tightens it at its next start)")
                                             : " (created on first start)"));
    if (std::filesystem::exists(db_path, ec)) {
      const std::string db_mode = Mode(db_path);
      report.Add("database permissions", db_mode == "0600", db_path.string() + " mode " + db_mode + " (want 0600)");
      try {
        auto db = sdk::OpenDatabase(db_path.string());
        std::string journal = db.execAndGet("PRAGMA journal_mode").getString();
        std::string integrity = db.execAndGet("PRAGMA quick_check").getString();
        report.Add("database", integrity == "ok" && journal == "wal", "journal " + journal + ", quick_check " + integrity);
        json versions = json::object();
        for (const auto& name : loaded.config.enabled) versions[name] = AppliedVersion(db, name);
        report.Add("schema versions", true, versions.dump());
        LayerCounts(global, db, report);
      } catch (const std::exception& e) {
        report.Add("database", false, e.what());
      }
    } else {
      report.Add("database", true, db_path.string() + " (created on first start)");
    }
    report.Add("backups", true, DescribeBackupAge(loaded.config, home));
  }

  if (const EmbeddingConfig& e = loaded.config.embedding; !e.url.empty()) {
    try {
      auto embedder = providers::MakeOpenAiEmbedder(e, nullptr);  // its own breaker: the probe always goes
      const std::string detail = ProviderDetail(embedder->Endpoint(), e);
      providers::CircuitBreaker shared = SharedCircuit(loaded, e, embedder->Endpoint(), "embedding");
      if (!online) {
        AddOfflineCheck(report, "embedding endpoint", detail, shared);
      } else {
        const auto t0 = std::chrono::steady_clock::now();
        const sdk::EmbedResult r = embedder->Embed({"kioku doctor embedding check"});
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        if (r.ok()) {
          report.Add("embedding endpoint", true, detail + ", " + std::to_string(r.vectors.front().size()) +
                                                     " dimensions, answered in " + std::to_string(ms) + " ms" +
                                                     CloseAfterGoodProbe(shared));
        } else {
          report.Add("embedding endpoint", false, r.error + " — writes and text recall still work (degraded: no vector search)");
        }
      }
    } catch (const std::exception& ex) {
      report.Add("embedding endpoint", false, ex.what());
    }
  } else {
    report.Add("embedding endpoint", true, "none configured (providers.embedding): text search only");
  }

  if (const ChatConfig& c = loaded.config.chat; !c.url.empty()) {
    try {
      auto chat = providers::MakeOpenAiChat(c, nullptr);
      const std::string detail = ProviderDetail(chat->Endpoint(), c);
      providers::CircuitBreaker shared = SharedCircuit(loaded, c, chat->Endpoint(), "chat");
      if (!online) {
        AddOfflineCheck(report, "chat endpoint", detail, shared);
      } else {
        sdk::ChatRequest probe;
        probe.messages = {{"user", "Reply with the JSON object {\"ok\": true} and nothing else."}};
        probe.json_schema = json{{"type", "object"}, {"properties", {{"ok", {{"type", "boolean"}}}}}, {"required", {"ok"}}};
        probe.max_tokens = 16;
        const auto t0 = std::chrono::steady_clock::now();
        const sdk::ChatResult r = chat->Complete(probe);
        const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0).count();
        if (r.ok()) {
          report.Add("chat endpoint", true, detail + ", structured answer in " + std::to_string(ms) + " ms" +
                                                CloseAfterGoodProbe(shared));
        } else if (r.kind == sdk::ChatError::kInvalidAnswer) {
          report.Add("chat endpoint", false, r.error + " — the model answers but not in the asked JSON shape; try "
                                                     "providers.chat.response_format or another model");
        } else {
          report.Add("chat endpoint", false, r.error + " — memory_reflect and entity_extract_deep are unavailable");
        }
      }
    } catch (const std::exception& ex) {
      report.Add("chat endpoint", false, ex.what());
    }
  } else {
    report.Add("chat endpoint", true, "none configured (providers.chat): memory_reflect and entity_extract_deep off");
  }
  if (!loaded.config.embedding.url.empty() || !loaded.config.chat.url.empty()) {
    const std::string problem = providers::HttpClientProblem();
    report.Add("HTTP client module", problem.empty(), problem.empty() ? std::string("loads (") + providers::kHttpClientModule + ")" : problem);
  }

  if (as_json) {
    out << sdk::DumpJson(json{{"ok", report.ok}, {"checks", report.checks}}, 2) << "\n";
  } else {
    for (const auto& c : report.checks) {
      out << (c["ok"].get<bool>() ? "ok    " : "FAIL  ") << c["check"].get<std::string>() << ": "
          << c["detail"].get<std::string>() << "\n";
    }
    out << (report.ok ? "all checks passed\n" : "some checks failed\n");
  }
  return report.ok ? 0 : 1;
}

}  // namespace kioku::host::cli

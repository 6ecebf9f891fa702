#include "golden_eval.hpp"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <istream>
#include <map>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "keys.hpp"
#include "kioku/sdk/clock.hpp"
#include "conversation_eval.hpp"
#include "eval_support.hpp"
#include "eval_vectors.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/fts.hpp"
#include "kioku/sdk/sql.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "schema.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

constexpr std::int64_t kEvalNow = 1'780'272'000'000;  // 2026-06-01T00:00:00Z
constexpr const char* kEvalProject = "eval-project";

struct MemoryLine {
  int line = 0;
  Json spec;
  double age_days = 0;
};

struct CaseLine {
  int line = 0;
  Json spec;
};

std::runtime_error LineError(int line, const std::string& what) {
  return std::runtime_error("golden set line " + std::to_string(line) + ": " + what);
}

// The kBm25 baseline: plain FTS5, no stopwords dropped, default column weights.
std::vector<Memory> Bm25Baseline(const Env& env, const RecallRequest& r, const Viewer& v) {
  std::string match;
  for (const std::string& tok : sdk::FtsTokens(r.query)) {
    match += (match.empty() ? "" : " OR ") + sdk::QuoteFtsToken(tok);
  }
  std::vector<Memory> out;
  if (match.empty()) return out;
  sdk::CachedStatement q = env.Stmt(
      std::string("SELECT ") + MemoryColumns() +
      " FROM semantic_fts f JOIN semantic_memories m ON m.seq = f.rowid WHERE semantic_fts "
      "MATCH ? AND (m.scope = 'global' OR m.project_key = " + KeyOfSql("?") + ") AND m.status IN "
      "('active','pinned','pending','contested') ORDER BY bm25(semantic_fts) LIMIT ?");
  sdk::Bind(*q, match, v.project_id, r.limit);
  while (q->executeStep()) out.push_back(ReadMemory(*q));
  return out;
}

}  // namespace

MemoryDraft EvalDraft(const Json& args, const std::string& project, const Settings& settings,
                      std::int64_t now_ms, bool suggest) {
  sdk::Caller caller;
  caller.agent_id = "eval";
  caller.project_id = project;
  caller.project_root = "/eval/" + project;
  return ParseDraft(args, caller, settings, now_ms, suggest, "");
}

bool ContainsCi(const std::string& haystack, const std::string& needle) {
  return AsciiLower(haystack).find(AsciiLower(needle)) != std::string::npos;
}

std::string Fixed(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << v;
  return s.str();
}

std::optional<EvalRanker> ParseEvalRanker(std::string_view name) {
  if (name == "recall") return EvalRanker::kRecall;
  if (name == "bm25") return EvalRanker::kBm25;
  return std::nullopt;
}

std::vector<Memory> EvalRank(const Env& env, const RecallRequest& request_in, const Viewer& viewer,
                             EvalRanker ranker, EvalVectors* vectors) {
  if (ranker == EvalRanker::kBm25) return Bm25Baseline(env, request_in, viewer);
  RecallRequest request = request_in;
  if (vectors != nullptr) vectors->AddTo(env, request);
  RecallOutcome outcome = Recall(env, request, viewer);
  std::vector<Memory> out;
  out.reserve(outcome.memories.size());
  for (RecalledMemory& m : outcome.memories) out.push_back(std::move(m.memory));
  return out;
}

void ComputeMetrics(EvalReport& report) {
  report.cases = static_cast<int>(report.results.size());
  report.hit_at_1 = report.hit_at_5 = report.mrr = report.recall_at_10 = 0;
  report.absent_violations = 0;
  if (report.cases == 0) return;
  for (const EvalCaseResult& r : report.results) {
    if (r.first_relevant_rank == 1) report.hit_at_1 += 1;
    if (r.first_relevant_rank >= 1 && r.first_relevant_rank <= 5) report.hit_at_5 += 1;
    if (r.first_relevant_rank > 0) report.mrr += 1.0 / r.first_relevant_rank;
    if (r.relevant > 0) {
      report.recall_at_10 += std::min(1.0, static_cast<double>(r.relevant_in_top10) / r.relevant);
    }
    if (r.absent_violated) ++report.absent_violations;
  }
  const double n = report.cases;
  report.hit_at_1 /= n;
  report.hit_at_5 /= n;
  report.mrr /= n;
  report.recall_at_10 /= n;
}

EvalReport RunGoldenSet(std::istream& in, const Settings& settings_in, EvalRanker ranker, EvalVectors* vectors) {
  std::vector<MemoryLine> memories;
  std::vector<CaseLine> cases;
  std::string raw;
  int line_no = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string_view t = Trim(raw);
    if (t.empty() || t.front() == '#' || t.substr(0, 2) == "//") continue;
    Json j = Json::parse(t, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw LineError(line_no, "not a JSON object");
    if (j.contains("memory")) {
      MemoryLine m{line_no, j.at("memory"), 0};
      if (!m.spec.is_object()) throw LineError(line_no, "memory must be an object");
      m.age_days = m.spec.value("age_days", 0.0);
      memories.push_back(std::move(m));
    } else if (j.contains("query")) {
      cases.push_back({line_no, std::move(j)});
    } else {
      throw LineError(line_no, "expected a \"memory\" or a \"query\" line");
    }
  }

  Settings settings = settings_in;
  settings.recall.track_recalls = false;
  SQLite::Database db = sdk::OpenDatabase(":memory:");
  ApplyMigrations(db);
  sdk::ManualClock clock(kEvalNow);
  sdk::StatementCache statements;  // after db: its statements must be finalized first
  Env env{db, clock, settings, statements};

  // Oldest first, so later values supersede earlier ones as they would have in real use.
  std::stable_sort(memories.begin(), memories.end(),
                   [](const MemoryLine& a, const MemoryLine& b) { return a.age_days > b.age_days; });
  std::map<std::string, std::string> id_of_key;
  std::map<std::string, std::string> key_of_id;
  std::int64_t tick = 0;
  for (const MemoryLine& m : memories) {
    clock.Set(kEvalNow - static_cast<std::int64_t>(m.age_days * sdk::kMsPerDay) + ++tick);
    Json args = m.spec;
    const std::string key = args.value("key", "");
    const bool suggest = args.value("suggest", false);
    const bool pin = args.value("pin", false);
    const int recalls = args.value("recalls", 0);
    const std::string project = args.value("project", kEvalProject);
    for (const char* k : {"key", "age_days", "suggest", "pin", "recalls", "project"}) args.erase(k);
    MemoryDraft draft;
    try {
      draft = EvalDraft(args, project, settings, clock.NowMs(), suggest);
    } catch (const std::exception& e) {
      throw LineError(m.line, e.what());
    }
    WithMemoryWriter(env, [&](MemoryWriter& writer) {
      const WriteResult r = writer.Remember(draft, Author{"eval", "eval"});
      if (pin) {
        if (auto loaded = LoadMemoryById(db, r.id)) writer.Pin(*loaded, Author{"eval", "eval"});
      }
      if (recalls > 0) {
        SQLite::Statement q(db, "UPDATE semantic_memories SET recall_count = ? WHERE seq = ?");
        sdk::Bind(q, recalls, r.seq);
        q.exec();
      }
      if (!key.empty()) {
        id_of_key[key] = r.id;
        key_of_id[r.id] = key;
      }
    });
  }
  clock.Set(kEvalNow);

  EvalReport report;
  report.memories = static_cast<int>(memories.size());
  const Viewer viewer{kEvalProject, ""};
  for (const CaseLine& c : cases) {
    EvalCaseResult res;
    res.line = c.line;
    res.query = c.spec.value("query", "");
    Json args = c.spec.value("args", Json::object());
    args["query"] = res.query;
    if (!args.contains("limit")) args["limit"] = 10;
    RecallRequest request;
    try {
      request = ParseRecallArgs(args, settings);
    } catch (const std::exception& e) {
      throw LineError(c.line, e.what());
    }
    const std::vector<std::string> expect = c.spec.value("expect", std::vector<std::string>{});
    const std::vector<std::string> expect_text =
        c.spec.value("expect_text", std::vector<std::string>{});
    const std::vector<std::string> absent = c.spec.value("absent", std::vector<std::string>{});
    if (expect.empty() && expect_text.empty()) {
      throw LineError(c.line, "a query needs expect (keys) or expect_text (substrings)");
    }
    for (const std::string& k : expect) {
      if (!id_of_key.count(k)) throw LineError(c.line, "expect names unknown key '" + k + "'");
    }
    for (const std::string& k : absent) {
      if (!id_of_key.count(k)) throw LineError(c.line, "absent names unknown key '" + k + "'");
    }
    // The relevant set: expected keys plus live memories whose text matches expect_text.
    std::set<std::string> relevant;
    for (const std::string& k : expect) relevant.insert(id_of_key[k]);
    if (!expect_text.empty()) {
      SQLite::Statement q(db,
                          "SELECT " + MemoryIdSql() + ", text FROM semantic_memories WHERE status <> 'superseded'");
      while (q.executeStep()) {
        const std::string text = q.getColumn(1).getString();
        for (const std::string& s : expect_text) {
          if (ContainsCi(text, s)) relevant.insert(q.getColumn(0).getString());
        }
      }
    }
    res.relevant = static_cast<int>(relevant.size());

    std::vector<Memory> ranked;
    try {
      ranked = EvalRank(env, request, viewer, ranker, vectors);
    } catch (const std::exception& e) {
      throw LineError(c.line, e.what());
    }
    for (std::size_t i = 0; i < ranked.size() && i < 10; ++i) {
      const Memory& m = ranked[i];
      bool hit = relevant.count(m.id) > 0;
      for (const std::string& s : expect_text) hit = hit || ContainsCi(m.text, s);
      if (hit) {
        ++res.relevant_in_top10;
        if (res.first_relevant_rank == 0) res.first_relevant_rank = static_cast<int>(i + 1);
      }
      for (const std::string& k : absent) {
        if (id_of_key[k] == m.id) res.absent_violated = true;
      }
      if (i < 5) res.top.push_back(key_of_id.count(m.id) ? key_of_id[m.id] : m.id);
    }
    res.relevant = std::max(res.relevant, res.relevant_in_top10);
    report.results.push_back(std::move(res));
  }

  ComputeMetrics(report);
  return report;
}

std::string FormatReport(const EvalReport& r) {
  return "memories " + std::to_string(r.memories) + " · cases " + std::to_string(r.cases) +
         " · hit@1 " + Fixed(r.hit_at_1) + " · hit@5 " + Fixed(r.hit_at_5) + " · MRR " +
         Fixed(r.mrr) + " · recall@10 " + Fixed(r.recall_at_10) + " · absent-violations " +
         std::to_string(r.absent_violations);
}

namespace {

// hit@5 per question type ("changed 0.800 (10)"), for conversation sets.
std::string ByType(const EvalReport& r) {
  std::map<std::string, std::pair<int, int>> by;  // type → (hits@5, cases)
  for (const EvalCaseResult& c : r.results) {
    if (c.type.empty()) continue;
    auto& [hits, n] = by[c.type];
    hits += c.first_relevant_rank >= 1 && c.first_relevant_rank <= 5 ? 1 : 0;
    ++n;
  }
  std::string out;
  for (const auto& [type, hn] : by) {
    out += (out.empty() ? "hit@5 by type: " : " · ") + type + " " +
           Fixed(static_cast<double>(hn.first) / hn.second) + " (" + std::to_string(hn.second) +
           ")";
  }
  return out;
}

bool ReadFraction(const std::string& text, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(text, &used);
    return used == text.size() && out >= 0 && out <= 1.01;
  } catch (const std::exception&) {
    return false;
  }
}

}  // namespace

sdk::CommandSpec RecallEvalCommand(const Settings& settings, sdk::Embedder* embedder) {
  sdk::CommandSpec cmd;
  cmd.name = "recall-eval";
  cmd.summary = "Score semantic recall on a golden or conversation set (hit@1, hit@5, MRR)";
  cmd.usage =
      "kioku recall-eval FILE [--ranker recall|bm25] [--vectors] [--min-hit1 X]\n"
      "                  [--min-hit5 X] [--verbose] [--json]\n"
      "  FILE        golden set or conversation set (JSON Lines; see plugins/semantic/README.md)\n"
      "  --ranker    recall (default: the memory_recall ranking) or bm25 (plain FTS5 BM25\n"
      "              with the query's terms OR-ed: the baseline)\n"
      "  --vectors   add the vector list: providers.embedding embeds the set's memories and\n"
      "              queries (semantic.vectors.min_score applies)\n"
      "  --min-hit1  exit 1 when hit@1 is below X (0..1)\n"
      "  --min-hit5  exit 1 when hit@5 is below X (0..1)\n"
      "  --verbose   list every case that missed its top-1\n"
      "  --json      print the report as JSON\n"
      "Runs in a private in-memory database with the configured ranking settings; the\n"
      "deployment's memories are not read or changed.";
  cmd.run = [settings, embedder](const std::vector<std::string>& args, std::istream&, std::ostream& out,
                                 std::ostream& err) -> int {
    std::string file;
    double min_hit1 = -1;
    double min_hit5 = -1;
    bool verbose = false;
    bool json = false;
    bool with_vectors = false;
    EvalRanker ranker = EvalRanker::kRecall;
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (args[i] == "--verbose") {
        verbose = true;
      } else if (args[i] == "--vectors") {
        with_vectors = true;
      } else if (args[i] == "--json") {
        json = true;
      } else if ((args[i] == "--min-hit5" || args[i] == "--min-hit1") && i + 1 < args.size()) {
        double& target = args[i] == "--min-hit5" ? min_hit5 : min_hit1;
        if (!ReadFraction(args[i + 1], target)) {
          err << "recall-eval: " << args[i] << " needs a number between 0 and 1\n";
          return 2;
        }
        ++i;
      } else if (args[i] == "--ranker" && i + 1 < args.size()) {
        const auto parsed = ParseEvalRanker(args[++i]);
        if (!parsed) {
          err << "recall-eval: --ranker is recall or bm25, not '" << args[i] << "'\n";
          return 2;
        }
        ranker = *parsed;
      } else if (file.empty() && !args[i].empty() && args[i][0] != '-') {
        file = args[i];
      } else {
        err << "recall-eval: unexpected argument '" << args[i] << "'\n";
        return 2;
      }
    }
    if (file.empty()) {
      err << "recall-eval: missing FILE\nusage: kioku recall-eval FILE [--ranker recall|bm25] "
             "[--min-hit1 X] [--min-hit5 X] [--verbose] [--json]\n";
      return 2;
    }
    std::ifstream f(file);
    if (!f) {
      err << "recall-eval: cannot read '" << file << "'\n";
      return 2;
    }
    std::ostringstream whole;
    whole << f.rdbuf();
    const std::string text = whole.str();
    std::optional<EvalVectors> vectors;
    if (with_vectors) {
      if (embedder == nullptr) {
        err << "recall-eval: --vectors needs providers.embedding {url, model} in the config\n";
        return 2;
      }
      vectors.emplace(*embedder, settings.vectors.min_score, static_cast<std::size_t>(settings.recall.candidates_per_list));
    }
    EvalVectors* v = vectors ? &*vectors : nullptr;
    EvalReport report;
    try {
      std::istringstream in(text);
      report = IsConversationSet(text) ? RunConversationSet(in, settings, ranker, v)
                                       : RunGoldenSet(in, settings, ranker, v);
    } catch (const std::exception& e) {
      err << "recall-eval: " << file << ": " << e.what() << "\n";
      return 2;
    }
    if (json) {
      Json misses = Json::array();
      for (const EvalCaseResult& r : report.results) {
        if (r.first_relevant_rank != 1) {
          Json m = {{"line", r.line}, {"query", r.query},
                    {"first_relevant_rank", r.first_relevant_rank}, {"top", r.top}};
          if (!r.type.empty()) m["type"] = r.type;
          misses.push_back(std::move(m));
        }
      }
      out << sdk::DumpJson(Json{{"memories", report.memories},
                                {"cases", report.cases},
                                {"hit_at_1", report.hit_at_1},
                                {"hit_at_5", report.hit_at_5},
                                {"mrr", report.mrr},
                                {"recall_at_10", report.recall_at_10},
                                {"absent_violations", report.absent_violations},
                                {"not_first", misses}},
                           2)
          << "\n";
    } else {
      out << FormatReport(report) << "\n";
      if (const std::string by = ByType(report); !by.empty()) out << by << "\n";
      if (verbose) {
        for (const EvalCaseResult& r : report.results) {
          if (r.first_relevant_rank == 1 && !r.absent_violated) continue;
          out << "  line " << r.line << " rank " << r.first_relevant_rank
              << (r.absent_violated ? " ABSENT-VIOLATED" : "") << "  \"" << r.query << "\"  top:";
          for (const std::string& k : r.top) out << " " << k;
          out << "\n";
        }
      }
    }
    int rc = 0;
    if (min_hit1 >= 0 && report.hit_at_1 < min_hit1) {
      err << "recall-eval: hit@1 " << Fixed(report.hit_at_1) << " is below " << Fixed(min_hit1)
          << "\n";
      rc = 1;
    }
    if (min_hit5 >= 0 && report.hit_at_5 < min_hit5) {
      err << "recall-eval: hit@5 " << Fixed(report.hit_at_5) << " is below " << Fixed(min_hit5)
          << "\n";
      rc = 1;
    }
    return rc;
  };
  return cmd;
}

}  // namespace kioku::semantic

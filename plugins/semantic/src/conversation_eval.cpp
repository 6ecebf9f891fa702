#include "conversation_eval.hpp"

#include <istream>
#include <map>
#include <set>
#include <stdexcept>

#include "eval_support.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "memory_store.hpp"
#include "normalize.hpp"
#include "schema.hpp"
#include "tools.hpp"

namespace kioku::semantic {
namespace {

constexpr std::int64_t kEvalNow = 1'780'272'000'000;  // 2026-06-01T00:00:00Z
constexpr std::int64_t kMsPerMinute = 60'000;

std::runtime_error LineError(int line, const std::string& what) {
  return std::runtime_error("conversation set line " + std::to_string(line) + ": " + what);
}

std::string StringField(const Json& j, const char* key, int line) {
  if (!j.contains(key) || !j.at(key).is_string() || j.at(key).get<std::string>().empty()) {
    throw LineError(line, std::string("needs a non-empty string \"") + key + "\"");
  }
  return j.at(key).get<std::string>();
}

struct Question {
  int line = 0;
  std::string query;
  std::string conversation;
  std::string type;
  std::vector<std::string> evidence;
};

}  // namespace

bool IsConversationSet(const std::string& text) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    const std::string_view t = Trim(std::string_view(text).substr(pos, end - pos));
    pos = end + 1;
    if (t.empty() || t.front() == '#' || t.substr(0, 2) == "//") continue;
    const Json j = Json::parse(t, nullptr, false);
    if (j.is_object() && j.contains("turn")) return true;
  }
  return false;
}

EvalReport RunConversationSet(std::istream& in, const Settings& settings_in, EvalRanker ranker,
                              EvalVectors* vectors) {
  Settings settings = settings_in;
  settings.recall.track_recalls = false;
  SQLite::Database db = sdk::OpenDatabase(":memory:");
  ApplyMigrations(db);
  sdk::ManualClock clock(kEvalNow);
  sdk::StatementCache statements;  // after db: its statements must be finalized first
  Env env{db, clock, settings, statements};

  std::map<std::string, std::string> memory_of_turn;  // turn id → memory id
  std::map<std::string, std::string> turn_of_memory;
  std::vector<Question> questions;
  std::string raw;
  int line_no = 0;
  int turns = 0;
  while (std::getline(in, raw)) {
    ++line_no;
    const std::string_view t = Trim(raw);
    if (t.empty() || t.front() == '#' || t.substr(0, 2) == "//") continue;
    const Json j = Json::parse(t, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw LineError(line_no, "not a JSON object");
    if (j.contains("turn")) {
      const Json& turn = j.at("turn");
      if (!turn.is_object()) throw LineError(line_no, "turn must be an object");
      const std::string conversation = StringField(turn, "conversation", line_no);
      const std::string id = StringField(turn, "id", line_no);
      const std::string date = StringField(turn, "date", line_no);
      const std::string speaker = StringField(turn, "speaker", line_no);
      const std::string text = StringField(turn, "text", line_no);
      const auto at = sdk::ParseRfc3339(date.size() == 10 ? date + "T00:00:00Z" : date);
      if (!at) throw LineError(line_no, "date '" + date + "' is not an RFC 3339 date");
      const std::int64_t captured = *at + static_cast<std::int64_t>(turns) * kMsPerMinute;
      if (captured >= kEvalNow) throw LineError(line_no, "turn dated after 2026-06-01");
      if (memory_of_turn.count(id)) throw LineError(line_no, "duplicate turn id '" + id + "'");
      clock.Set(captured);
      Json args = {{"text", speaker + ": " + text}, {"kind", turn.value("kind", "event")}};
      MemoryDraft draft;
      try {
        draft = EvalDraft(args, conversation, settings, clock.NowMs(), false);
      } catch (const std::exception& e) {
        throw LineError(line_no, e.what());
      }
      WithMemoryWriter(env, [&](MemoryWriter& writer) {
        // One episode per conversation session, as an agent's session would write them.
        const std::string session = conversation + ":s" + std::to_string(turn.value("session", 0));
        const WriteResult r = writer.Remember(draft, Author{"eval", session});
        memory_of_turn[id] = r.id;
        turn_of_memory[r.id] = id;
      });
      ++turns;
    } else if (j.contains("query")) {
      Question q;
      q.line = line_no;
      q.query = StringField(j, "query", line_no);
      q.conversation = StringField(j, "conversation", line_no);
      q.type = j.value("type", "");
      if (j.contains("evidence") && j.at("evidence").is_array()) {
        for (const Json& e : j.at("evidence")) {
          if (e.is_string()) q.evidence.push_back(e.get<std::string>());
        }
      }
      if (q.evidence.empty()) throw LineError(line_no, "a query needs evidence (turn ids)");
      questions.push_back(std::move(q));
    } else if (!j.contains("conversation")) {
      throw LineError(line_no, "expected a \"turn\", \"query\" or \"conversation\" line");
    }
  }
  clock.Set(kEvalNow);

  EvalReport report;
  report.memories = turns;
  for (const Question& q : questions) {
    std::set<std::string> relevant;
    for (const std::string& e : q.evidence) {
      const auto it = memory_of_turn.find(e);
      if (it == memory_of_turn.end()) throw LineError(q.line, "evidence names unknown turn '" + e + "'");
      relevant.insert(it->second);
    }
    RecallRequest request;
    try {
      request = ParseRecallArgs(Json{{"query", q.query}, {"limit", 10}}, settings);
    } catch (const std::exception& e) {
      throw LineError(q.line, e.what());
    }
    std::vector<Memory> ranked;
    try {
      ranked = EvalRank(env, request, Viewer{q.conversation, ""}, ranker, vectors);
    } catch (const std::exception& e) {
      throw LineError(q.line, e.what());
    }
    EvalCaseResult res;
    res.line = q.line;
    res.query = q.query;
    res.type = q.type;
    res.relevant = static_cast<int>(relevant.size());
    for (std::size_t i = 0; i < ranked.size() && i < 10; ++i) {
      if (relevant.count(ranked[i].id)) {
        ++res.relevant_in_top10;
        if (res.first_relevant_rank == 0) res.first_relevant_rank = static_cast<int>(i + 1);
      }
      if (i < 5) res.top.push_back(turn_of_memory[ranked[i].id]);
    }
    report.results.push_back(std::move(res));
  }
  ComputeMetrics(report);
  return report;
}

}  // namespace kioku::semantic

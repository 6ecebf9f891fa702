#include "test_util.hpp"

#include <SQLiteCpp/Database.h>

namespace kioku::episodic::testing {
namespace {

using nlohmann::json;

class RecallTest : public EpisodicTest {
 protected:
  // A session with one point-in-time summary at `at`.
  void Add(const std::string& id, const char* at, const std::string& text,
           const std::string& project = "") {
    json start = {{"session_id", id}};
    if (!project.empty()) start["project"] = project;
    CallOk("session_start", start);
    CallOk("session_summary_add",
           {{"session_id", id}, {"summary", text}, {"started_at", at}, {"ended_at", at}});
  }
  std::vector<std::string> Sessions(const json& args) {
    auto r = CallOk("session_recall", args);
    std::vector<std::string> out;
    for (auto& s : r.structured["summaries"]) out.push_back(s["session_id"]);
    return out;
  }
};

TEST_F(RecallTest, QueryRanksByTextAndExcludesNonMatches) {
  Add("s-pag", "2026-01-01T10:00:00Z", "Added cursor pagination to GET /plots; limit param.");
  Add("s-auth", "2026-01-02T10:00:00Z", "Fixed login race in session refresh.");
  Add("s-both", "2026-01-03T10:00:00Z", "Pagination docs touched briefly; mostly CSS work.");
  auto got = Sessions({{"query", "cursor pagination"}});
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "s-pag");  // matches both words
  EXPECT_EQ(got[1], "s-both");
}

TEST_F(RecallTest, EmptyQueryFallsBackToRecency) {
  Add("old", "2026-01-01T10:00:00Z", "a");
  Add("new", "2026-01-03T10:00:00Z", "b");
  Add("mid", "2026-01-02T10:00:00Z", "c");
  EXPECT_EQ(Sessions(json::object()), (std::vector<std::string>{"new", "mid", "old"}));
  // A query with nothing to search for (punctuation, FTS operators) is refused with the
  // same sdk::UnsearchableQuery rule as memory_recall, not silently turned into recency.
  auto punct = Call("session_recall", {{"query", "\"*-()"}});
  auto ops = Call("session_recall", {{"query", "AND OR NOT"}});
  ASSERT_TRUE(punct.is_error);
  ASSERT_TRUE(ops.is_error);
  EXPECT_EQ(punct.text, ops.text);
  EXPECT_NE(ops.text.find("no searchable words"), std::string::npos) << ops.text;
  EXPECT_EQ(CallOk("session_recall", {{"query", "   "}}).structured["mode"], "recency");
}

TEST_F(RecallTest, EpochUntilIsAFilterNotUnset) {
  Add("t0", "2026-01-01T00:00:00Z", "entry zero");
  EXPECT_TRUE(Sessions({{"until", "1970-01-01T00:00:00Z"}}).empty());
  EXPECT_EQ(Sessions({{"since", "1970-01-01T00:00:00Z"}}).size(), 1u);
}

TEST_F(RecallTest, SinceIsInclusiveUntilIsExclusive) {
  Add("t0", "2026-01-01T00:00:00Z", "entry zero");
  Add("t1", "2026-01-02T00:00:00Z", "entry one");
  Add("t2", "2026-01-03T00:00:00Z", "entry two");
  EXPECT_EQ(Sessions({{"since", "2026-01-02T00:00:00Z"}}),
            (std::vector<std::string>{"t2", "t1"}));
  EXPECT_EQ(Sessions({{"until", "2026-01-02T00:00:00Z"}}), (std::vector<std::string>{"t0"}));
  EXPECT_EQ(Sessions({{"since", "2026-01-02"}, {"until", "2026-01-03"}}),
            (std::vector<std::string>{"t1"}));
  EXPECT_EQ(Sessions({{"query", "entry"}, {"since", "2026-01-02T00:00:00Z"},
                      {"until", "2026-01-03T00:00:00Z"}}),
            (std::vector<std::string>{"t1"}));
}

TEST_F(RecallTest, SpanOverlappingTheWindowMatches) {
  CallOk("session_start", {{"session_id", "long"}});
  CallOk("session_summary_add", {{"session_id", "long"},
                                 {"summary", "spans two days"},
                                 {"started_at", "2026-01-01T20:00:00Z"},
                                 {"ended_at", "2026-01-02T04:00:00Z"}});
  EXPECT_EQ(Sessions({{"since", "2026-01-02"}}), (std::vector<std::string>{"long"}));
  EXPECT_EQ(Sessions({{"until", "2026-01-02"}}), (std::vector<std::string>{"long"}));
  EXPECT_TRUE(Sessions({{"since", "2026-01-02T04:00:00.001Z"}}).empty());
}

// A word in more summaries than recall counts exactly gets an estimated document frequency
// (recall.cpp PhraseCounts); the rare word still decides the text rank. The session with
// it is second newest, so it leads the fusion only if its text rank beats the newest
// session, which repeats the common word in a shorter summary.
TEST_F(RecallTest, RareWordOutranksACommonOneWithAnEstimatedFrequency) {
  for (int i = 0; i < 400; ++i) Add("o-" + std::to_string(i), "2026-01-10T00:00:00Z", "unrelated notes");
  const std::int64_t t0 = Ms("2026-02-01T00:00:00Z");
  const auto at = [&](int hours) { return sdk::FormatRfc3339(t0 + hours * 3'600'000LL); };
  for (int i = 0; i < 300; ++i) Add("c-" + std::to_string(i), at(i).c_str(), "deploy to staging, tests green");
  Add("rare", at(300).c_str(), "deploy behind the canary flag");
  Add("repeats", at(301).c_str(), "deploy deploy notes");
  const auto got = Sessions({{"query", "deploy canary"}});
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0], "rare");
  EXPECT_EQ(got[1], "repeats");
}

// A window that ends before most summaries start is read through its rowid range
// (recall.cpp WindowRowids): a summary that starts before `since` and ends inside the
// window, recorded last, is still found, and so are only the window's matches.
TEST_F(RecallTest, WindowBeforeMostSummariesFindsExactlyItsMatches) {
  Add("before", "2026-01-01T00:00:00Z", "cursor pagination for plots");
  Add("inside", "2026-01-05T00:00:00Z", "cursor pagination for plots");
  Add("inside-weak", "2026-01-06T00:00:00Z", "pagination only");
  const std::int64_t t0 = Ms("2026-02-01T00:00:00Z");
  for (int i = 0; i < 520; ++i) {
    Add("after-" + std::to_string(i), sdk::FormatRfc3339(t0 + i * 3'600'000LL).c_str(), "cursor pagination again");
  }
  CallOk("session_start", {{"session_id", "long"}});
  CallOk("session_summary_add", {{"session_id", "long"},
                                 {"summary", "cursor work that began early"},
                                 {"started_at", "2025-12-20T00:00:00Z"},
                                 {"ended_at", "2026-01-04T00:00:00Z"}});
  EXPECT_EQ(Sessions({{"query", "cursor pagination"}, {"since", "2026-01-03"}, {"until", "2026-01-10"}}),
            (std::vector<std::string>{"inside", "inside-weak", "long"}));
  EXPECT_EQ(Sessions({{"query", "cursor"}, {"until", "2026-01-02"}}), (std::vector<std::string>{"before", "long"}));
  EXPECT_TRUE(Sessions({{"query", "cursor"}, {"since", "2026-01-07"}, {"until", "2026-01-10"}}).empty());
}

TEST_F(RecallTest, BadTimesAreClearErrors) {
  auto r = Call("session_recall", {{"since", "last tuesday"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("`since` is not an RFC 3339 time"), std::string::npos) << r.text;
  r = Call("session_recall", {{"since", "2026-01-03"}, {"until", "2026-01-02"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("must be before `until`"), std::string::npos) << r.text;
  r = Call("session_timeline", {{"since", "2026-01-03"}, {"until", "2026-01-03"}});
  EXPECT_TRUE(r.is_error);
}

TEST_F(RecallTest, QueryWithFtsOperatorsIsSafe) {
  Add("cpp", "2026-01-01T00:00:00Z", "C++ build fixed with -Wpedantic AND pre-commit hook");
  auto r = CallOk("session_recall", {{"query", "C++ \"AND -foo pre-commit*"}});
  EXPECT_EQ(r.structured["summaries"][0]["session_id"], "cpp");
}

TEST_F(RecallTest, TrigramFindsSubstringsOfIdentifiers) {
  Add("hook", "2026-01-01T00:00:00Z", "Rewrote useBookingOverlapCheck in the web app.");
  EXPECT_EQ(Sessions({{"query", "BookingOverlap"}}), (std::vector<std::string>{"hook"}));
}

TEST_F(RecallTest, TokenBudgetCutsAndCountsTheRest) {
  for (int i = 0; i < 10; ++i) {
    Add("s" + std::to_string(i), "2026-01-01T00:00:00Z",
        "summary number " + std::to_string(i) + " " + std::string(400, 'z'));
  }
  auto r = CallOk("session_recall", {{"token_budget", 300}});
  const auto shown = r.structured["summaries"].size();
  EXPECT_GE(shown, 1u);
  EXPECT_LT(shown, 10u);
  EXPECT_EQ(r.structured["omitted"].get<std::size_t>(), 10 - shown);
  EXPECT_NE(r.text.find("… " + std::to_string(10 - shown) + " more"), std::string::npos) << r.text;
  EXPECT_LE(r.text.size(), 300u * 4 + 200u);
  // limit also counts as "more".
  auto l = CallOk("session_recall", {{"limit", 2}, {"token_budget", 50000}});
  EXPECT_EQ(l.structured["summaries"].size(), 2u);
  EXPECT_EQ(l.structured["omitted"], 8);
}

TEST_F(RecallTest, OutputLineFormat) {
  CallOk("session_start", {{"session_id", "2026-05-19-login"}, {"model", "claude-opus-4-7"}});
  CallOk("session_summary_add", {{"session_id", "2026-05-19-login"},
                                 {"summary", "Fixed race in session refresh"},
                                 {"message_count", 42},
                                 {"ended_at", "2026-05-19T14:32:00Z"},
                                 {"started_at", "2026-05-19T12:00:00Z"}});
  auto r = CallOk("session_recall", {{"query", "race"}});
  EXPECT_EQ(r.text,
            "[2026-05-19T14:32:00.000Z] session=2026-05-19-login model=claude-opus-4-7 msgs=42\n"
            "  Fixed race in session refresh");
}

TEST_F(RecallTest, ScopedToTheCallersProjectUnlessAsked) {
  Add("here", "2026-01-01T00:00:00Z", "deploy script");
  Add("there", "2026-01-02T00:00:00Z", "deploy script", "/other/project");
  EXPECT_EQ(Sessions({{"query", "deploy"}}), (std::vector<std::string>{"here"}));
  EXPECT_EQ(Sessions({{"query", "deploy"}, {"project", "*"}}).size(), 2u);
  EXPECT_EQ(Sessions({{"query", "deploy"}, {"project", "/other/project"}}),
            (std::vector<std::string>{"there"}));
}

TEST_F(RecallTest, SessionWithOnlyLogEntriesIsFound) {
  CallOk("session_log", {{"entry", "root cause is a race in token refresh"}, {"type", "issue"}});
  auto r = CallOk("session_recall", {{"query", "token refresh"}});
  ASSERT_EQ(r.structured["summaries"].size(), 1u);
  EXPECT_EQ(r.structured["summaries"][0]["kind"], "log");
  EXPECT_NE(r.text.find("issue: root cause"), std::string::npos) << r.text;
}

// Without a query `matched` comes from the sessions' trigger-kept counts (schema v5): it
// must equal a direct count through inserts, a fold, a session moved between summaries'
// owners, log entries and deletions.
TEST_F(RecallTest, RecencyCountsEveryItemInScopeFromTheKeptCounts) {
  const auto truth = [&] {
    SQLite::Statement c(rt_.Db(),
                        "SELECT (SELECT count(*) FROM episodic_summaries s JOIN episodic_sessions "
                        "se ON se.id = s.session_id WHERE s.status = 'active' AND se.project = "
                        "(SELECT project FROM episodic_sessions WHERE id = 'lonely')) + (SELECT count(*) "
                        "FROM episodic_sessions se WHERE se.project = (SELECT project FROM "
                        "episodic_sessions WHERE id = 'a') AND NOT EXISTS (SELECT 1 FROM "
                        "episodic_summaries x WHERE x.session_id = se.id AND x.status = 'active') "
                        "AND EXISTS (SELECT 1 FROM episodic_log y WHERE y.session_id = se.id))");
    c.executeStep();
    return c.getColumn(0).getInt64();
  };
  const auto matched = [&] {
    return CallOk("session_recall", json::object()).structured["matched"].get<std::int64_t>();
  };
  Add("a", "2026-01-01T00:00:00Z", "first");
  CallOk("session_summary_add", {{"session_id", "a"}, {"summary", "second"},
                                 {"started_at", "2026-01-02T00:00:00Z"},
                                 {"ended_at", "2026-01-02T00:00:00Z"}});
  Add("b", "2026-01-03T00:00:00Z", "third");
  Add("elsewhere", "2026-01-03T00:00:00Z", "not counted", "/other/project");
  CallOk("session_start", {{"session_id", "lonely"}});
  CallOk("session_log", {{"session_id", "lonely"}, {"entry", "only a log"}, {"type", "note"}});
  CallOk("session_log", {{"session_id", "b"}, {"entry", "b has a summary"}, {"type", "note"}});
  EXPECT_EQ(truth(), 4);
  EXPECT_EQ(matched(), 4);
  rt_.Db().exec("UPDATE episodic_summaries SET status = 'folded' WHERE session_id = 'b'");
  EXPECT_EQ(truth(), 4);  // b's summary is gone from the count, b itself is now log-only
  EXPECT_EQ(matched(), 4);
  rt_.Db().exec("UPDATE episodic_summaries SET session_id = 'lonely' WHERE summary = 'second'");
  EXPECT_EQ(truth(), 3);  // lonely has a summary now, so it is no longer log-only
  EXPECT_EQ(matched(), 3);
  rt_.Db().exec("DELETE FROM episodic_log WHERE session_id = 'b'");
  rt_.Db().exec("DELETE FROM episodic_sessions WHERE id = 'a'");
  EXPECT_EQ(truth(), 1);
  EXPECT_EQ(matched(), 1);
}

TEST_F(RecallTest, UnknownSessionFilterIsAnError) {
  auto r = Call("session_recall", {{"session_id", "zzzz-none"}});
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("unknown session id 'zzzz-none'"), std::string::npos);
}

TEST_F(RecallTest, TimelineDigestsTheWindow) {
  SetNow("2026-01-05T12:00:00Z");
  CallOk("session_start", {{"session_id", "w1"}, {"title", "login"}});
  CallOk("session_log", {{"session_id", "w1"}, {"entry", "use JWT"}, {"type", "decision"}});
  CallOk("session_log", {{"session_id", "w1"}, {"entry", "CI flaky"}, {"type", "issue"}});
  CallOk("session_log",
         {{"session_id", "w1"}, {"entry", "TODO: regression test for auth/session.ts"}});
  CallOk("session_end", {{"session_id", "w1"},
                         {"summary", "We decided to drop cookies. Next step: docs in README.md"}});
  SetNow("2026-01-09T12:00:00Z");
  CallOk("session_start", {{"session_id", "later"}});
  CallOk("session_log", {{"session_id", "later"}, {"entry", "not in window"}, {"type", "decision"}});
  auto r = CallOk("session_timeline", {{"since", "2026-01-05"}, {"until", "2026-01-06"}});
  const auto& d = r.structured;
  ASSERT_EQ(d["sessions"].size(), 1u);
  EXPECT_EQ(d["sessions"][0]["session_id"], "w1");
  ASSERT_EQ(d["decisions"].size(), 2u);
  EXPECT_EQ(d["issues"].size(), 1u);
  EXPECT_EQ(d["open_items"].size(), 2u);
  std::set<std::string> files;
  for (auto& f : d["files"]) files.insert(f["path"]);
  EXPECT_EQ(files, (std::set<std::string>{"auth/session.ts", "README.md"}));
  EXPECT_NE(r.text.find("Decisions:"), std::string::npos);
  EXPECT_EQ(r.text.find("not in window"), std::string::npos);
}

}  // namespace
}  // namespace kioku::episodic::testing

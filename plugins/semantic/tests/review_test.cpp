// Review round trips (promote, reject, undo, audit rows) and memory_used.
#include <sstream>

#include "semantic_test_util.hpp"
#include "kioku/sdk/sql.hpp"

namespace kioku::semantic {
namespace {

using testing::SemanticTest;
using Json = nlohmann::json;

class ReviewTest : public SemanticTest {
 protected:
  std::string Status(const std::string& id) {
    return Ok("memory_get", {{"id", id}})["memory"]["status"].get<std::string>();
  }
  std::string LastAction(const std::string& id) {
    SQLite::Statement q(rt_->Db(),
                        "SELECT action FROM semantic_memory_history WHERE memory_id = ? ORDER BY at DESC, seq DESC LIMIT 1");
    sdk::Bind(q, id);
    return q.executeStep() ? q.getColumn(0).getString() : "";
  }
  // Open pairs with a superseded side, plus contested memories that no open pair with a
  // live, non-pending other side contests (and no pinned memory of their subject): states
  // that only housekeeping used to clear.
  int BrokenContests() {
    return static_cast<int>(rt_->Db().execAndGet(
        "SELECT (SELECT count(*) FROM semantic_rivals r JOIN semantic_memories a ON a.seq = r.a_seq "
        "JOIN semantic_memories b ON b.seq = r.b_seq WHERE r.resolved_at IS NULL AND "
        "(a.status = 'superseded' OR b.status = 'superseded')) + "
        "(SELECT count(*) FROM semantic_memories m WHERE m.status = 'contested' AND m.subject = '' AND NOT EXISTS ("
        "SELECT 1 FROM semantic_rivals r JOIN semantic_memories o ON o.seq = CASE WHEN r.a_seq = m.seq "
        "THEN r.b_seq ELSE r.a_seq END WHERE r.resolved_at IS NULL AND (r.a_seq = m.seq OR r.b_seq = m.seq) "
        "AND o.status NOT IN ('pending', 'superseded')))").getInt());
  }
  // Two subject-less rivals: the older becomes contested with the newer.
  std::pair<std::string, std::string> Rivals() {
    const std::string a = Remember("Tests run with jest", "fact");
    const Json r = Ok("memory_remember", {{"text", "We moved the test suite to vitest"}, {"kind", "fact"}});
    return {a, r["results"][0]["id"].get<std::string>()};
  }
};

TEST_F(ReviewTest, ListsBucketsWithCounts) {
  Ok("memory_suggest", {{"text", "Prefer small pull requests"}, {"kind", "preference"}});
  Rivals();
  const sdk::ToolResult r = Call("memory_review", Json::object());
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["counts"], Json({{"pending", 1}, {"contested", 2}, {"contradicted", 0}, {"stale", 0}}));
  EXPECT_EQ(r.structured["items"].size(), 3u);
  EXPECT_NE(r.text.find("review: 1 pending · 2 contested · 0 contradicted · 0 stale"), std::string::npos) << r.text;
  EXPECT_EQ(Ok("memory_review", {{"bucket", "pending"}})["items"].size(), 1u);
}

TEST_F(ReviewTest, PromotePendingConfirmsIt) {
  const Json s = Ok("memory_suggest", {{"text", "Prefer small pull requests"}, {"kind", "preference"}});
  const std::string id = s["results"][0]["id"];
  const Json r = Ok("memory_review", {{"action", "promote"}, {"id", id.substr(0, 8)}});
  EXPECT_EQ(r["result"]["status"], "active");
  EXPECT_EQ(Status(id), "active");
  EXPECT_EQ(LastAction(id), "confirmed");
  EXPECT_EQ(r["counts"]["pending"], 0);
}

TEST_F(ReviewTest, PromoteContestedSupersedesItsRival) {
  const auto [jest, vitest] = Rivals();
  const Json r = Ok("memory_review", {{"action", "promote"}, {"id", vitest}});
  EXPECT_EQ(r["result"]["superseded"], Json::array({jest}));
  EXPECT_EQ(Status(vitest), "active");
  EXPECT_EQ(Status(jest), "superseded");
  EXPECT_EQ(Ok("memory_get", {{"id", jest}})["memory"]["superseded_by"], vitest);
  EXPECT_EQ(r["counts"]["contested"], 0);
}

TEST_F(ReviewTest, PromoteContestedBySubjectSupersedesThePinnedRival) {
  const std::string pnpm = Remember("We use pnpm", "decision", {{"subject", "package-manager"}, {"value", "pnpm"}});
  Ok("memory_pin", {{"id", pnpm}});
  const Json w = Ok("memory_remember", {{"text", "We use bun"}, {"kind", "decision"}, {"subject", "package-manager"}, {"value", "bun"}});
  const std::string bun = w["results"][0]["id"];
  ASSERT_EQ(Status(bun), "contested");
  const Json r = Ok("memory_review", {{"action", "promote"}, {"id", bun}});
  EXPECT_EQ(Status(pnpm), "superseded");
  EXPECT_EQ(Status(bun), "active");
}

TEST_F(ReviewTest, RejectReinstatesTheSurvivorAndUndoRestoresTheContest) {
  const auto [jest, vitest] = Rivals();
  const Json r = Ok("memory_review", {{"action", "reject"}, {"id", vitest}});
  EXPECT_EQ(r["result"]["status"], "superseded");
  EXPECT_EQ(r["result"]["reinstated"], Json::array({jest}));
  EXPECT_EQ(Status(jest), "active");
  EXPECT_EQ(LastAction(jest), "reinstated");
  EXPECT_EQ(LastAction(vitest), "rejected");

  const Json u = Ok("memory_review", {{"action", "undo"}, {"id", vitest}});
  EXPECT_EQ(u["result"]["status"], "contested");
  EXPECT_EQ(Status(vitest), "contested");
  EXPECT_EQ(Status(jest), "contested");
  EXPECT_EQ(LastAction(vitest), "undone");
  // Undo again: the last change is no longer a rejection.
  EXPECT_NE(Err("memory_review", {{"action", "undo"}, {"id", vitest}}).find("not rejected"), std::string::npos);
}

// memory_forget and memory_edit are in the core tool profile, memory_review is not: an agent
// settles a contest with them, and they leave no rival contested behind.
TEST_F(ReviewTest, ForgettingARivalReinstatesTheSurvivorAtOnce) {
  const auto [jest, vitest] = Rivals();
  const sdk::ToolResult f = Call("memory_forget", {{"id", vitest}});
  ASSERT_FALSE(f.is_error) << f.text;
  EXPECT_EQ(f.structured["reinstated"], Json::array({jest}));
  EXPECT_NE(f.text.find("no longer contested: " + jest), std::string::npos) << f.text;
  EXPECT_EQ(Status(jest), "active");
  EXPECT_EQ(LastAction(jest), "reinstated");
  EXPECT_EQ(Ok("memory_maintain", Json::object())["reinstated"], 0);
  EXPECT_EQ(Ok("memory_review", Json::object())["counts"]["contested"], 0);
}

TEST_F(ReviewTest, PurgingARivalReinstatesTheSurvivor) {
  // The purge deletes the pair with the row: the survivor stayed contested for good before.
  const auto [jest, vitest] = Rivals();
  EXPECT_EQ(Ok("memory_forget", {{"id", vitest}, {"purge", true}})["reinstated"], Json::array({jest}));
  EXPECT_EQ(Status(jest), "active");
  EXPECT_EQ(Ok("memory_review", Json::object())["counts"]["contested"], 0);
}

TEST_F(ReviewTest, ForgettingAMemoryWithoutRivalsReinstatesNothing) {
  const std::string id = Remember("The logger writes JSON lines to stderr");
  const Json f = Ok("memory_forget", {{"id", id}});
  EXPECT_EQ(f["action"], "forgotten");
  EXPECT_FALSE(f.contains("reinstated"));
}

// Break-it findings: no memory is left contested without a live rival.
TEST_F(ReviewTest, APendingSuggestionDoesNotKeepAMemoryContested) {
  const std::string friday = Remember("Deploys go out on Fridays");
  Ok("memory_suggest", {{"text", "Deploys go out on Mondays"}, {"kind", "fact"}});
  ASSERT_EQ(Status(friday), "active");  // a suggestion's pair waits in review
  const std::string tuesday = Ok("memory_remember", {{"text", "Deploys go out on Tuesdays"}, {"kind", "fact"}})["results"][0]["id"];
  ASSERT_EQ(Status(friday), "contested");
  EXPECT_EQ(Ok("memory_forget", {{"id", tuesday}})["reinstated"], Json::array({friday}));
  EXPECT_EQ(Status(friday), "active");
}

TEST_F(ReviewTest, UndoingARejectionWhoseRivalIsGoneRestoresNoContest) {
  const auto [jest, vitest] = Rivals();
  Ok("memory_review", {{"action", "reject"}, {"id", vitest}});
  ASSERT_EQ(Status(jest), "active");
  Ok("memory_forget", {{"id", jest}});
  const Json r = Ok("memory_review", {{"action", "undo"}, {"id", vitest}});
  EXPECT_EQ(r["result"]["status"], "active");
  EXPECT_EQ(Status(vitest), "active");
  EXPECT_EQ(r["counts"]["contested"], 0);
}

TEST_F(ReviewTest, SupersedingOneSideBySubjectFreesTheOtherAtOnce) {
  const std::string friday = Remember("Deploys go out on Fridays");
  const std::string monday = Ok("memory_remember", {{"text", "Deploys go out on Mondays"}, {"kind", "fact"}})["results"][0]["id"];
  ASSERT_EQ(Status(friday), "contested");
  Ok("memory_edit", {{"id", monday}, {"subject", "deploy-day"}, {"value", "monday"}});
  Ok("memory_edit", {{"id", friday}, {"subject", "deploy-day"}, {"value", "friday"}});
  EXPECT_EQ(Status(monday), "superseded");
  EXPECT_EQ(Status(friday), "active");
  EXPECT_EQ(Ok("memory_review", Json::object())["counts"]["contested"], 0);
  EXPECT_EQ(BrokenContests(), 0);
  // The same through memory_remember: a new value of the subject supersedes one side of a
  // pair (the other has no subject, so the two were paired by topic).
  const std::string keyed = Remember("Backups keep 7 days of history", "fact", {{"subject", "backup-retention"}, {"value", "7"}});
  const std::string plain = Ok("memory_remember", {{"text", "Backups keep 30 days of history"}, {"kind", "fact"}})["results"][0]["id"];
  ASSERT_EQ(Status(keyed), "contested");
  Ok("memory_remember", {{"text", "Backups are retained for two weeks"}, {"kind", "fact"},
                         {"subject", "backup-retention"}, {"value", "14"}});
  EXPECT_EQ(Status(keyed), "superseded");
  EXPECT_EQ(Status(plain), "active");
  EXPECT_EQ(BrokenContests(), 0);
}

TEST_F(ReviewTest, AConfirmationThatSupersedesAConflictDoesNotListItAsOne) {
  const auto [jest, vitest] = Rivals();
  const std::string npm = Remember("Package manager is npm", "decision", {{"subject", "package-manager"}, {"value", "npm"}});
  Ok("memory_pin", {{"id", npm}});
  const Json r = Ok("memory_edit", {{"id", vitest}, {"subject", "package-manager"}, {"value", "pnpm"}, {"status", "active"}});
  for (const Json& id : r["conflicts"]) {
    EXPECT_EQ(std::find(r["replaced"].begin(), r["replaced"].end(), id), r["replaced"].end()) << r.dump();
  }
  EXPECT_EQ(r["memory"]["status"], "active");
}

TEST_F(ReviewTest, EditStatusActiveConfirmsAContestedMemoryAsPromoteDoes) {
  const auto [jest, vitest] = Rivals();
  const sdk::ToolResult r = Call("memory_edit", {{"id", vitest}, {"status", "active"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["replaced"], Json::array({jest}));
  EXPECT_EQ(r.structured["memory"]["status"], "active");
  EXPECT_NE(r.text.find("superseded 1 rival: " + jest), std::string::npos) << r.text;
  EXPECT_EQ(Status(jest), "superseded");
  EXPECT_EQ(Ok("memory_get", {{"id", jest}})["memory"]["superseded_by"], vitest);
  EXPECT_EQ(LastAction(vitest), "confirmed");
  EXPECT_EQ(Ok("memory_review", Json::object())["counts"]["contested"], 0);
}

TEST_F(ReviewTest, PinningOneSideOfAContestSettlesIt) {
  const auto [jest, vitest] = Rivals();
  const Json r = Ok("memory_pin", {{"id", vitest}});
  EXPECT_EQ(r["replaced"], Json::array({jest}));
  EXPECT_EQ(Status(vitest), "pinned");
  EXPECT_EQ(Status(jest), "superseded");
  EXPECT_EQ(BrokenContests(), 0);
  EXPECT_EQ(Ok("memory_review", Json::object())["counts"]["contested"], 0);
}

// Second break-it round.
TEST_F(ReviewTest, AnUnpinnedMemoryIsNotPinnedAgainWhenItsContestCloses) {
  const std::string friday = Remember("Deploys go out on Fridays");
  Ok("memory_pin", {{"id", friday}});
  Ok("memory_remember", {{"text", "Deploys go out on Mondays"}, {"kind", "fact"}});
  Ok("memory_pin", {{"id", friday}, {"pinned", false}});
  const std::string tuesday = Ok("memory_remember", {{"text", "Deploys go out on Tuesdays"}, {"kind", "fact"}})["results"][0]["id"];
  ASSERT_EQ(Status(friday), "contested");
  Ok("memory_edit", {{"id", friday}, {"status", "active"}});
  EXPECT_EQ(Status(friday), "active");
  EXPECT_EQ(Status(tuesday), "superseded");
  EXPECT_EQ(BrokenContests(), 0);
}

TEST_F(ReviewTest, UndoWithOnlyAPendingSuggestionLeftRestoresNoContest) {
  const std::string friday = Remember("Deploys go out on Fridays");
  Ok("memory_suggest", {{"text", "Deploys go out on Mondays"}, {"kind", "fact"}});
  const std::string tuesday = Ok("memory_remember", {{"text", "Deploys go out on Tuesdays"}, {"kind", "fact"}})["results"][0]["id"];
  Ok("memory_review", {{"action", "reject"}, {"id", friday}});
  Ok("memory_forget", {{"id", tuesday}});
  EXPECT_EQ(Ok("memory_review", {{"action", "undo"}, {"id", friday}})["result"]["status"], "active");
  EXPECT_EQ(Status(friday), "active");
  EXPECT_EQ(BrokenContests(), 0);
}

TEST_F(ReviewTest, ForgettingAPinnedValueFreesTheValuesItHeldContested) {
  const std::string jest = Remember("Tests run with jest", "decision", {{"subject", "test-runner"}, {"value", "jest"}});
  Ok("memory_pin", {{"id", jest}});
  const std::string vitest = Ok("memory_remember", {{"text", "The test runner is vitest"}, {"kind", "decision"},
                                                    {"subject", "test-runner"}, {"value", "vitest"}})["results"][0]["id"];
  ASSERT_EQ(Status(vitest), "contested");
  EXPECT_EQ(Ok("memory_forget", {{"id", jest}})["reinstated"], Json::array({vitest}));
  EXPECT_EQ(Status(vitest), "active");
}

TEST_F(ReviewTest, PurgingAMemoryLeavesNoPointerToIt) {
  const auto [jest, vitest] = Rivals();
  Ok("memory_edit", {{"id", vitest}, {"status", "active"}});
  ASSERT_EQ(Ok("memory_get", {{"id", jest}})["memory"]["superseded_by"], vitest);
  Ok("memory_forget", {{"id", vitest}, {"purge", true}});
  EXPECT_EQ(Ok("memory_get", {{"id", jest}})["memory"].value("superseded_by", ""), "");
  EXPECT_EQ(rt_->Db().execAndGet("SELECT count(*) FROM semantic_memories WHERE superseded_by IS NOT NULL AND "
                                 "superseded_by NOT IN (SELECT id FROM semantic_memory_ids)").getInt(), 0);
}

TEST_F(ReviewTest, ConfirmingThePinnedSideSettlesTheContest) {
  for (const bool by_pin : {false, true}) {
    const std::string a = Remember(by_pin ? "Lint runs on Fridays" : "Releases are cut on Fridays");
    Ok("memory_pin", {{"id", a}});
    const std::string b = Ok("memory_remember", {{"text", by_pin ? "Lint runs on Mondays" : "Releases are cut on Mondays"},
                                                 {"kind", "fact"}})["results"][0]["id"];
    ASSERT_EQ(Status(b), "contested");
    const Json r = by_pin ? Ok("memory_pin", {{"id", a}}) : Ok("memory_edit", {{"id", a}, {"status", "active"}});
    EXPECT_EQ(r["replaced"], Json::array({b})) << r.dump();
    EXPECT_EQ(Status(a), "pinned");
    EXPECT_EQ(Status(b), "superseded");
    EXPECT_EQ(BrokenContests(), 0);
  }
  // A pinned memory without a contest is still not made active by an edit.
  const std::string c = Remember("Docs are built with mkdocs");
  Ok("memory_pin", {{"id", c}});
  EXPECT_NE(Err("memory_edit", {{"id", c}, {"status", "active"}}).find("is pinned"), std::string::npos);
}

TEST_F(ReviewTest, ABatchAnswersTheStatusItsLaterItemsLeft) {
  const Json r = Ok("memory_remember", {{"memories", {{{"text", "Node 18 is the runtime"}, {"kind", "fact"},
                                                       {"subject", "node-version"}, {"value", "18"}},
                                                      {{"text", "Node 20 is the runtime"}, {"kind", "fact"},
                                                       {"subject", "node-version"}, {"value", "20"}}}}});
  EXPECT_EQ(r["results"][0]["status"], "superseded") << r.dump();
  EXPECT_EQ(Status(r["results"][0]["id"]), "superseded");
  EXPECT_EQ(r["results"][1]["status"], "active");
}

// A memory that contradicts an older pending suggestion stays as it is, and the pair waits
// in review: confirming the suggestion supersedes it, rejecting the suggestion leaves it.
TEST_F(ReviewTest, AMemoryThatContradictsAPendingSuggestionIsPairedForReview) {
  for (const bool confirm : {true, false}) {
    // Two topics that share no word, so the rounds do not pair with each other.
    const std::string what = confirm ? "Staging deploys go out on " : "The office closes on ";
    const std::string suggestion = Ok("memory_suggest", {{"text", what + "Mondays"}, {"kind", "fact"}})["results"][0]["id"];
    const sdk::ToolResult w = Call("memory_remember", {{"text", what + "Tuesdays"}, {"kind", "fact"}});
    ASSERT_FALSE(w.is_error) << w.text;
    const std::string tuesday = w.structured["results"][0]["id"];
    EXPECT_EQ(w.structured["results"][0]["status"], "active");
    EXPECT_FALSE(w.structured["results"][0].contains("rivals")) << w.structured.dump();
    EXPECT_NE(w.text.find("contradicts pending suggestion " + suggestion), std::string::npos) << w.text;
    EXPECT_EQ(w.text.find("both contested"), std::string::npos) << w.text;
    EXPECT_EQ(Status(tuesday), "active");
    if (confirm) {
      EXPECT_EQ(Ok("memory_pin", {{"id", suggestion}})["replaced"], Json::array({tuesday}));
      EXPECT_EQ(Status(tuesday), "superseded");
    } else {
      Ok("memory_review", {{"action", "reject"}, {"id", suggestion}});
      EXPECT_EQ(Status(tuesday), "active");
    }
    EXPECT_EQ(BrokenContests(), 0);
  }
}

TEST_F(ReviewTest, EditTextAndStatusTogetherEditsThenConfirms) {
  const auto [jest, vitest] = Rivals();
  const Json r = Ok("memory_edit", {{"id", jest}, {"text", "Tests run with jest 29"}, {"status", "active"}});
  EXPECT_EQ(r["changed"], Json::array({"text", "status"}));
  EXPECT_EQ(r["memory"]["text"], "Tests run with jest 29");
  EXPECT_EQ(r["memory"]["status"], "active");
  EXPECT_EQ(Status(vitest), "superseded");
}

TEST_F(ReviewTest, BadRequestsSayWhatToSend) {
  const std::string active = Remember("The logger writes JSON lines to stderr");
  const std::string before = Snapshot();
  EXPECT_NE(Err("memory_review", {{"action", "promote"}}).find("needs id"), std::string::npos);
  EXPECT_NE(Err("memory_review", {{"action", "reject"}, {"id", active}}).find("only pending or contested"), std::string::npos);
  EXPECT_NE(Err("memory_review", {{"action", "undo"}, {"id", active}}).find("memory_forget"), std::string::npos);
  EXPECT_NE(Err("memory_review", {{"action", "promote"}, {"id", "zzzzzzzz"}}).find("zzzzzzzz"), std::string::npos);
  Err("memory_review", {{"action", "promote"}, {"id", active}, {"bogus", 1}});
  EXPECT_EQ(before, Snapshot());
}

TEST_F(ReviewTest, NothingIsPromotedAutomatically) {
  const Json s = Ok("memory_suggest", {{"text", "Prefer small pull requests"}, {"kind", "preference"}});
  const std::string id = s["results"][0]["id"];
  for (int i = 0; i < 3; ++i) Ok("memory_suggest", {{"text", "Prefer small pull requests"}, {"kind", "preference"}});
  rt_->clock->Advance(400 * sdk::kMsPerDay);
  Ok("memory_maintain", Json::object());
  Ok("memory_consolidate", {{"apply", true}});
  EXPECT_EQ(Status(id), "pending");
}

TEST_F(ReviewTest, UsedIsIdempotentPerSessionAndRanksRecall) {
  const std::string a = Remember("The deploy script lives in tools/deploy.sh and needs the staging token");
  const std::string b = Remember("The deploy pipeline posts to the releases channel");
  Json first = Ok("memory_used", {{"ids", {b}}, {"session_id", "s1"}});
  EXPECT_EQ(first["marked"], 1);
  Json again = Ok("memory_used", {{"ids", {b}}, {"session_id", "s1"}});
  EXPECT_EQ(again["marked"], 0);
  EXPECT_EQ(again["already"], 1);
  Ok("memory_used", {{"ids", {b}}, {"session_id", "s2"}});
  EXPECT_EQ(Count("semantic_memory_usage"), 2);
  const Json r = Ok("memory_recall", {{"query", "deploy"}});
  ASSERT_GE(r["memories"].size(), 2u);
  EXPECT_EQ(r["memories"][0]["id"], b) << r.dump();
  (void)a;
  const std::string before = Snapshot();
  EXPECT_NE(Err("memory_used", {{"ids", {b, "nope1234"}}, {"session_id", "s3"}}).find("ids[1]"), std::string::npos);
  EXPECT_EQ(Count("semantic_memory_usage"), 2);
  EXPECT_EQ(before, Snapshot());
}

// Trial findings: answers point at the review queue and at what a person types.
TEST_F(ReviewTest, ContestedRecallResultsSayHowToResolve) {
  const auto [jest, vitest] = Rivals();
  const sdk::ToolResult r = Call("memory_recall", {{"query", "test suite jest vitest"}, {"status", {"active", "contested"}}});
  ASSERT_FALSE(r.is_error) << r.text;
  // Each contested memory names the one it is contested with, in the line and the JSON.
  ASSERT_EQ(r.structured["memories"].size(), 2u) << r.text;
  for (const Json& m : r.structured["memories"]) {
    const std::string other = m["id"] == jest ? vitest : jest;
    EXPECT_EQ(m.value("rivals", Json::array()), Json::array({other})) << m.dump();
    EXPECT_NE(r.text.find(m["id"].get<std::string>() + " · now · vs " + other + " ("), std::string::npos) << r.text;
  }
  // memory_review is in the full tool profile only: the answer names the core tools that
  // settle a contest, and the command a person can always run.
  EXPECT_NE(r.text.find("2 contested memories above: confirm the right one with memory_edit status \"active\" or "
                        "forget the wrong one (memory_forget), or `kioku review`"),
            std::string::npos)
      << r.text;
  const sdk::ToolResult plain = Call("memory_recall", {{"query", "small pull requests"}});
  EXPECT_EQ(plain.text.find("contested memor"), std::string::npos) << plain.text;
}

TEST_F(ReviewTest, SuggestionConflictPointsAtMemoryEditAndTheCommand) {
  Remember("We use pnpm", "decision", {{"subject", "package-manager"}, {"value", "pnpm"}});
  const sdk::ToolResult r = Call("memory_suggest", {{"text", "We might use bun"}, {"kind", "decision"},
                                                   {"subject", "package-manager"}, {"value", "bun"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_NE(r.text.find("confirm it with memory_edit status \"active\" or `kioku review --promote ID`"), std::string::npos)
      << r.text;
}

TEST_F(ReviewTest, KiokuReviewFooterIsCliSyntax) {
  Ok("memory_suggest", {{"text", "Prefer small pull requests"}, {"kind", "preference"}, {"scope", "global"}});
  for (const auto& c : rt_->runtime->Commands()) {
    if (c.name != "review") continue;
    std::istringstream in;
    std::ostringstream out, err;
    ASSERT_EQ(c.run({}, in, out, err), 0) << err.str();
    EXPECT_NE(out.str().find("resolve: kioku review --promote ID | --reject ID | --undo ID"), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find("memory_review {action"), std::string::npos) << out.str();
    return;
  }
  ADD_FAILURE() << "no `review` command registered";
}

TEST_F(ReviewTest, MemoryGetSaysJustNowAndShowsDecayedConfidence) {
  const std::string id = Remember("The nightly build starts at 02:00 UTC", "fact");
  sdk::ToolResult r = Call("memory_get", {{"id", id}});
  EXPECT_NE(r.text.find("(just now) by"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("now ago"), std::string::npos) << r.text;
  EXPECT_EQ(r.text.find("decayed to"), std::string::npos) << r.text;  // nothing to say yet
  rt_->clock->Advance(90 * sdk::kMsPerDay);                           // a fact's half-life
  r = Call("memory_get", {{"id", id}});
  EXPECT_NEAR(r.structured["memory"]["decayed_confidence"].get<double>(), 0.5, 0.01);
  EXPECT_NE(r.text.find("confidence 1.00, decayed to 0.50"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("(3mo ago)"), std::string::npos) << r.text;
}

}  // namespace
}  // namespace kioku::semantic

// memory_remember / memory_suggest: reaffirm, supersession, scope, batches, secrets and
// bad input (each refused with a clear message and no change to stored data).

#include <atomic>

#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

TEST_F(SemanticTest, RemembersAndReportsId) {
  Json s = Ok("memory_remember", {{"text", "We use pnpm, not npm."}, {"kind", "decision"}});
  ASSERT_EQ(s["results"].size(), 1u);
  EXPECT_EQ(s["results"][0]["action"], "remembered");
  EXPECT_EQ(s["results"][0]["status"], "active");
  EXPECT_EQ(s["results"][0]["id"].get<std::string>().size(), 26u);
  EXPECT_EQ(Count("semantic_memories"), 1);
}

TEST_F(SemanticTest, TextWithoutKindIsRefusedListingTheKinds) {
  // A first-time user sends only the text: the answer names what to add.
  const std::string e = Err("memory_remember", {{"text", "We use pnpm, not npm."}});
  EXPECT_NE(e.find("send text and kind"), std::string::npos) << e;
  EXPECT_NE(e.find("kind is one of fact, decision"), std::string::npos) << e;
  EXPECT_EQ(Count("semantic_memories"), 0);
}

TEST_F(SemanticTest, SameNormalizedTextReaffirmsInsteadOfAddingARow) {
  const std::string id = Remember("We use pnpm, not npm.", "decision");
  AdvanceDays(3);
  Json s = Ok("memory_remember", {{"text", "  we USE pnpm,   not npm "}, {"kind", "decision"}});
  EXPECT_EQ(s["results"][0]["action"], "reaffirmed");
  EXPECT_EQ(s["results"][0]["id"], id);
  EXPECT_EQ(Count("semantic_memories"), 1);
  EXPECT_EQ(Count("semantic_memories", "reaffirm_count = 1"), 1);
  EXPECT_EQ(Count("semantic_memory_history", "action = 'reaffirmed'"), 1);
  // captured_at keeps the first statement; updated_at moves.
  EXPECT_EQ(Count("semantic_memories", "updated_at > captured_at"), 1);
}

TEST_F(SemanticTest, DifferentKindScopeOrValueIsANewMemory) {
  Remember("We use pnpm", "decision");
  Remember("We use pnpm", "fact");
  Remember("We use pnpm", "decision", {{"scope", "global"}});
  Remember("We use pnpm", "decision", {{"subject", "pm"}, {"value", "pnpm"}});
  EXPECT_EQ(Count("semantic_memories"), 4);
}

TEST_F(SemanticTest, NewValueForSubjectSupersedesOldOneAndSaysWhatItReplaced) {
  const std::string old_id = Remember("We use npm", "decision",
                                      {{"subject", "package-manager"}, {"value", "npm"}});
  AdvanceDays(1);
  sdk::ToolResult r = Call("memory_remember", {{"text", "We switched to pnpm"},
                                               {"kind", "decision"},
                                               {"subject", "Package Manager"},
                                               {"value", "pnpm"}});
  ASSERT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.structured["results"][0]["action"], "superseded");
  EXPECT_EQ(r.structured["results"][0]["replaced"], Json::array({old_id}));
  EXPECT_NE(r.text.find(old_id), std::string::npos);
  const std::string new_id = r.structured["results"][0]["id"];
  EXPECT_EQ(Count("semantic_memories", IdIs(old_id) + " AND status = 'superseded' AND "
                                       "superseded_by = '" + new_id + "'"),
            1);
  // Superseded memories are not recalled unless asked for.
  EXPECT_EQ(RecallIds({{"query", "package manager"}}), std::vector<std::string>{new_id});
  EXPECT_TRUE(Contains(RecallIds({{"query", "npm"}, {"status", {"superseded"}}}), old_id));
}

TEST_F(SemanticTest, SameValueDifferentTextCoexists) {
  Remember("We use pnpm", "decision", {{"subject", "pm"}, {"value", "pnpm"}});
  Json s = Ok("memory_remember", {{"text", "pnpm is our package manager"}, {"kind", "decision"},
                                  {"subject", "pm"}, {"value", "PNPM"}});
  EXPECT_EQ(s["results"][0]["action"], "remembered");
  EXPECT_EQ(Count("semantic_memories", "status = 'active'"), 2);
}

TEST_F(SemanticTest, SupersessionIsPerScope) {
  Remember("Global: use npm", "preference",
           {{"scope", "global"}, {"subject", "pm"}, {"value", "npm"}});
  Json s = Ok("memory_remember", {{"text", "This project uses pnpm"}, {"kind", "preference"},
                                  {"scope", "project"}, {"subject", "pm"}, {"value", "pnpm"}});
  EXPECT_EQ(s["results"][0]["action"], "remembered");
  EXPECT_EQ(Count("semantic_memories", "status = 'superseded'"), 0);
}

TEST_F(SemanticTest, PinnedValueIsNotReplacedTheNewcomerIsContested) {
  const std::string pinned = Remember("Use tabs", "preference", {{"subject", "indent"}, {"value", "tabs"}});
  Ok("memory_pin", {{"id", pinned}});
  Json s = Ok("memory_remember", {{"text", "Use 2 spaces"}, {"kind", "preference"},
                                  {"subject", "indent"}, {"value", "2 spaces"}});
  EXPECT_EQ(s["results"][0]["action"], "remembered");
  EXPECT_EQ(s["results"][0]["status"], "contested");
  EXPECT_EQ(s["results"][0]["conflicts"], Json::array({pinned}));
  EXPECT_EQ(Count("semantic_memories", "status = 'pinned'"), 1);
}

TEST_F(SemanticTest, SuggestIsPendingNeverSupersedesAndNeverReaffirms) {
  const std::string told = Remember("We use pnpm", "decision", {{"subject", "pm"}, {"value", "pnpm"}});
  Json s = Ok("memory_suggest", {{"text", "Probably uses yarn"}, {"kind", "decision"},
                                 {"subject", "pm"}, {"value", "yarn"}});
  EXPECT_EQ(s["results"][0]["status"], "pending");
  EXPECT_EQ(s["results"][0]["conflicts"], Json::array({told}));
  EXPECT_EQ(Count("semantic_memories", "status = 'superseded'"), 0);
  EXPECT_EQ(Count("semantic_memories", "source = 'derived'"), 1);

  Json again = Ok("memory_suggest", {{"text", "We use pnpm"}, {"kind", "decision"},
                                     {"subject", "pm"}, {"value", "pnpm"}});
  EXPECT_EQ(again["results"][0]["action"], "known");
  EXPECT_EQ(again["results"][0]["id"], told);
  EXPECT_EQ(Count("semantic_memories", "reaffirm_count > 0"), 0);
}

TEST_F(SemanticTest, RememberingAPendingSuggestionConfirmsIt) {
  Json s = Ok("memory_suggest", {{"text", "Tests live in tests/unit"}, {"kind", "fact"}});
  const std::string id = s["results"][0]["id"];
  Json r = Ok("memory_remember", {{"text", "Tests live in tests/unit."}, {"kind", "fact"}});
  EXPECT_EQ(r["results"][0]["action"], "reaffirmed");
  EXPECT_EQ(r["results"][0]["id"], id);
  EXPECT_EQ(r["results"][0]["status"], "active");
  EXPECT_EQ(Count("semantic_memory_history", "action = 'confirmed'"), 1);
}

TEST_F(SemanticTest, BatchIsOneTransactionAndReaffirmsWithinTheBatch) {
  Json batch = Json::array();
  for (int i = 0; i < 5; ++i) {
    batch.push_back({{"text", "Fact number " + std::to_string(i)}, {"kind", "fact"}});
  }
  batch.push_back({{"text", "fact number 0."}, {"kind", "fact"}});
  Json s = Ok("memory_remember", {{"memories", batch}});
  ASSERT_EQ(s["results"].size(), 6u);
  EXPECT_EQ(s["results"][5]["action"], "reaffirmed");
  EXPECT_EQ(s["results"][5]["id"], s["results"][0]["id"]);
  EXPECT_EQ(Count("semantic_memories"), 5);
}

// One line per memory, in the order sent; a single memory's line echoes its text, a
// batch's lines give the item's index instead (the caller sent the texts and pays for every
// byte returned).
TEST_F(SemanticTest, ABatchAnswersOneLinePerMemoryWithoutEchoingTheTexts) {
  const sdk::ToolResult one = Call("memory_remember", {{"text", "The API listens on port 8080"}, {"kind", "fact"}});
  ASSERT_FALSE(one.is_error) << one.text;
  EXPECT_NE(one.text.find(": The API listens on port 8080"), std::string::npos) << one.text;

  Json batch = Json::array();
  for (const char* text : {"Deploys run from the release branch", "Staging resets every Monday",
                           "The API listens on port 8080"}) {
    batch.push_back({{"text", text}, {"kind", "fact"}});
  }
  const sdk::ToolResult many = Call("memory_remember", {{"memories", batch}});
  ASSERT_FALSE(many.is_error) << many.text;
  const Json& results = many.structured["results"];
  EXPECT_EQ(many.text, "[0] remembered " + results[0]["id"].get<std::string>() + " [fact]\n[1] remembered " +
                           results[1]["id"].get<std::string>() + " [fact]\n[2] reaffirmed " +
                           one.structured["results"][0]["id"].get<std::string>());
}

TEST_F(SemanticTest, BatchWithOneBadItemStoresNothing) {
  const std::string before = Snapshot();
  Json batch = {{{"text", "fine"}, {"kind", "fact"}},
                {{"text", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 here"}, {"kind", "fact"}}};
  const std::string msg = Err("memory_remember", {{"memories", batch}});
  EXPECT_NE(msg.find("memories[1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("secret"), std::string::npos) << msg;
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(SemanticTest, BatchItemsAreCheckedLikeSingleMemories) {
  const std::string before = Snapshot();
  auto err = [&](Json item) {
    return Err("memory_remember", {{"memories", Json::array({{{"text", "fine"}, {"kind", "fact"}}, item})}});
  };
  EXPECT_NE(err({{"text", "x"}, {"kind", "fact"}, {"importance", 11}}).find("memories[1].importance"), std::string::npos);
  EXPECT_NE(err({{"text", "x"}, {"kind", "fact"}, {"scope", "galaxy"}}).find("memories[1].scope: send one of"),
            std::string::npos);
  EXPECT_NE(err({{"text", 5}, {"kind", "fact"}}).find("memories[1].text: expected string, got number"), std::string::npos);
  // An unknown field is named with the fields there are; every refusal says nothing was stored.
  const std::string unknown = err({{"text", "x"}, {"kind", "fact"}, {"colour", "red"}});
  EXPECT_NE(unknown.find("unknown field 'colour'; a memory's fields are anchor, confidence, expires, importance, kind,"),
            std::string::npos)
      << unknown;
  EXPECT_NE(unknown.find("(nothing in the batch was stored)"), std::string::npos) << unknown;
  // Said once: the secret screen's refusal says it already; any other says it whatever the
  // item's own text holds.
  const std::string secret = err({{"text", "token ghp_abcdefghijklmnopqrstuvwxyz0123456789"}, {"kind", "fact"}});
  EXPECT_NE(secret.find("memories[1]: refused"), std::string::npos) << secret;
  EXPECT_EQ(secret.find("(nothing in the batch was stored)"), std::string::npos) << secret;
  const std::string echoed = err({{"text", "x"}, {"kind", "fact"}, {"expires", "nothing was stored"}});
  EXPECT_NE(echoed.find("(nothing in the batch was stored)"), std::string::npos) << echoed;
  // The missing field is named, and for kind what to send.
  EXPECT_NE(err({{"text", "x"}}).find("memories[1]: each memory needs text and kind; this one has no kind (one of fact, "),
            std::string::npos);
  EXPECT_NE(err({{"kind", "fact"}}).find("this one has no text"), std::string::npos);
  EXPECT_NE(err({{"text", "x"}, {"kind", "fact"}, {"tags", Json::array({std::string(65, 't')})}}).find("memories[1].tags[]"),
            std::string::npos);
  EXPECT_EQ(Snapshot(), before);
}

// A write cancelled while it runs (the client's notifications/cancelled, or the server
// stopping) rolls back whole: a call that gets no answer stores nothing.
TEST_F(SemanticTest, ACancelledWriteStoresNothing) {
  const std::string before = Snapshot();
  const std::atomic<bool> cancelled{true};
  const Json batch = {{{"text", "one"}, {"kind", "fact"}}, {{"text", "two"}, {"kind", "fact"}}};
  const auto out = rt_->runtime->Call("memory_remember", {{"memories", batch}},
                                      kioku::testing::TestRuntime::DefaultCaller(), &cancelled);
  EXPECT_TRUE(out.result.is_error);
  EXPECT_NE(out.result.text.find("cancelled before the write finished; nothing in it was stored"), std::string::npos)
      << out.result.text;
  EXPECT_EQ(out.outcome, "timeout");
  EXPECT_EQ(Snapshot(), before);
}

// Tag length is in characters, as the schema counts them: 30 CJK characters (90 bytes) are
// a tag; 10 × U+FDFA (10 characters, 180 once NFKC expands them) are not, and the message
// quotes what was sent.
TEST_F(SemanticTest, TagLengthIsCountedInCharacters) {
  std::string cjk;
  for (int i = 0; i < 30; ++i) cjk += "\u79FB";
  Json ok = Ok("memory_remember", {{"text", "The schema move is planned"}, {"kind", "fact"}, {"tags", {cjk}}});
  EXPECT_EQ(ok["results"][0]["action"], "remembered");
  std::string wide;
  for (int i = 0; i < 10; ++i) wide += "\uFDFA";
  const std::string before = Snapshot();
  const std::string msg = Err("memory_remember", {{"text", "Another fact"}, {"kind", "fact"}, {"tags", {wide}}});
  EXPECT_NE(msg.find("tag '\uFDFA"), std::string::npos) << msg;
  EXPECT_NE(msg.find("longer than 64 characters once normalized"), std::string::npos) << msg;
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(SemanticTest, RefusesSecretsAndSaysWhy) {
  const std::string before = Snapshot();
  std::string msg = Err("memory_remember",
                        {{"text", "The deploy key is AKIAIOSFODNN7EXAMPLE ok"}, {"kind", "fact"}});
  EXPECT_NE(msg.find("secret"), std::string::npos) << msg;
  EXPECT_NE(msg.find("aws-access-key"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nothing was stored"), std::string::npos) << msg;
  msg = Err("memory_remember", {{"text", "db creds"}, {"kind", "fact"}, {"subject", "db"},
                                {"value", "password=hunter2hunter2"}});
  EXPECT_NE(msg.find("value"), std::string::npos) << msg;
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(SemanticTest, BadInputIsRefusedWithClearMessagesAndChangesNothing) {
  Remember("existing memory", "fact");
  const std::string before = Snapshot();
  struct Case {
    Json args;
    std::string expect;
  };
  const std::vector<Case> cases = {
      {{{"text", ""}, {"kind", "fact"}}, "text"},
      {{{"text", "   "}, {"kind", "fact"}}, "empty"},
      {{{"text", std::string(4001, 'x')}, {"kind", "fact"}}, "text"},
      {{{"text", "ok"}, {"kind", "rumour"}}, "kind"},
      {{{"text", "ok"}, {"kind", "fact"}, {"importance", 11}}, "importance"},
      {{{"text", "ok"}, {"kind", "fact"}, {"importance", 0}}, "importance"},
      {{{"text", "ok"}, {"kind", "fact"}, {"confidence", 1.5}}, "confidence"},
      {{{"text", "ok"}, {"kind", "fact"}, {"value", "x"}}, "subject"},
      {{{"text", "ok"}, {"kind", "fact"}, {"expires", "next tuesday"}}, "RFC 3339"},
      {{{"text", "ok"}, {"kind", "fact"}, {"expires", "2020-01-01"}}, "past"},
      {{{"text", "ok"}, {"kind", "fact"}, {"scope", "path"}}, "path"},
      {{{"text", "ok"}, {"kind", "fact"}, {"scope", "global"}, {"path", "a.ts"}}, "path"},
      {{{"text", "ok"}, {"kind", "fact"}, {"path", "../outside.ts"}}, "project"},
      {{{"text", "ok"}, {"kind", "fact"}, {"path", "/etc/passwd"}}, "outside"},
      {{{"text", "ok"}}, "kind"},
      {{{"text", "ok"}, {"kind", "fact"}, {"memories", Json::array({{{"text", "a"}, {"kind", "fact"}}})}},
       "either"},
      {{{"text", "ok"}, {"kind", "fact"}, {"colour", "red"}}, "colour"},
  };
  for (const Case& c : cases) {
    const std::string msg = Err("memory_remember", c.args);
    EXPECT_NE(msg.find(c.expect), std::string::npos)
        << "args " << c.args.dump().substr(0, 120) << " → " << msg;
  }
  EXPECT_EQ(Snapshot(), before);
}

TEST_F(SemanticTest, ProjectScopeNeedsAProject) {
  sdk::Caller no_project;
  no_project.agent_id = "a";
  // Default scope downgrades to global without a project; an explicit project scope is refused.
  Json s = Ok("memory_remember", {{"text", "global by default"}, {"kind", "fact"}}, no_project);
  EXPECT_EQ(Count("semantic_memories", "scope = 'global'"), 1);
  const std::string msg =
      Err("memory_remember", {{"text", "x"}, {"kind", "fact"}, {"scope", "project"}}, no_project);
  EXPECT_NE(msg.find("global"), std::string::npos) << msg;
}

TEST_F(SemanticTest, PathScopeStoresProjectRelativePath) {
  Ok("memory_remember", {{"text", "This file is generated; do not edit"}, {"kind", "fact"},
                         {"path", "/tmp/project/src/gen/./api.ts"}});
  EXPECT_EQ(Count("semantic_memories", "scope = 'path' AND path = 'src/gen/api.ts' AND "
                                       "project_key = (SELECT seq FROM semantic_keys WHERE text = '/tmp/project')"),
            1);
}

TEST_F(SemanticTest, WritesRecordAgentSessionAndEntities) {
  Remember("Config is loaded by load_config() in src/config/loader.py", "fact");
  EXPECT_EQ(Count("semantic_memories", "agent_key = (SELECT seq FROM semantic_keys WHERE text = 'test-agent') AND "
                                       "session_key = (SELECT seq FROM semantic_keys WHERE text = 'test-session')"),
            1);
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'src/config/loader.py' AND type_key = (SELECT seq FROM semantic_keys WHERE text = 'file')"), 1);
  EXPECT_EQ(Count("semantic_entities", "norm_name = 'load_config' AND type_key = (SELECT seq FROM semantic_keys WHERE text = 'identifier')"), 1);
  EXPECT_EQ(Count("semantic_memory_entities"), 2);
}

}  // namespace
}  // namespace kioku::semantic::testing

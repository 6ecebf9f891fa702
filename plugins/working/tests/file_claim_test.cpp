#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

class FileClaimTest : public WorkingTest {
 protected:
  std::int64_t Claims() { return Count("SELECT count(*) FROM working_file_claims"); }
  std::string HolderOf(const std::string& path) {
    return Text("SELECT holder FROM working_file_claims WHERE path = '" + path + "'");
  }
};

TEST_F(FileClaimTest, ClaimAcquiresAndIsListedWithLiveness) {
  auto r = Ok("file_claim", {{"paths", {"src/a.ts", "./src/b.ts"}}, {"intent", "refactor"}});
  EXPECT_TRUE(r["acquired"].get<bool>());
  ASSERT_EQ(r["claims"].size(), 2u);
  EXPECT_EQ(r["claims"][0]["path"], "src/a.ts");
  EXPECT_EQ(r["claims"][1]["path"], "src/b.ts");
  EXPECT_EQ(r["claims"][0]["holder"], "agent-a");
  EXPECT_EQ(r["claims"][0]["expires_at"], sdk::FormatRfc3339(rt_->clock->NowMs() + 300'000));
  EXPECT_TRUE(r["conflicts"].empty());

  auto list = Ok("claim_list", Json::object(), "agent-b");
  ASSERT_EQ(list["claims"].size(), 2u);
  EXPECT_EQ(list["claims"][0]["liveness"], "live");
  EXPECT_EQ(list["claims"][0]["intent"], "refactor");
  EXPECT_EQ(list["claims"][0]["state"], "active");
  EXPECT_FALSE(list["claims"][0]["mine"].get<bool>());
}

TEST_F(FileClaimTest, RenewingOwnClaimExtendsLeaseAndKeepsIntent) {
  Ok("file_claim", {{"paths", {"a.cc"}}, {"intent", "fix bug"}, {"ttl_seconds", 60}});
  AdvanceSeconds(50);
  auto r = Ok("file_claim", {{"paths", {"a.cc"}}, {"ttl_seconds", 600}});
  EXPECT_TRUE(r["acquired"].get<bool>());
  EXPECT_TRUE(r["claims"][0]["renewed"].get<bool>());
  EXPECT_EQ(r["claims"][0]["intent"], "fix bug");
  EXPECT_EQ(Count("SELECT heartbeat_seq FROM working_file_claims WHERE path = 'a.cc'"), 1);
  EXPECT_EQ(Count("SELECT count(*) FROM working_events"), 1);  // renewals are not logged
  AdvanceSeconds(100);  // past the first lease, inside the renewed one
  auto conflict = Ok("file_claim", {{"paths", {"a.cc"}}}, "agent-b");
  EXPECT_FALSE(conflict["acquired"].get<bool>());
}

TEST_F(FileClaimTest, ConflictIsAllOrNothingWithPerPathReport) {
  Ok("file_claim", {{"paths", {"shared.cc"}}, {"intent", "rename api"}});
  auto r = Ok("file_claim", {{"paths", {"free.cc", "shared.cc"}}}, "agent-b");
  EXPECT_FALSE(r["acquired"].get<bool>());
  EXPECT_TRUE(r["claims"].empty());
  ASSERT_EQ(r["conflicts"].size(), 1u);
  const auto& c = r["conflicts"][0];
  EXPECT_EQ(c["path"], "shared.cc");
  EXPECT_EQ(c["holder"], "agent-a");
  EXPECT_EQ(c["intent"], "rename api");
  EXPECT_EQ(c["liveness"], "live");
  EXPECT_EQ(c["expires_at"], sdk::FormatRfc3339(rt_->clock->NowMs() + 300'000));
  // free.cc was not claimed: nothing half-applied.
  EXPECT_EQ(Claims(), 1);
  EXPECT_EQ(HolderOf("free.cc"), "<none>");
  auto text = Call("file_claim", {{"paths", {"shared.cc"}}}, "agent-b").text;
  EXPECT_NE(text.find("agent-a"), std::string::npos);
  EXPECT_NE(text.find("force:true"), std::string::npos);
}

TEST_F(FileClaimTest, SpellingsOfOnePathConflict) {
  Ok("file_claim", {{"paths", {"./src/../src/a.ts"}}});
  auto r = Ok("file_claim", {{"paths", {"/tmp/project/src/a.ts"}}}, "agent-b");
  EXPECT_FALSE(r["acquired"].get<bool>());
  EXPECT_EQ(r["conflicts"][0]["path"], "src/a.ts");
}

TEST_F(FileClaimTest, ExpiredClaimIsTakenOverAndRecorded) {
  Ok("file_claim", {{"paths", {"a.cc"}}, {"ttl_seconds", 60}});
  AdvanceSeconds(60);  // expiry instant: expires_at <= now counts as expired
  auto r = Ok("file_claim", {{"paths", {"a.cc"}}}, "agent-b");
  EXPECT_TRUE(r["acquired"].get<bool>());
  EXPECT_EQ(r["claims"][0]["takeover"]["previous_holder"], "agent-a");
  EXPECT_EQ(r["claims"][0]["takeover"]["reason"], "expired");
  EXPECT_EQ(HolderOf("a.cc"), "agent-b");
  EXPECT_EQ(Count("SELECT count(*) FROM working_events WHERE kind = 'file.takeover' AND "
                  "agent_id = 'agent-b' AND json_extract(detail, '$.reason') = 'expired'"),
            1);
}

TEST_F(FileClaimTest, StaleHolderIsTakenOverButLiveOneIsNot) {
  Ok("file_claim", {{"paths", {"a.cc", "b.cc"}}, {"ttl_seconds", 3600}});
  AdvanceSeconds(800);
  EXPECT_FALSE(Ok("file_claim", {{"paths", {"a.cc"}}}, "agent-b")["acquired"].get<bool>());
  AdvanceSeconds(101);  // agent-a silent for 901 s > presence TTL 900 s
  auto list = Ok("claim_list", Json::object(), "agent-b");
  EXPECT_EQ(list["claims"][0]["liveness"], "stale");
  auto r = Ok("file_claim", {{"paths", {"a.cc"}}}, "agent-b");
  EXPECT_TRUE(r["acquired"].get<bool>());
  EXPECT_EQ(r["claims"][0]["takeover"]["reason"], "holder_stale");
  // A heartbeat keeps the remaining claim live again.
  Ok("presence_ping", {{"status", "back"}});
  auto again = Ok("file_claim", {{"paths", {"b.cc"}}}, "agent-b");
  EXPECT_FALSE(again["acquired"].get<bool>());
  EXPECT_EQ(again["conflicts"][0]["liveness"], "live");
}

TEST_F(FileClaimTest, ForceOverridesLiveHolderAndIsRecorded) {
  Ok("file_claim", {{"paths", {"a.cc"}}});
  auto r = Ok("file_claim", {{"paths", {"a.cc"}}, {"force", true}, {"intent", "hotfix"}},
              "agent-b");
  EXPECT_TRUE(r["acquired"].get<bool>());
  EXPECT_EQ(r["claims"][0]["takeover"]["reason"], "forced");
  EXPECT_EQ(HolderOf("a.cc"), "agent-b");
  EXPECT_EQ(Count("SELECT count(*) FROM working_events WHERE kind = 'file.takeover' AND "
                  "json_extract(detail, '$.reason') = 'forced' AND "
                  "json_extract(detail, '$.previous_holder') = 'agent-a'"),
            1);
}

TEST_F(FileClaimTest, TtlOutOfRangeIsRefusedWithLimits) {
  // The schema carries the limits (minimum 5, maximum 3600), so the host's validator
  // refuses before the handler runs; its message names the field and the bound.
  for (int ttl : {3601, 100000}) {
    auto text = Err("file_claim", {{"paths", {"a.cc"}}, {"ttl_seconds", ttl}});
    EXPECT_NE(text.find("ttl_seconds"), std::string::npos) << text;
    EXPECT_NE(text.find("3600"), std::string::npos) << text;
  }
  for (int ttl : {0, 4, -1}) {
    auto text = Err("file_claim", {{"paths", {"a.cc"}}, {"ttl_seconds", ttl}});
    EXPECT_NE(text.find("ttl_seconds"), std::string::npos) << text;
    EXPECT_NE(text.find("5"), std::string::npos) << text;
  }
  EXPECT_EQ(Claims(), 0);
}

TEST_F(FileClaimTest, TtlLimitsComeFromSettingsAndHandlerMessageNamesThem) {
  StartWith({{"file_claim_max_ttl_seconds", 120}, {"file_claim_default_ttl_seconds", 60}});
  auto text = Err("file_claim", {{"paths", {"a.cc"}}, {"ttl_seconds", 121}});
  EXPECT_NE(text.find("120"), std::string::npos) << text;
  auto r = Ok("file_claim", {{"paths", {"a.cc"}}});
  EXPECT_EQ(r["ttl_seconds"], 60);
}

TEST_F(FileClaimTest, BadPathListsAreRefusedAndNothingIsWritten) {
  EXPECT_FALSE(Err("file_claim", {{"paths", Json::array()}}).empty());
  Json many = Json::array();
  for (int i = 0; i < 10'000; ++i) many.push_back("f" + std::to_string(i));
  auto text = Err("file_claim", {{"paths", many}});
  EXPECT_NE(text.find("256"), std::string::npos) << text.substr(0, 300);
  text = Err("file_claim", {{"paths", {"ok.cc", "../../etc/passwd"}}});
  EXPECT_NE(text.find("outside the project root"), std::string::npos) << text;
  text = Err("file_claim", {{"paths", {"ok.cc", "/etc/passwd"}}});
  EXPECT_NE(text.find("outside the project root"), std::string::npos) << text;
  EXPECT_EQ(Claims(), 0);
  EXPECT_EQ(Count("SELECT count(*) FROM working_events"), 0);
}

TEST_F(FileClaimTest, OnlyTheOwnerReleasesAndNothingIsHalfReleased) {
  Ok("file_claim", {{"paths", {"a.cc"}}}, "agent-a");
  Ok("file_claim", {{"paths", {"b.cc"}}}, "agent-b");
  auto text = Err("file_release", {{"paths", {"b.cc", "a.cc"}}}, "agent-b");
  EXPECT_NE(text.find("a.cc: held by agent-a"), std::string::npos) << text;
  EXPECT_NE(text.find("nothing was released"), std::string::npos) << text;
  EXPECT_EQ(HolderOf("a.cc"), "agent-a");
  EXPECT_EQ(HolderOf("b.cc"), "agent-b");
  // Even an expired foreign claim is not released by someone else.
  AdvanceSeconds(400);
  Err("file_release", {{"paths", {"a.cc"}}}, "agent-b");
  EXPECT_EQ(HolderOf("a.cc"), "agent-a");

  auto r = Ok("file_release", {{"paths", {"b.cc", "never-claimed.cc"}}}, "agent-b");
  EXPECT_EQ(r["released"], Json({"b.cc"}));
  EXPECT_EQ(r["not_held"], Json({"never-claimed.cc"}));
  EXPECT_EQ(HolderOf("b.cc"), "<none>");
}

TEST_F(FileClaimTest, ReleaseAllReleasesOnlyMine) {
  Ok("file_claim", {{"paths", {"a1", "a2"}}}, "agent-a");
  Ok("file_claim", {{"paths", {"b1"}}}, "agent-b");
  auto r = Ok("file_release", {{"all", true}}, "agent-a");
  EXPECT_EQ(r["released"], Json({"a1", "a2"}));
  EXPECT_EQ(Claims(), 1);
  EXPECT_EQ(HolderOf("b1"), "agent-b");
  EXPECT_NE(Err("file_release", Json::object()).find("paths"), std::string::npos);
  EXPECT_NE(Err("file_release", {{"all", true}, {"paths", {"a"}}}).find("not both"),
            std::string::npos);
}

TEST_F(FileClaimTest, ClaimListFiltersByPrefixAndExpiry) {
  Ok("file_claim", {{"paths", {"src/a.cc", "src2/b.cc", "docs/x.md"}}, {"ttl_seconds", 60}});
  Ok("file_claim", {{"paths", {"src/long.cc"}}, {"ttl_seconds", 600}});
  auto r = Ok("claim_list", {{"path_prefix", "src/"}});
  ASSERT_EQ(r["claims"].size(), 2u);
  EXPECT_EQ(r["claims"][0]["path"], "src/a.cc");
  EXPECT_TRUE(r["claims"][0]["mine"].get<bool>());
  EXPECT_EQ(Ok("claim_list", {{"path_prefix", "./src"}})["claims"].size(), 3u);
  EXPECT_EQ(Ok("claim_list", {{"path_prefix", "/tmp/project/"}})["claims"].size(), 4u);
  EXPECT_EQ(Ok("claim_list", {{"path_prefix", "."}})["claims"].size(), 4u);
  EXPECT_NE(Err("claim_list", {{"path_prefix", "../elsewhere"}}).find("outside"),
            std::string::npos);
  AdvanceSeconds(61);
  EXPECT_EQ(Ok("claim_list", Json::object())["claims"].size(), 1u);
  auto all = Ok("claim_list", {{"include_expired", true}});
  ASSERT_EQ(all["claims"].size(), 4u);
  EXPECT_EQ(all["claims"][0]["state"], "expired");
  EXPECT_EQ(Ok("claim_list", {{"limit", 2}, {"include_expired", true}})["truncated"], true);
}

TEST_F(FileClaimTest, ProjectsAreSeparate) {
  CallAs("file_claim", {{"paths", {"a.cc"}}}, As("agent-a", "/tmp/one"));
  auto r = CallAs("file_claim", {{"paths", {"a.cc"}}}, As("agent-b", "/tmp/two"));
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_TRUE(r.structured["acquired"].get<bool>());
  EXPECT_EQ(Claims(), 2);
}

}  // namespace
}  // namespace kioku::working::testing

// Issue 9 "every result is bounded": feedback_route over hundreds of tools fits the host's
// byte cap (48 KiB in tests) with a cursor and an `omitted` count; paging loses no tool.
#include <set>

#include "kioku/sdk/json.hpp"
#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

TEST_F(AffectiveTest, FeedbackRoutePagesUnderTheResultCap) {
  Start();
  json records = json::array();
  for (int i = 0; i < 500; ++i) {
    std::string tool = "mcp__a_rather_long_server_name__tool_number_" + std::to_string(i);
    while (tool.size() < 180) tool += "_x";
    records.push_back({{"tool", tool}, {"outcome", i % 3 == 0 ? "failure" : "success"}, {"at", DaysAgo(1)}});
  }
  for (std::size_t from = 0; from < records.size(); from += 100) {
    Ok("feedback_record", {{"records", json(records.begin() + static_cast<long>(from),
                                            records.begin() + static_cast<long>(from + 100))}});
  }
  std::set<std::string> seen;
  json args = {{"limit", 500}};
  int pages = 0;
  for (; pages < 50; ++pages) {
    const auto r = rt.Call("feedback_route", args);
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
    EXPECT_LE(r.text.size() + sdk::DumpJson(r.structured).size(), 48u * 1024);
    EXPECT_EQ(r.structured["total"], 500);
    for (const json& e : r.structured["ranking"]) EXPECT_TRUE(seen.insert(e["tool"].get<std::string>()).second);
    if (!r.structured.contains("next_cursor")) break;
    EXPECT_EQ(r.structured["omitted"].get<std::size_t>(), 500 - seen.size());
    args["cursor"] = r.structured["next_cursor"];
  }
  EXPECT_GT(pages, 0);
  EXPECT_EQ(seen.size(), 500u);
  // limit still applies; a bad cursor is refused with what to send.
  const json two = Ok("feedback_route", {{"limit", 2}});
  EXPECT_EQ(two["ranking"].size(), 2u);
  EXPECT_EQ(two["omitted"], 498);
  EXPECT_NE(Err("feedback_route", {{"cursor", "nope"}}).find("send next_cursor"), std::string::npos);
}

}  // namespace
}  // namespace kioku::affective::testing

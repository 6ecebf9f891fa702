#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

using QuestionTest = WorkingTest;

TEST_F(QuestionTest, AddListAnswer) {
  const std::string q1 =
      Ok("question_add", {{"question", "Which API version?"}, {"context", "client.ts"}})
          ["question_id"];
  AdvanceSeconds(1);
  const std::string q2 = Ok("question_add", {{"question", "Drop node 18?"}})["question_id"];
  auto open = Ok("question_list", Json::object(), "agent-b");
  ASSERT_EQ(open["questions"].size(), 2u);
  EXPECT_EQ(open["questions"][0]["question_id"], q2);  // newest first
  EXPECT_EQ(open["questions"][1]["context"], "client.ts");

  auto a = Ok("question_answer", {{"question_id", q1.substr(0, 22)}, {"answer", "v2"}}, "agent-b");
  EXPECT_EQ(a["status"], "answered");
  EXPECT_EQ(a["answered_by"], "agent-b");
  EXPECT_EQ(Ok("question_list", Json::object())["questions"].size(), 1u);
  auto answered = Ok("question_list", {{"status", "answered"}});
  ASSERT_EQ(answered["questions"].size(), 1u);
  EXPECT_EQ(answered["questions"][0]["answer"], "v2");
  EXPECT_EQ(Ok("question_list", {{"status", "all"}})["questions"].size(), 2u);
}

TEST_F(QuestionTest, AnsweringTwiceOrUnknownIsRefused) {
  const std::string q = Ok("question_add", {{"question", "q?"}})["question_id"];
  Ok("question_answer", {{"question_id", q}, {"answer", "first"}});
  auto text = Err("question_answer", {{"question_id", q}, {"answer", "second"}}, "agent-b");
  EXPECT_NE(text.find("already answered by agent-a"), std::string::npos) << text;
  EXPECT_EQ(Text("SELECT answer FROM working_questions"), "first");
  EXPECT_NE(Err("question_answer", {{"question_id", "0000000000"}, {"answer", "x"}})
                .find("unknown question id"),
            std::string::npos);
  EXPECT_FALSE(Err("question_add", {{"question", ""}}).empty());
  EXPECT_EQ(Count("SELECT count(*) FROM working_questions"), 1);
}

}  // namespace
}  // namespace kioku::working::testing

// The golden-set harness and the `kioku recall-eval` command.

#include <fstream>
#include <sstream>

#include "golden_eval.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic::testing {
namespace {

const std::string kGoldenSet = std::string(KIOKU_SEMANTIC_EVAL_DIR) + "/coding_agent.jsonl";

TEST(GoldenSet, CodingAgentSetMeetsTheQualityBar) {
  std::ifstream f(kGoldenSet);
  ASSERT_TRUE(f) << kGoldenSet;
  const EvalReport r = RunGoldenSet(f, Settings{});
  std::cout << "[ golden ] " << FormatReport(r) << "\n";
  for (const EvalCaseResult& c : r.results) {
    if (c.first_relevant_rank != 1 || c.absent_violated) {
      std::cout << "[ golden ]   line " << c.line << " rank " << c.first_relevant_rank
                << (c.absent_violated ? " ABSENT" : "") << " \"" << c.query << "\"\n";
    }
  }
  EXPECT_GE(r.cases, 60);
  EXPECT_GE(r.hit_at_5, 0.95);
  EXPECT_GE(r.hit_at_1, 0.85);
  EXPECT_GE(r.mrr, 0.90);
  EXPECT_GE(r.recall_at_10, 0.95);
  EXPECT_EQ(r.absent_violations, 0);
}

TEST(GoldenSet, MetricsOnATinySetAreExact) {
  std::istringstream in(R"(
# two memories, three cases
{"memory": {"key": "a", "text": "alpha memory about rust", "kind": "fact"}}
{"memory": {"key": "b", "text": "beta memory about go", "kind": "fact", "age_days": 3}}
{"query": "rust", "expect": ["a"]}
{"query": "memory about go", "expect": ["b"]}
{"query": "python", "expect_text": ["python"]}
)");
  const EvalReport r = RunGoldenSet(in, Settings{});
  EXPECT_EQ(r.memories, 2);
  EXPECT_EQ(r.cases, 3);
  EXPECT_NEAR(r.hit_at_1, 2.0 / 3, 1e-9);
  EXPECT_NEAR(r.hit_at_5, 2.0 / 3, 1e-9);
  EXPECT_NEAR(r.mrr, 2.0 / 3, 1e-9);
}

TEST(GoldenSet, MalformedLinesNameTheLine) {
  const auto error_of = [](const std::string& text) {
    std::istringstream in(text);
    try {
      RunGoldenSet(in, Settings{});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{\"memory\": {\"text\": \"x\", \"kind\": \"fact\"}}\nnot json\n").find("line 2"),
            std::string::npos);
  EXPECT_NE(error_of("{\"memory\": {\"text\": \"x\", \"kind\": \"nope\"}}\n").find("kind"),
            std::string::npos);
  EXPECT_NE(error_of("{\"query\": \"x\"}\n").find("expect"), std::string::npos);
  EXPECT_NE(error_of("{\"query\": \"x\", \"expect\": [\"missing\"]}\n").find("unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("{\"other\": 1}\n").find("memory"), std::string::npos);
}

TEST_F(SemanticTest, RecallEvalCommandIsRegisteredAndReportsMetrics) {
  const sdk::CommandSpec* cmd = nullptr;
  for (const sdk::CommandSpec& c : rt_->runtime->Commands()) {
    if (c.name == "recall-eval") cmd = &c;
  }
  ASSERT_NE(cmd, nullptr);
  std::istringstream in;
  std::ostringstream out, err;
  EXPECT_EQ(cmd->run({kGoldenSet, "--min-hit5", "0.5"}, in, out, err), 0) << err.str();
  EXPECT_NE(out.str().find("hit@1"), std::string::npos);
  EXPECT_NE(out.str().find("MRR"), std::string::npos);
  EXPECT_NE(out.str().find("recall@10"), std::string::npos);

  std::ostringstream jout, jerr;
  EXPECT_EQ(cmd->run({kGoldenSet, "--json"}, in, jout, jerr), 0);
  const Json j = Json::parse(jout.str());
  EXPECT_GE(j["cases"].get<int>(), 60);

  std::ostringstream o2, e2;
  EXPECT_EQ(cmd->run({kGoldenSet, "--min-hit5", "1.01"}, in, o2, e2), 1);
  EXPECT_NE(e2.str().find("below"), std::string::npos);
  std::ostringstream o3, e3;
  EXPECT_EQ(cmd->run({}, in, o3, e3), 2);
  EXPECT_NE(e3.str().find("missing FILE"), std::string::npos);
  std::ostringstream o4, e4;
  EXPECT_EQ(cmd->run({"/nonexistent/file.jsonl"}, in, o4, e4), 2);
  // The command never touches the deployment's database.
  EXPECT_EQ(Count("semantic_memories"), 0);
}

}  // namespace
}  // namespace kioku::semantic::testing

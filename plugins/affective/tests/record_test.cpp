#include <gtest/gtest.h>

#include <SQLiteCpp/Statement.h>

#include "test_helpers.hpp"

namespace kioku::affective::testing {
namespace {

class RecordTest : public AffectiveTest {
 protected:
  void SetUp() override { Start(); }
};

TEST_F(RecordTest, SingleOutcomeIsStoredWithCallerDefaults) {
  json s = Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "failure"}, {"latency_ms", 120.5},
                                  {"confidence", 0.8}, {"model", "claude-x"},
                                  {"error", "exit 1"}, {"error_class", "exit_1"}});
  EXPECT_EQ(s["recorded"], 1);
  EXPECT_EQ(s["duplicates"], 0);
  EXPECT_NE(last_text.find("failure for Bash"), std::string::npos) << last_text;

  SQLite::Statement q(rt.Db(),
                      "SELECT tool, outcome, latency_ms, confidence, agent_id, model, project_id, "
                      "session_id, error, error_class, source, at FROM affective_outcomes");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getString(), "Bash");
  EXPECT_EQ(q.getColumn(1).getString(), "failure");
  EXPECT_DOUBLE_EQ(q.getColumn(2).getDouble(), 120.5);
  EXPECT_DOUBLE_EQ(q.getColumn(3).getDouble(), 0.8);
  EXPECT_EQ(q.getColumn(4).getString(), "test-agent");
  EXPECT_EQ(q.getColumn(5).getString(), "claude-x");
  EXPECT_EQ(q.getColumn(6).getString(), "/tmp/project");
  EXPECT_EQ(q.getColumn(7).getString(), "test-session");
  EXPECT_EQ(q.getColumn(8).getString(), "exit 1");
  EXPECT_EQ(q.getColumn(9).getString(), "exit_1");
  EXPECT_EQ(q.getColumn(10).getString(), "record");
  EXPECT_EQ(q.getColumn(11).getInt64(), Now());
  EXPECT_FALSE(q.executeStep());

  // The bucket was updated in the same call.
  SQLite::Statement b(rt.Db(),
                      "SELECT n, failure, success, latency_n, confidence_n, day FROM affective_buckets");
  ASSERT_TRUE(b.executeStep());
  EXPECT_EQ(b.getColumn(0).getInt64(), 1);
  EXPECT_EQ(b.getColumn(1).getInt64(), 1);
  EXPECT_EQ(b.getColumn(2).getInt64(), 0);
  EXPECT_EQ(b.getColumn(3).getInt64(), 1);
  EXPECT_EQ(b.getColumn(4).getInt64(), 1);
  EXPECT_EQ(b.getColumn(5).getInt64(), Now() / sdk::kMsPerDay);
  EXPECT_GT(Scalar("SELECT length(latency_bins) FROM affective_buckets"), 0);
  // The all-time total follows too.
  EXPECT_EQ(Scalar("SELECT n FROM affective_totals WHERE tool = 'Bash'"), 1);
}

TEST_F(RecordTest, BatchFoldsIntoOneBucketPerKey) {
  json records = json::array();
  for (int i = 0; i < 10; ++i) {
    records.push_back({{"tool", i < 6 ? "Edit" : "Bash"},
                       {"outcome", i % 2 == 0 ? "success" : "partial"},
                       {"latency_ms", 10 * (i + 1)}});
  }
  json s = Ok("feedback_record", {{"records", records}});
  EXPECT_EQ(s["recorded"], 10);
  EXPECT_EQ(RawCount(), 10);
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_buckets"), 2);
  EXPECT_EQ(Scalar("SELECT n FROM affective_buckets WHERE tool = 'Edit'"), 6);
  EXPECT_EQ(Scalar("SELECT partial FROM affective_buckets WHERE tool = 'Edit'"), 3);
  EXPECT_EQ(Scalar("SELECT sum(latency_n) FROM affective_buckets"), 10);
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_totals"), 2);
  EXPECT_EQ(Scalar("SELECT sum(n) FROM affective_totals"), 10);
}

TEST_F(RecordTest, PastTimeGoesToItsDayAndFutureIsRefused) {
  Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "success"}, {"at", DaysAgo(3)}});
  EXPECT_EQ(Scalar("SELECT day FROM affective_buckets"), Now() / sdk::kMsPerDay - 3);

  const std::string msg = Err("feedback_record", {{"tool", "Bash"}, {"outcome", "success"},
                                                  {"at", DaysAgo(-1)}});
  EXPECT_NE(msg.find("in the future"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 1);
}

TEST_F(RecordTest, SourceIdMakesReingestIdempotent) {
  json rec = {{"tool", "Bash"}, {"outcome", "success"}, {"source_id", "toolu_01"}};
  Ok("feedback_record", rec);
  json s = Ok("feedback_record", {{"records", {rec, {{"tool", "Bash"}, {"outcome", "failure"},
                                                     {"source_id", "toolu_02"}}}}});
  EXPECT_EQ(s["recorded"], 1);
  EXPECT_EQ(s["duplicates"], 1);
  EXPECT_EQ(RawCount(), 2);
  EXPECT_EQ(BucketN(), 2);
  EXPECT_NE(last_text.find("1 duplicate"), std::string::npos) << last_text;
}

TEST_F(RecordTest, SecretsInAnyFieldButErrorAreRefusedWithTheirPath) {
  const std::string key = "sk_live_4eC39HqLyjWDarjtT1zdp7dc";
  for (const char* field : {"tool", "model", "error_class", "source_id", "session_id"}) {
    json args = {{"tool", "Bash"}, {"outcome", "failure"}};
    args[field] = key;
    const std::string msg = Err("feedback_record", args);
    EXPECT_NE(msg.find(std::string("`") + field + "`"), std::string::npos) << msg;
    EXPECT_NE(msg.find("stripe-key"), std::string::npos) << msg;
    EXPECT_EQ(msg.find(key), std::string::npos) << msg;
  }
  const std::string batch =
      Err("feedback_record", {{"records", {{{"tool", "a"}, {"outcome", "success"}},
                                           {{"tool", "b"}, {"outcome", "success"}, {"model", key}}}}});
  EXPECT_NE(batch.find("`records[1].model`"), std::string::npos) << batch;
  EXPECT_EQ(RawCount(), 0);
  // The error text is redacted, not refused.
  Ok("feedback_record", {{"tool", "Bash"}, {"outcome", "failure"}, {"error", "bad key " + key}});
  EXPECT_EQ(Scalar("SELECT count(*) FROM affective_outcomes WHERE error LIKE '%REDACTED:stripe-key%'"), 1);
}

TEST_F(RecordTest, ErrorTextIsRedactedAndTruncated) {
  const std::string secret = "AKIAIOSFODNN7EXAMPLE";
  std::string error = "upload failed with key " + secret + " ";
  error += std::string(3000, 'x');
  Ok("feedback_record", {{"tool", "s3/put"}, {"outcome", "failure"}, {"error", error}});
  const std::string stored = rt.Db().execAndGet("SELECT error FROM affective_outcomes").getString();
  EXPECT_EQ(stored.find(secret), std::string::npos) << stored;
  EXPECT_NE(stored.find("[REDACTED:"), std::string::npos) << stored;
  EXPECT_LE(stored.size(), 500u);
  EXPECT_EQ(stored.rfind("upload failed with key", 0), 0u);
}

// Bad input: a clear isError and nothing stored.
TEST_F(RecordTest, UnknownOutcomeIsRejected) {
  const std::string msg = Err("feedback_record", {{"tool", "Bash"}, {"outcome", "crashed"}});
  EXPECT_NE(msg.find("outcome"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
  EXPECT_EQ(BucketN(), 0);
}

TEST_F(RecordTest, NegativeLatencyIsRejected) {
  const std::string msg = Err("feedback_record", {{"tool", "Bash"}, {"outcome", "success"},
                                                  {"latency_ms", -1}});
  EXPECT_NE(msg.find("latency_ms"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(RecordTest, ConfidenceOutOfRangeIsRejected) {
  const std::string msg = Err("feedback_record", {{"tool", "Bash"}, {"outcome", "success"},
                                                  {"confidence", 1.5}});
  EXPECT_NE(msg.find("confidence"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(RecordTest, BatchOverTheCapIsRejected) {
  json records = json::array();
  for (int i = 0; i < 1001; ++i) records.push_back({{"tool", "Bash"}, {"outcome", "success"}});
  const std::string msg = Err("feedback_record", {{"records", records}});
  EXPECT_NE(msg.find("records"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
  EXPECT_EQ(BucketN(), 0);
}

TEST_F(RecordTest, OneBadRecordRejectsTheWholeBatch) {
  json records = {{{"tool", "Bash"}, {"outcome", "success"}},
                  {{"tool", "Bash"}, {"outcome", "success"}, {"at", "yesterday"}},
                  {{"tool", "Edit"}, {"outcome", "failure"}}};
  const std::string msg = Err("feedback_record", {{"records", records}});
  EXPECT_NE(msg.find("records[1].at"), std::string::npos) << msg;
  EXPECT_NE(msg.find("RFC 3339"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
  EXPECT_EQ(BucketN(), 0);
}

TEST_F(RecordTest, SingleAndBatchFormsDoNotMix) {
  const std::string msg = Err("feedback_record", {{"tool", "Bash"},
                                                  {"records", {{{"tool", "Bash"}, {"outcome", "success"}}}}});
  EXPECT_NE(msg.find("not both"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(RecordTest, MissingToolOrOutcomeIsRejected) {
  const std::string msg = Err("feedback_record", {{"tool", "Bash"}});
  EXPECT_NE(msg.find("missing tool or outcome"), std::string::npos) << msg;
  const std::string blank = Err("feedback_record", {{"tool", "   "}, {"outcome", "success"}});
  EXPECT_NE(blank.find("tool is empty"), std::string::npos) << blank;
  EXPECT_EQ(RawCount(), 0);
}

TEST_F(RecordTest, HugeStringsAreRejectedBySchema) {
  const std::string msg = Err("feedback_record", {{"tool", std::string(5000, 'a')},
                                                  {"outcome", "success"}});
  EXPECT_NE(msg.find("tool"), std::string::npos) << msg;
  EXPECT_EQ(RawCount(), 0);
}

}  // namespace
}  // namespace kioku::affective::testing

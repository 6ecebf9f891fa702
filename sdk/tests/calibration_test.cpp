// LayerVectors::Calibrate and `kioku embed --calibrate` (RunCalibrateCommand) on a crafted
// store: a deterministic in-process embedder whose on-topic and off-topic cosines are known
// exactly, the too-few-rows line, the sample filter, and the refusals.
#include <cmath>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "kioku/sdk/db.hpp"
#include "kioku/sdk/embed_worker.hpp"
#include "kioku/sdk/layer_vectors.hpp"

namespace kioku::sdk {
namespace {

constexpr int kDim = 16;
constexpr int kCommon = kDim - 1;  // the direction every vector shares

// Row i's text is "r<i>a r<i>b r<i>c r<i>d"; every text starting with "r<i>" embeds to
// a·e_i + b·e_common (a = 0.6, b = 0.8 unless a test changes them), so a row's first half
// scores 1.0 against its own vector and b² against any other row's.
class FakeEmbedder : public Embedder {
 public:
  std::string model = "fake";
  float a = 0.6f, b = 0.8f;
  int calls = 0;
  std::string error;

  std::string Model() const override { return model; }
  int Dimension() const override { return kDim; }
  EmbedResult Embed(const std::vector<std::string>& texts) override {
    ++calls;
    EmbedResult r;
    if (!error.empty()) {
      r.error = error;
      return r;
    }
    for (const std::string& t : texts) r.vectors.push_back(VectorOf(t, a, b));
    return r;
  }
  EmbedderHealth Health() const override { return {}; }
  std::string Endpoint() const override { return "in-process"; }

  static std::vector<float> VectorOf(const std::string& text, float a, float b) {
    std::vector<float> v(kDim, 0.0f);
    v[static_cast<std::size_t>(std::stoi(text.substr(1)) % kCommon)] = a;
    v[kCommon] = b;
    return v;
  }
};

VectorTables Tables() {
  return VectorTables{
      .prefix = "t",
      .key = "row_seq",
      .source = "t_rows",
      .source_key = "seq",
      .time_column = "created_at",
      .text_sql = "{row}.body",
      .text_columns = {"body"},
      .filter = "",
      .sample_filter = "{row}.live = 1",
      .item = "row",
      .items = "rows",
  };
}

class CalibrationTest : public ::testing::Test {
 protected:
  SQLite::Database db = OpenDatabase(":memory:");
  FakeEmbedder embedder;
  VectorSettings settings;
  LayerVectors vectors{Tables(), &embedder, std::filesystem::temp_directory_path(), settings, nullptr};

  CalibrationTest() {
    db.exec("CREATE TABLE t_rows (seq INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL, "
            "live INTEGER NOT NULL DEFAULT 1)");
    db.exec(VectorTablesMigration(1, Tables()).sql);
  }

  // Rows 0..n-1 with their vectors stored under `model` (`live` = 0 keeps them out of samples).
  void AddRows(int n, int live = 1, const std::string& model = "fake") {
    WithWriteTransaction(db, [&] {
      if (!vectors.Store().ReadStoreModel(db)) vectors.Store().WriteStoreModel(db, {model, kDim}, 1);
      for (int i = 0; i < n; ++i) {
        const std::string p = "r" + std::to_string(next_);
        SQLite::Statement q(db, "INSERT INTO t_rows (seq, body, created_at, live) VALUES (?, ?, 1, ?)");
        q.bind(1, next_);
        q.bind(2, p + "a " + p + "b " + p + "c " + p + "d");
        q.bind(3, live);
        q.exec();
        std::vector<float> v = FakeEmbedder::VectorOf(p, 0.6f, 0.8f);
        Normalize(v);
        vectors.Store().StoreVector(db, next_, 0, model, v, 1);
        ++next_;
      }
    });
  }

  std::pair<int, std::string> Command(int sample = 200) {
    std::ostringstream out, err;
    const int code = RunCalibrateCommand(vectors, db, "rows: ", sample, out, err);
    return {code, out.str() + err.str()};
  }

 private:
  int next_ = 0;
};

TEST_F(CalibrationTest, OnTopicHighOffTopicLowSuggestsAFloorBetween) {
  AddRows(12);
  const Calibration c = vectors.Calibrate(db, 200);
  ASSERT_TRUE(c.Measured()) << c.error;
  EXPECT_EQ(c.rows, 12u);
  EXPECT_EQ(c.on_topic.size(), 12u);
  EXPECT_GE(c.off_topic.size(), 40u);  // five draws per row, minus draws of the row itself
  EXPECT_LE(c.off_topic.size(), 60u);
  EXPECT_NEAR(c.on_p10, 1.0, 1e-5);
  EXPECT_NEAR(c.on_p50, 1.0, 1e-5);
  EXPECT_NEAR(c.off_p95, 0.64, 1e-5);
  EXPECT_NEAR(c.off_p50, 0.64, 1e-5);
  EXPECT_NEAR(c.suggested, 0.82, 1e-5);
  EXPECT_FALSE(c.Overlap());
  EXPECT_EQ(embedder.calls, 1);  // every query in one request

  const auto [code, text] = Command();
  EXPECT_EQ(code, 0) << text;
  EXPECT_NE(text.find("rows: on-topic  (12): p10 1.000  p50 1.000  p90 1.000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("p50 0.640  p90 0.640  p95 0.640\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rows: suggested t.vectors.min_score: 0.820 (now 0.300)\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("overlap"), std::string::npos) << text;
}

TEST_F(CalibrationTest, AlikeScoresWarnThatTheDistributionsOverlap) {
  // On-topic: query a·e_i + b·e_c against stored 0.6·e_i + 0.8·e_c with a = 0, b = 1:
  // 0.8 for every row, the same as off-topic: the distributions overlap.
  AddRows(10);
  embedder.a = 0.0f;
  embedder.b = 1.0f;
  const Calibration c = vectors.Calibrate(db, 200);
  ASSERT_TRUE(c.Measured()) << c.error;
  EXPECT_NEAR(c.on_p10, 0.8, 1e-5);
  EXPECT_NEAR(c.off_p95, 0.8, 1e-5);
  EXPECT_TRUE(c.Overlap());
  EXPECT_NE(Command().second.find("; the distributions overlap: the model separates topics poorly"),
            std::string::npos);
}

TEST_F(CalibrationTest, TooFewRowsSaysSoInOneLineAndIsNoFault) {
  AddRows(5);
  AddRows(7, /*live=*/0);  // embedded but outside the sample filter
  const auto [code, text] = Command();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(text, "rows: embed --calibrate: needs at least 10 embedded rows, found 5\n");
  EXPECT_EQ(embedder.calls, 0);
}

TEST_F(CalibrationTest, NothingEmbeddedYetIsZeroRows) {
  const auto [code, text] = Command();
  EXPECT_EQ(code, 0);
  EXPECT_EQ(text, "rows: embed --calibrate: needs at least 10 embedded rows, found 0\n");
}

TEST_F(CalibrationTest, SampleLimitsTheRows) {
  AddRows(30);
  EXPECT_EQ(vectors.Calibrate(db, 12).rows, 12u);
  EXPECT_EQ(vectors.Store().SampleEmbedded(db, "fake", 100).size(), 30u);
  EXPECT_TRUE(vectors.Store().SampleEmbedded(db, "other", 100).empty());
}

TEST_F(CalibrationTest, EndpointFailureAndAnotherModelAreErrors) {
  AddRows(12);
  embedder.error = "embedding endpoint in-process: HTTP 500";
  auto [code, text] = Command();
  EXPECT_EQ(code, 1);
  EXPECT_EQ(text, "rows: embed --calibrate: embedding endpoint in-process: HTTP 500\n");
  embedder.error.clear();
  embedder.model = "other";
  std::tie(code, text) = Command();
  EXPECT_EQ(code, 1);
  EXPECT_NE(text.find("stored vectors are from model fake"), std::string::npos) << text;
}

TEST(Calibration, WithoutAnEmbedderIsAnError) {
  SQLite::Database db = OpenDatabase(":memory:");
  LayerVectors vectors{Tables(), nullptr, std::filesystem::temp_directory_path(), {}, nullptr};
  EXPECT_NE(vectors.Calibrate(db, 200).error.find("no embedding provider"), std::string::npos);
}

}  // namespace
}  // namespace kioku::sdk

#include <cmath>
#include <filesystem>
#include <limits>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "kioku/sdk/vectors.hpp"

namespace kioku::sdk {
namespace {

std::vector<float> RandomVector(std::mt19937& rng, int dim) {
  std::normal_distribution<float> n(0, 1);
  std::vector<float> v(static_cast<std::size_t>(dim));
  for (float& x : v) x = n(rng);
  return v;
}

TEST(Vectors, CheckRefusesWrongLengthNanInfinityAndZeroNorm) {
  const std::vector<float> ok{1, 2, 3};
  EXPECT_FALSE(CheckVector(ok, 3));
  EXPECT_FALSE(CheckVector(ok, 0));
  EXPECT_EQ(*CheckVector(ok, 4), "has 3 values, expected 4");
  EXPECT_EQ(*CheckVector(std::vector<float>{}, 0), "is empty");
  EXPECT_EQ(*CheckVector(std::vector<float>{0, 0, 0}, 3), "has zero norm");
  EXPECT_NE(CheckVector(std::vector<float>{1, std::numeric_limits<float>::quiet_NaN(), 0}, 3)->find("NaN"),
            std::string::npos);
  EXPECT_TRUE(CheckVector(std::vector<float>{1, std::numeric_limits<float>::infinity(), 0}, 3));
}

TEST(Vectors, PackRoundTripsAndRejectsPartialFloats) {
  const std::vector<float> v{1.5f, -2.25f, 0.0f, 3e-7f};
  const std::string blob = PackVector(v);
  EXPECT_EQ(blob.size(), 16u);
  EXPECT_EQ(*UnpackVector(blob.data(), blob.size()), v);
  EXPECT_FALSE(UnpackVector(blob.data(), 15));
}

TEST(VectorIndex, ExactFindsNearestAndRefusesBadVectors) {
  VectorIndex index(3);
  EXPECT_TRUE(index.Add(1, std::vector<float>{1, 0, 0}));
  EXPECT_TRUE(index.Add(2, std::vector<float>{0, 2, 0}));
  EXPECT_TRUE(index.Add(3, std::vector<float>{1, 1, 0}));
  EXPECT_FALSE(index.Add(4, std::vector<float>{0, 0, 0}));
  EXPECT_FALSE(index.Add(5, std::vector<float>{1, 0}));
  EXPECT_EQ(index.Size(), 3u);
  auto hits = index.Search(std::vector<float>{0.9f, 0.1f, 0}, 2);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].label, 1);
  EXPECT_EQ(hits[1].label, 3);
  EXPECT_NEAR(hits[0].score, 0.9939f, 1e-3);
  // The floor drops weak hits; replacing a label moves it.
  EXPECT_EQ(index.Search(std::vector<float>{0, 1, 0}, 3, 0.5f).size(), 2u);
  index.Add(1, std::vector<float>{0, 1, 0});
  EXPECT_EQ(index.Search(std::vector<float>{0, 1, 0}, 1)[0].score, 1.0f);
  index.Remove(2);
  EXPECT_EQ(index.Size(), 2u);
  EXPECT_TRUE(index.Search(std::vector<float>{1, 0}, 3).empty());
}

// HNSW and exact search agree on the top 10 (recall@10 >= 0.95), and a saved graph loads
// back with the same answers.
TEST(VectorIndex, HnswAgreesWithExactAndPersists) {
  constexpr int kDim = 32, kN = 2000, kQueries = 50;
  std::mt19937 rng(7);
  VectorIndexOptions options;
  options.exact_below = 500;
  VectorIndex index(kDim, options);
  for (int i = 0; i < kN; ++i) ASSERT_TRUE(index.Add(i + 1, RandomVector(rng, kDim)));
  ASSERT_TRUE(index.UsesHnsw());
  EXPECT_EQ(index.Size(), static_cast<std::size_t>(kN));
  std::vector<std::vector<float>> queries;
  for (int q = 0; q < kQueries; ++q) queries.push_back(RandomVector(rng, kDim));
  int found = 0;
  for (const auto& q : queries) {
    std::set<std::int64_t> truth;
    for (const VectorHit& h : index.SearchExact(q, 10)) truth.insert(h.label);
    for (const VectorHit& h : index.Search(q, 10)) found += truth.count(h.label) > 0;
  }
  const double recall = found / (10.0 * kQueries);
  EXPECT_GE(recall, 0.95);

  const auto path = std::filesystem::temp_directory_path() / ("kioku-hnsw-" + std::to_string(rng()) + ".bin");
  ASSERT_TRUE(index.SaveHnsw(path));
  VectorIndex loaded(kDim, options);
  ASSERT_TRUE(loaded.LoadHnsw(path));
  EXPECT_EQ(loaded.Size(), static_cast<std::size_t>(kN));
  EXPECT_EQ(loaded.Search(queries[0], 5)[0].label, index.Search(queries[0], 5)[0].label);
  VectorIndex wrong_dim(kDim + 1, options);
  EXPECT_FALSE(wrong_dim.LoadHnsw(path));
  // Removal and re-adding work on the graph too.
  const std::int64_t top = loaded.Search(queries[0], 1)[0].label;
  loaded.Remove(top);
  EXPECT_NE(loaded.Search(queries[0], 1)[0].label, top);
  EXPECT_EQ(loaded.Size(), static_cast<std::size_t>(kN - 1));
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace kioku::sdk

#include "kioku/sdk/ids.hpp"

#include <algorithm>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

bool IsCrockford(char c) {
  return (c >= '0' && c <= '9') ||
         (c >= 'A' && c <= 'Z' && c != 'I' && c != 'L' && c != 'O' && c != 'U');
}

TEST(NewId, Is26CrockfordCharacters) {
  const std::string id = NewId(1'767'225'600'000);
  ASSERT_EQ(id.size(), 26u);
  EXPECT_TRUE(std::all_of(id.begin(), id.end(), IsCrockford)) << id;
}

TEST(NewId, EncodesTimestampInFirstTenCharacters) {
  // ULID spec example: encodeTime(1469918176385) = "01ARYZ6S41".
  EXPECT_EQ(NewId(1'469'918'176'385).substr(0, 10), "01ARYZ6S41");
  EXPECT_EQ(NewId(0).substr(0, 10), "0000000000");
  EXPECT_EQ(NewId((std::int64_t{1} << 48) - 1).substr(0, 10), "7ZZZZZZZZZ");
}

TEST(NewId, ClampsOutOfRangeTimestamps) {
  EXPECT_EQ(NewId(-5).substr(0, 10), "0000000000");
  EXPECT_EQ(NewId(std::int64_t{1} << 60).substr(0, 10), "7ZZZZZZZZZ");
}

TEST(NewId, SortsByTime) {
  const std::string a = NewId(1'767'225'600'000);
  const std::string b = NewId(1'767'225'600'001);
  const std::string c = NewId(1'767'225'700'000);
  EXPECT_LT(a, b);
  EXPECT_LT(b, c);
}

TEST(NewId, StrictlyIncreasingWithinOneMillisecond) {
  std::vector<std::string> ids;
  for (int i = 0; i < 1000; ++i) ids.push_back(NewId(1'800'000'000'000));
  for (std::size_t i = 1; i < ids.size(); ++i) {
    EXPECT_LT(ids[i - 1], ids[i]) << i;
    EXPECT_EQ(ids[i].substr(0, 10), ids[0].substr(0, 10));
  }
}

TEST(NewId, DifferentMillisecondsDrawFreshRandomness) {
  const std::string a = NewId(1'800'000'000'100);
  const std::string b = NewId(1'800'000'000'200);
  EXPECT_NE(a.substr(10), b.substr(10));
}

TEST(NewId, UniqueAcrossThreads) {
  std::mutex mu;
  std::set<std::string> all;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      std::vector<std::string> local;
      for (int i = 0; i < 2000; ++i) local.push_back(NewId(1'810'000'000'000 + i % 3));
      std::lock_guard<std::mutex> lock(mu);
      all.insert(local.begin(), local.end());
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(all.size(), 8000u);
}

}  // namespace
}  // namespace kioku::sdk

#include "kioku/sdk/ids.hpp"

#include <algorithm>
#include <limits>
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

TEST(DerivedId, EncodesTimeAndSeqAndParsesBack) {
  const std::string id = DerivedId(1796513101620, 2);
  EXPECT_EQ(id, "01M948CXSM0000000000000002");
  EXPECT_EQ(id.substr(0, 10), NewId(1796513101620).substr(0, 10));  // the same time part as a ULID
  for (std::int64_t seq : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{32}, std::int64_t{123456789},
                           std::numeric_limits<std::int64_t>::max()}) {
    auto parts = ParseDerivedId(DerivedId(1'800'000'000'000, seq));
    ASSERT_TRUE(parts.has_value()) << seq;
    EXPECT_EQ(parts->unix_ms, 1'800'000'000'000);
    EXPECT_EQ(parts->seq, seq);
  }
  EXPECT_LT(DerivedId(5, 9), DerivedId(5, 10));
  EXPECT_LT(DerivedId(5, 999), DerivedId(6, 1));
  auto lower = ParseDerivedId("01m948cxsm0000000000000002");
  ASSERT_TRUE(lower.has_value());
  EXPECT_EQ(lower->seq, 2);
}

TEST(IsUlid, TakesEveryIdKiokuMakesAndNothingElse) {
  EXPECT_TRUE(IsUlid(NewId(1'800'000'000'000)));
  EXPECT_TRUE(IsUlid(DerivedId(1'800'000'000'000, 42)));
  EXPECT_TRUE(IsUlid("01m948cxsm0000000000000002"));
  for (const char* bad : {"", "01M948CXSM000000000000002", "01M948CXSM00000000000000022", "81M948CXSM0000000000000002",
                          "01M948CXSM000000000000000U", "01M948CXSM00000000000000 2", "sk-ant-api03-aaaaaaaaaaaaaaa"}) {
    EXPECT_FALSE(IsUlid(bad)) << bad;
  }
}

TEST(DerivedId, RefusesWhatNoDerivedIdIs) {
  EXPECT_FALSE(ParseDerivedId("01M948CXSM000000000000002").has_value());    // 25 characters
  EXPECT_FALSE(ParseDerivedId("01M948CXSM000000000000000U").has_value());   // U is not Crockford
  EXPECT_FALSE(ParseDerivedId("81M948CXSM0000000000000002").has_value());   // time past 48 bits
  EXPECT_FALSE(ParseDerivedId("01M948CXSMZZZZZZZZZZZZZZZZ").has_value());   // tail past 2^63-1
  EXPECT_FALSE(ParseDerivedId(NewId(1'800'000'000'000).replace(10, 1, "8")).has_value());
}

TEST(DerivedId, PrefixRangeBoundsTimeAndSeq) {
  const std::string id = DerivedId(1'800'000'000'000, 70000);
  for (std::size_t k = 1; k <= id.size(); ++k) {
    auto r = DerivedIdPrefixRange(id.substr(0, k));
    ASSERT_TRUE(r.has_value()) << k;
    EXPECT_LE(r->ms_lo, 1'800'000'000'000) << k;
    EXPECT_GE(r->ms_hi, 1'800'000'000'000) << k;
    EXPECT_LE(r->seq_lo, 70000) << k;
    EXPECT_GE(r->seq_hi, 70000) << k;
  }
  auto whole_time = DerivedIdPrefixRange(id.substr(0, 10));
  EXPECT_EQ(whole_time->ms_lo, whole_time->ms_hi);
  EXPECT_EQ(whole_time->seq_lo, 0);
  EXPECT_EQ(whole_time->seq_hi, std::numeric_limits<std::int64_t>::max());
  auto exact = DerivedIdPrefixRange(id);
  EXPECT_EQ(exact->seq_lo, 70000);
  EXPECT_EQ(exact->seq_hi, 70000);
  auto near = DerivedIdPrefixRange(id.substr(0, 25));  // the last character open: 32 seqs
  EXPECT_EQ(near->seq_hi - near->seq_lo, 31);
  EXPECT_FALSE(DerivedIdPrefixRange("01M9*").has_value());
  EXPECT_FALSE(DerivedIdPrefixRange("9ZZZ").has_value());
  EXPECT_FALSE(DerivedIdPrefixRange(id + "0").has_value());
}

}  // namespace
}  // namespace kioku::sdk

namespace kioku::sdk {
namespace {

TEST(SeqId, HoldsTimeNonceAndSeq) {
  const std::string id = SeqId(1796513101620, 0x12345, 2);
  EXPECT_EQ(id, "01M948CXSM28T5000000000002");
  EXPECT_TRUE(IsUlid(id));
  auto parts = ParseSeqId(id);
  ASSERT_TRUE(parts.has_value());
  EXPECT_EQ(parts->unix_ms, 1796513101620);
  EXPECT_EQ(parts->nonce, 0x12345);
  EXPECT_EQ(parts->seq, 2);
  std::string lower = id;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_EQ(ParseSeqId(lower)->seq, 2);
  EXPECT_EQ(SeqId(5, std::int64_t{1} << 20, 7), SeqId(5, 0, 7));  // the nonce's low 20 bits
  const std::int64_t big = (std::int64_t{1} << 60) - 1;
  EXPECT_EQ(ParseSeqId(SeqId(kMaxIdTimeMs, 0xFFFFF, big))->seq, big);
  EXPECT_FALSE(ParseSeqId(id.substr(0, 25)).has_value());
  EXPECT_FALSE(ParseSeqId("01M948CXSM28TU000000000002").has_value());  // U is not Crockford
}

}  // namespace
}  // namespace kioku::sdk

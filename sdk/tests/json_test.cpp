#include "kioku/sdk/json.hpp"

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

// DumpedSizeBound never under-counts: each case is one of the ways a byte or a value
// serializes longer than it looks.
TEST(DumpedSizeBound, IsNeverBelowTheSerializedSize) {
  const Json cases[] = {
      Json(),
      Json(true),
      Json(std::numeric_limits<std::int64_t>::min()),
      Json(std::numeric_limits<std::uint64_t>::max()),
      Json(-1.7976931348623157e308),
      Json(4.9406564584124654e-324),
      Json(""),
      Json(std::string("\x01\x02\x1f\"\\\n\t", 7)),  // each escaped, up to 6 bytes
      Json(std::string(100, '\x01')),
      Json("invalid \xff\xfe utf-8"),  // each bad byte becomes U+FFFD
      Json("東京タワー 😀"),
      Json::array(),
      Json::object(),
      Json{{"\x01key", {1, 2.5, "x", nullptr, Json::array({Json::object()})}}, {"", ""}},
      Json::binary({0, 255, 128, 7}, 42),
  };
  for (const Json& v : cases) {
    EXPECT_GE(DumpedSizeBound(v), DumpJson(v).size()) << DumpJson(v);
  }
}

TEST(DumpedSizeBound, StaysWithinAFewTimesTheSizeForPlainText) {
  Json results = Json::array();
  for (int i = 0; i < 100; ++i) {
    results.push_back({{"id", "01M97P9ZGE57XG00000000000" + std::to_string(i % 10)}, {"action", "remembered"}});
  }
  const Json v{{"results", results}};
  EXPECT_LE(DumpedSizeBound(v), 6 * DumpJson(v).size());
}

}  // namespace
}  // namespace kioku::sdk

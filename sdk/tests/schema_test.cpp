#include "kioku/sdk/schema.hpp"

#include <gtest/gtest.h>

namespace kioku::sdk {
namespace {

using namespace schema;

TEST(Schema, StringPutsBoundsFirstAndOmitsEmptyParts) {
  EXPECT_EQ(String(200), (Json{{"type", "string"}, {"maxLength", 200}}));
  EXPECT_EQ(String(200, "Tool name", 1),
            (Json{{"type", "string"}, {"maxLength", 200}, {"minLength", 1},
                  {"description", "Tool name"}}));
}

TEST(Schema, NumbersEnumsBoolsArrays) {
  EXPECT_EQ(Integer(1, 50, "n"),
            (Json{{"type", "integer"}, {"minimum", 1}, {"maximum", 50}, {"description", "n"}}));
  EXPECT_EQ(Number(0, 1), (Json{{"type", "number"}, {"minimum", 0.0}, {"maximum", 1.0}}));
  EXPECT_EQ(Bool(), (Json{{"type", "boolean"}}));
  EXPECT_EQ(Enum({"a", "b"}), (Json{{"type", "string"}, {"enum", {"a", "b"}}}));
  EXPECT_EQ(Array(String(10), 5, "", 1),
            (Json{{"type", "array"}, {"items", String(10)}, {"maxItems", 5}, {"minItems", 1}}));
}

TEST(Schema, IdPrefixMatchesResolveIdPrefixRule) {
  const Json id = IdPrefix();
  EXPECT_EQ(id.at("minLength"), 4);
  EXPECT_EQ(id.at("maxLength"), 64);
}

TEST(Schema, InputObjectsAreClosedOutputObjectsOpen) {
  const Json in = Object({{"text", String(10)}}, {"text"});
  EXPECT_EQ(in.at("additionalProperties"), false);
  EXPECT_EQ(in.at("required"), Json::array({"text"}));
  const Json out = Output({{"id", Type("string")}}, {"id"});
  EXPECT_FALSE(out.contains("additionalProperties"));
  EXPECT_EQ(out.at("required"), Json::array({"id"}));
}

TEST(Schema, EmptyPropertiesAreAnObjectNotNull) {
  EXPECT_TRUE(Object({}).at("properties").is_object());
  EXPECT_TRUE(Output(Json::object()).at("properties").is_object());
  EXPECT_EQ(Output(), Json({{"type", "object"}}));  // any object: the shape is in the text
  EXPECT_FALSE(Object({}).contains("required"));
}

TEST(Schema, NullableAddsNullToTheType) {
  EXPECT_EQ(Nullable(Type("string")).at("type"), Json::array({"string", "null"}));
  EXPECT_EQ(Nullable(String(5)).at("maxLength"), 5);
}

}  // namespace
}  // namespace kioku::sdk

// JsonSchema: valijson findings rewritten as one model-actionable line per problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "json_schema.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

json MemorySchema() {
  return json::parse(R"({
    "type": "object",
    "properties": {
      "text": {"type": "string", "minLength": 1, "maxLength": 1000},
      "kind": {"type": "string", "enum": ["fact", "decision", "preference", "lesson"]},
      "importance": {"type": "integer", "minimum": 1, "maximum": 10},
      "weight": {"type": "number", "exclusiveMinimum": 0},
      "tags": {"type": "array", "items": {"type": "string", "maxLength": 8}, "maxItems": 3},
      "scope": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
                "additionalProperties": false},
      "memories": {"type": "array", "items": {"$ref": "#/definitions/memory"}},
      "when": {"anyOf": [{"type": "string", "maxLength": 40}, {"type": "integer", "minimum": 0}]},
      "name": {"type": "string", "pattern": "^[a-z]+$"},
      "note": {"type": ["string", "null"]}
    },
    "required": ["text"],
    "additionalProperties": false,
    "definitions": {
      "memory": {"type": "object", "properties": {"kind": {"type": "string", "enum": ["fact", "todo"]}},
                 "additionalProperties": false}
    }
  })");
}

std::vector<std::string> Check(const json& value) { return JsonSchema(MemorySchema()).Validate(value); }

TEST(JsonSchemaTest, ConformingValueHasNoViolations) {
  EXPECT_THAT(Check({{"text", "we use pnpm"}, {"kind", "fact"}, {"importance", 3}, {"tags", {"a", "b"}},
                     {"memories", {{{"kind", "todo"}}}}, {"when", 5}, {"note", nullptr}}),
              IsEmpty());
}

TEST(JsonSchemaTest, WrongTypeNamesExpectedTypeWithLimitsAndTheValue) {
  EXPECT_THAT(Check({{"text", 5}}), ElementsAre("text: expected string (1 to 1000 characters), got number 5"));
  EXPECT_THAT(Check({{"text", "x"}, {"tags", "a"}}),
              ElementsAre("tags: expected array of string (at most 8 characters) (at most 3 items), got \"a\""));
  EXPECT_THAT(Check({{"text", "x"}, {"note", 1.5}}), ElementsAre("note: expected string or null, got number 1.5"));
  EXPECT_THAT(Check({{"text", "x"}, {"scope", {1, 2}}}), ElementsAre("scope: expected object, got array [1,2]"));
}

TEST(JsonSchemaTest, EnumListsTheAllowedValues) {
  EXPECT_THAT(Check({{"text", "x"}, {"kind", "facts"}}),
              ElementsAre("kind: expected one of \"fact\", \"decision\", \"preference\", \"lesson\", got \"facts\""));
}

TEST(JsonSchemaTest, RangeNamesBoundsAndValue) {
  EXPECT_THAT(Check({{"text", "x"}, {"importance", 42}}),
              ElementsAre("importance: expected integer between 1 and 10, got 42"));
  EXPECT_THAT(Check({{"text", "x"}, {"weight", 0}}), ElementsAre("weight: expected number greater than 0, got 0"));
}

TEST(JsonSchemaTest, IntegerRejectsFraction) {
  EXPECT_THAT(Check({{"text", "x"}, {"importance", 2.5}}),
              ElementsAre("importance: expected integer between 1 and 10, got number 2.5"));
}

TEST(JsonSchemaTest, UnknownFieldListsAllowedFields) {
  EXPECT_THAT(Check({{"text", "x"}, {"txt", "y"}}),
              ElementsAre("(root): unknown field \"txt\" (allowed: importance, kind, memories, name, note, scope, "
                          "tags, text, weight, when)"));
}

TEST(JsonSchemaTest, SeveralUnknownFieldsOnOneLine) {
  auto v = Check({{"text", "x"}, {"aa", 1}, {"bb", 2}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0], HasSubstr("(root): unknown fields \"aa\", \"bb\" (allowed: "));
}

TEST(JsonSchemaTest, NestedUnknownFieldAndNoFieldsAllowed) {
  JsonSchema empty(json{{"type", "object"}, {"additionalProperties", false}});
  EXPECT_THAT(empty.Validate({{"x", 1}}), ElementsAre("(root): unknown field \"x\" (no fields are allowed here)"));
  EXPECT_THAT(Check({{"text", "x"}, {"scope", {{"path", "a"}, {"depth", 2}}}}),
              ElementsAre("scope: unknown field \"depth\" (allowed: path)"));
}

TEST(JsonSchemaTest, MissingRequiredField) {
  EXPECT_THAT(Check(json::object()), ElementsAre("(root): missing required field \"text\""));
  EXPECT_THAT(Check({{"text", "x"}, {"scope", json::object()}}), ElementsAre("scope: missing required field \"path\""));
}

TEST(JsonSchemaTest, TooLongAndTooShortCountCharacters) {
  EXPECT_THAT(Check({{"text", std::string(120000, 'a')}}), ElementsAre("text: too long (120000 characters; at most 1000)"));
  EXPECT_THAT(Check({{"text", ""}}), ElementsAre("text: too short (0 characters; at least 1)"));
  // Characters, not bytes: 1000 three-byte characters fit.
  std::string cjk;
  for (int i = 0; i < 1000; ++i) cjk += "\xe8\xa8\x98";
  EXPECT_THAT(Check({{"text", cjk}}), IsEmpty());
}

TEST(JsonSchemaTest, TooManyItems) {
  EXPECT_THAT(Check({{"text", "x"}, {"tags", {"a", "b", "c", "d"}}}), ElementsAre("tags: too many items (4; at most 3)"));
}

TEST(JsonSchemaTest, ArrayItemPathUsesIndexAndRef) {
  EXPECT_THAT(Check({{"text", "x"}, {"memories", {{{"kind", "fact"}}, {{"kind", "idea"}}}}}),
              ElementsAre("memories[1].kind: expected one of \"fact\", \"todo\", got \"idea\""));
  EXPECT_THAT(Check({{"text", "x"}, {"tags", {"ok", "waytoolongtag"}}}),
              ElementsAre("tags[1]: too long (13 characters; at most 8)"));
}

TEST(JsonSchemaTest, PatternShowsThePattern) {
  EXPECT_THAT(Check({{"text", "x"}, {"name", "ABC"}}), ElementsAre("name: expected string matching ^[a-z]+$, got \"ABC\""));
}

TEST(JsonSchemaTest, AnyOfIsOneLineWithAlternatives) {
  EXPECT_THAT(Check({{"text", "x"}, {"when", true}}),
              ElementsAre("when: expected string (at most 40 characters) or integer at least 0, got boolean true"));
}

TEST(JsonSchemaTest, SeveralProblemsGiveOneLineEachWithoutWrappers) {
  auto v = Check({{"text", 5}, {"importance", 0}, {"kind", "x"}});
  ASSERT_EQ(v.size(), 3u) << JoinViolations(v);
  for (const auto& line : v) {
    EXPECT_THAT(line, ::testing::Not(HasSubstr("Failed to validate")));
    EXPECT_THAT(line, ::testing::Not(HasSubstr("constraint")));
  }
}

TEST(JsonSchemaTest, LongOffendingValuesAreTruncated) {
  const std::string big(5000, 'q');
  auto v = Check({{"text", "x"}, {"kind", big}});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0], HasSubstr("(5000 characters)"));
  const auto got = v[0].substr(v[0].find(", got ") + 6);
  EXPECT_LE(got.find(" (5000"), 80u);
  auto obj = Check({{"text", json{{"k", big}}}});
  ASSERT_EQ(obj.size(), 1u);
  EXPECT_LT(obj[0].size(), 160u) << obj[0];
}

TEST(JsonSchemaTest, InvalidUtf8InValueDoesNotThrow) {
  std::vector<std::string> v;
  EXPECT_NO_THROW(v = Check({{"text", "x"}, {"kind", std::string("bad \xff")}}));
  ASSERT_EQ(v.size(), 1u);
  EXPECT_THAT(v[0], HasSubstr("kind: expected one of"));
}

TEST(JsonSchemaTest, RootTypeMismatch) {
  EXPECT_THAT(Check(json::array()), ElementsAre("(root): expected object, got array []"));
}

TEST(JsonSchemaTest, MalformedSchemaThrowsInvalidArgument) {
  EXPECT_THROW(JsonSchema(json{{"type", 5}}), std::invalid_argument);
}

TEST(JsonSchemaTest, JoinViolationsLimitsItems) {
  EXPECT_EQ(JoinViolations({"a", "b", "c"}, 2), "a; b; and 1 more");
  EXPECT_EQ(JoinViolations({"a"}), "a");
  EXPECT_EQ(JoinViolations({}), "");
}

}  // namespace
}  // namespace kioku::host

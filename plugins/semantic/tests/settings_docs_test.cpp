// config/kioku.yaml documents the semantic section with exactly the schema's defaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "documented_settings.hpp"
#include "semantic_plugin.hpp"

namespace kioku::semantic {
namespace {

TEST(SemanticSettings, KiokuYamlDocumentsTheSchemaDefaults) {
  EXPECT_THAT(testing::DocumentedSettingsProblems("semantic", SemanticPlugin::SettingsSchema()),
              ::testing::IsEmpty());
}

}  // namespace
}  // namespace kioku::semantic

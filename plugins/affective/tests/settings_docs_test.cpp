// config/kioku.yaml documents the affective section with exactly the schema's defaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "documented_settings.hpp"
#include "affective_plugin.hpp"

namespace kioku::affective {
namespace {

TEST(AffectiveSettings, KiokuYamlDocumentsTheSchemaDefaults) {
  EXPECT_THAT(testing::DocumentedSettingsProblems("affective", AffectivePlugin::SettingsSchema()),
              ::testing::IsEmpty());
}

}  // namespace
}  // namespace kioku::affective

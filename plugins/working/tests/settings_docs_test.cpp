// config/kioku.yaml documents the working section with exactly the schema's defaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "documented_settings.hpp"
#include "working_plugin.hpp"

namespace kioku::working {
namespace {

TEST(WorkingSettings, KiokuYamlDocumentsTheSchemaDefaults) {
  EXPECT_THAT(testing::DocumentedSettingsProblems("working", WorkingPlugin::SettingsSchema()),
              ::testing::IsEmpty());
}

}  // namespace
}  // namespace kioku::working

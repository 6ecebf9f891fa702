// config/kioku.yaml documents the episodic section with exactly the schema's defaults.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "documented_settings.hpp"
#include "episodic_plugin.hpp"

namespace kioku::episodic {
namespace {

TEST(EpisodicSettings, KiokuYamlDocumentsTheSchemaDefaults) {
  EXPECT_THAT(testing::DocumentedSettingsProblems("episodic", EpisodicPlugin::SettingsSchema()),
              ::testing::IsEmpty());
}

}  // namespace
}  // namespace kioku::episodic

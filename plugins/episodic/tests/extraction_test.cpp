// Extraction figures on the labelled sets (tests/data/extraction, generate.py).
#include <gtest/gtest.h>

#include "extraction_eval.hpp"

namespace kioku::episodic::testing {
namespace {

const std::filesystem::path kData = std::filesystem::path(EPISODIC_TEST_DATA) / "extraction";

TEST(Extraction, DevSetMeetsTheGoal) {
  const ExtractionFigures f = EvaluateExtraction(kData / "dev");
  SCOPED_TRACE(FormatFigures("dev", f, true));
  EXPECT_GE(f.durable, 30);
  EXPECT_GE(f.lookalikes, f.durable);
  EXPECT_GE(f.Recall(), 0.80);
  EXPECT_LE(f.LookalikeRate(), 0.03);
}

TEST(Extraction, HeldOutSetMeetsTheGoal) {
  const ExtractionFigures f = EvaluateExtraction(kData / "heldout");
  SCOPED_TRACE(FormatFigures("heldout", f, true));
  EXPECT_GE(f.lookalikes, f.durable);
  EXPECT_GE(f.Recall(), 0.80);
  EXPECT_LE(f.LookalikeRate(), 0.03);
}

}  // namespace
}  // namespace kioku::episodic::testing

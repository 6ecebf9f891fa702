// Prints the extraction figures of labelled transcript sets:
//   episodic_extraction_eval [-v] [dir ...]
// (default: the dev and heldout sets under tests/data/extraction).
#include <cstring>
#include <iostream>

#include "extraction_eval.hpp"

int main(int argc, char** argv) {
  bool verbose = false;
  std::vector<std::filesystem::path> dirs;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "-v") == 0) {
      verbose = true;
    } else {
      dirs.emplace_back(argv[i]);
    }
  }
  if (dirs.empty()) {
    dirs = {std::filesystem::path(EPISODIC_TEST_DATA) / "extraction" / "dev",
            std::filesystem::path(EPISODIC_TEST_DATA) / "extraction" / "heldout"};
  }
  for (const auto& d : dirs) {
    try {
      std::cout << kioku::episodic::testing::FormatFigures(
          d.filename().string(), kioku::episodic::testing::EvaluateExtraction(d), verbose);
    } catch (const std::exception& e) {
      std::cerr << d.string() << ": " << e.what() << "\n";
      return 1;
    }
  }
  return 0;
}

#pragma once
/// @file text_diff.hpp
/// A unified diff of two versions of one file, for `kioku init --dry-run`.

#include <string>

namespace kioku::host::cli {

/// One hunk covering every changed line (the common leading and trailing lines are cut,
/// three lines of context kept), in `diff -u` format with `label` as both file names.
/// "" when the texts are equal.
std::string UnifiedDiff(const std::string& label, const std::string& before, const std::string& after);

}  // namespace kioku::host::cli

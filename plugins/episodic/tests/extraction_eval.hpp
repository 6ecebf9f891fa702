#pragma once
/// @file extraction_eval.hpp
/// Scores the durable-statement extractor on a labelled directory of transcripts
/// (tests/data/extraction/{dev,heldout}: *.jsonl + labels.json, written by generate.py).
/// Each file is read with the real parsers (MakeParser), each human message goes through
/// FindDurableStatements, and every extraction is matched to the labels of the same
/// physical line: it matches a label when one normalized text (ASCII lowered, only letters
/// and digits kept, spaces collapsed) contains the other and the shorter holds at least
/// 60% of the longer's characters.
///   recall            durable labels matched / durable labels
///   look-alike rate   look-alike labels matched / look-alike labels
///   precision         extractions matching a durable label / extractions
///   kinds, pairs      among matched durable labels: kind equal; subject and value equal
///                     (subject as semantic normalizes it, value case-insensitively)

#include <filesystem>
#include <string>
#include <vector>

namespace kioku::episodic::testing {

struct ExtractionFigures {
  int files = 0;
  int durable = 0, durable_found = 0;
  int lookalikes = 0, lookalikes_found = 0;
  int extracted = 0, extracted_durable = 0;
  int kinds_ok = 0;
  int pairs_labelled = 0, pairs_found = 0, pairs_ok = 0;
  std::vector<std::string> missed;   ///< "file:line: text"
  std::vector<std::string> leaked;   ///< look-alikes captured, "file:line [class]: text"
  std::vector<std::string> extra;    ///< extractions matching no label
  std::vector<std::string> kind_errors, pair_errors;

  double Recall() const { return durable ? double(durable_found) / durable : 0; }
  double LookalikeRate() const { return lookalikes ? double(lookalikes_found) / lookalikes : 0; }
  double Precision() const { return extracted ? double(extracted_durable) / extracted : 1; }
};

/// Scores one split directory; throws std::runtime_error when labels.json is missing.
ExtractionFigures EvaluateExtraction(const std::filesystem::path& dir);

/// Multi-line report of `f` (figures first, then the lists when `verbose`).
std::string FormatFigures(const std::string& name, const ExtractionFigures& f, bool verbose);

}  // namespace kioku::episodic::testing

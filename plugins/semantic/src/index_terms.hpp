#pragma once
/// @file index_terms.hpp
/// The terms the word index holds for a text, from FTS5's own tokenizer, so rival
/// detection can tell without a query which terms a row of its write added (rival_cache.hpp
/// TermFilter). The tokenizer is the one semantic_fts is declared with (schema.cpp:
/// tokenize='porter unicode61 remove_diacritics 2'); index_terms_test checks the terms
/// against the index's own vocabulary.

#include <sqlite3.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kioku::semantic {

class IndexTokenizer {
 public:
  /// Throws std::runtime_error when the connection has no FTS5 or no porter tokenizer.
  explicit IndexTokenizer(sqlite3* db);
  ~IndexTokenizer();
  IndexTokenizer(const IndexTokenizer&) = delete;
  IndexTokenizer& operator=(const IndexTokenizer&) = delete;

  /// Appends every term of `text` as the index stores it (FTS5_TOKENIZE_DOCUMENT), in
  /// order, repeats included: "Handles requests" → handl, request.
  void Terms(std::string_view text, std::vector<std::string>& out);
  /// The one term the query `"token"` matches (FTS5_TOKENIZE_QUERY); nullopt when the
  /// token makes no term or several (then it is a phrase, matched only by a query).
  std::optional<std::string> QueryTerm(std::string_view token);

 private:
  void Tokenize(int flags, std::string_view text, std::vector<std::string>& out);
  fts5_tokenizer api_{};
  Fts5Tokenizer* tokenizer_ = nullptr;
};

}  // namespace kioku::semantic

#include "index_terms.hpp"

#include <stdexcept>

#include "kioku/sdk/fts_rank.hpp"

namespace kioku::semantic {
namespace {

int AddTerm(void* ctx, int, const char* token, int bytes, int, int) {
  static_cast<std::vector<std::string>*>(ctx)->emplace_back(token, static_cast<std::size_t>(bytes));
  return SQLITE_OK;
}

}  // namespace

IndexTokenizer::IndexTokenizer(sqlite3* db) {
  fts5_api* fts = sdk::Fts5Api(db);
  void* user = nullptr;
  if (fts == nullptr || fts->xFindTokenizer(fts, "porter", &user, &api_) != SQLITE_OK) {
    throw std::runtime_error("the word index's tokenizer (FTS5 porter) is not available");
  }
  // semantic_fts's tokenize= arguments after "porter" (schema.cpp kV1).
  const char* args[] = {"unicode61", "remove_diacritics", "2"};
  if (api_.xCreate(user, args, 3, &tokenizer_) != SQLITE_OK) {
    throw std::runtime_error("could not create the word index's tokenizer");
  }
}

IndexTokenizer::~IndexTokenizer() {
  if (tokenizer_ != nullptr) api_.xDelete(tokenizer_);
}

void IndexTokenizer::Tokenize(int flags, std::string_view text, std::vector<std::string>& out) {
  if (text.empty()) return;
  if (api_.xTokenize(tokenizer_, &out, flags, text.data(), static_cast<int>(text.size()), &AddTerm) != SQLITE_OK) {
    throw std::runtime_error("the word index's tokenizer failed");
  }
}

void IndexTokenizer::Terms(std::string_view text, std::vector<std::string>& out) {
  Tokenize(FTS5_TOKENIZE_DOCUMENT, text, out);
}

std::optional<std::string> IndexTokenizer::QueryTerm(std::string_view token) {
  std::vector<std::string> terms;
  Tokenize(FTS5_TOKENIZE_QUERY, token, terms);
  if (terms.size() != 1) return std::nullopt;
  return std::move(terms.front());
}

}  // namespace kioku::semantic

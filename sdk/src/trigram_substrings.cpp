#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "kioku/sdk/fts_rank.hpp"
#include "utf8_internal.hpp"

namespace kioku::sdk {
namespace {

constexpr const char* kName = "kioku_trigram_substrings";

// One trigram tokenizer (FTS5's, default options: case folded as a `tokenize='trigram'`
// table folds it) per connection, shared by every call of the function there.
class TrigramFolder {
 public:
  static std::unique_ptr<TrigramFolder> Create(fts5_api* api) {
    void* user = nullptr;
    fts5_tokenizer methods{};
    if (api->xFindTokenizer(api, "trigram", &user, &methods) != SQLITE_OK) return nullptr;
    Fts5Tokenizer* tokenizer = nullptr;
    if (methods.xCreate(user, nullptr, 0, &tokenizer) != SQLITE_OK) return nullptr;
    return std::unique_ptr<TrigramFolder>(new TrigramFolder(methods, tokenizer));
  }
  ~TrigramFolder() { methods_.xDelete(tokenizer_); }
  TrigramFolder(const TrigramFolder&) = delete;
  TrigramFolder& operator=(const TrigramFolder&) = delete;

  // `text` as the tokenizer reads it: its trigrams laid end to end (the first whole, then
  // the last character of each next one), so a text of n >= 3 characters folds to n
  // folded characters and a shorter one to "". A needle's trigram sequence occurs
  // contiguously in a row's iff its fold is a substring of the row's fold (UTF-8 matches
  // only at character boundaries).
  bool Fold(std::string_view text, std::string& out) const {
    out.clear();
    return methods_.xTokenize(tokenizer_, &out, FTS5_TOKENIZE_DOCUMENT, text.data(), static_cast<int>(text.size()),
                              &Append) == SQLITE_OK;
  }

 private:
  TrigramFolder(fts5_tokenizer methods, Fts5Tokenizer* tokenizer) : methods_(methods), tokenizer_(tokenizer) {}

  static int Append(void* out, int, const char* token, int bytes, int, int) {
    auto& folded = *static_cast<std::string*>(out);
    std::string_view gram(token, static_cast<std::size_t>(bytes));
    if (!folded.empty()) {
      std::size_t last = gram.size();
      while (last > 0 && (static_cast<unsigned char>(gram[last - 1]) & 0xC0) == 0x80) --last;
      gram = gram.substr(last > 0 ? last - 1 : 0);
    }
    folded.append(gram);
    return SQLITE_OK;
  }

  fts5_tokenizer methods_;
  Fts5Tokenizer* tokenizer_;
};

void TrigramSubstrings(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  const int needles = argc - 1;
  if (needles > kMaxMaskedPhrases) {
    sqlite3_result_null(ctx);
    return;
  }
  const auto* folder = static_cast<const TrigramFolder*>(sqlite3_user_data(ctx));
  const auto* row_text = reinterpret_cast<const char*>(sqlite3_value_text(argv[0]));
  std::string_view row(row_text == nullptr ? "" : row_text, static_cast<std::size_t>(sqlite3_value_bytes(argv[0])));
  row = row.substr(0, row.find('\0'));  // the tokenizer reads a text up to its first NUL
  // The row folded once: an ASCII row by lower-casing A–Z (all the tokenizer's folding
  // does to ASCII), any other through the tokenizer.
  thread_local std::string folded_row;
  folded_row.clear();
  if (detail::AsciiRunEnd(row, 0) == row.size()) {
    folded_row.resize(row.size());
    for (std::size_t i = 0; i < row.size(); ++i) folded_row[i] = detail::LowerAscii(row[i]);
  } else if (!folder->Fold(row, folded_row)) {
    sqlite3_result_error(ctx, "kioku_trigram_substrings: the trigram tokenizer failed", -1);
    return;
  }
  sqlite3_int64 mask = 0;
  for (int i = 0; i < needles; ++i) {
    // A needle's fold is kept with the statement while its argument is a constant (a bound
    // parameter), so a row costs one search per needle.
    const auto* folded = static_cast<const std::string*>(sqlite3_get_auxdata(ctx, i + 1));
    std::unique_ptr<std::string> fresh;
    if (folded == nullptr) {
      fresh = std::make_unique<std::string>();
      const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(argv[i + 1]));
      if (text != nullptr &&
          !folder->Fold(std::string_view(text, static_cast<std::size_t>(sqlite3_value_bytes(argv[i + 1]))), *fresh)) {
        sqlite3_result_error(ctx, "kioku_trigram_substrings: the trigram tokenizer failed", -1);
        return;
      }
      folded = fresh.get();
    }
    if (!folded->empty() && folded_row.find(*folded) != std::string::npos) mask |= sqlite3_int64{1} << i;
    // Last use: SQLite may free it at once (https://sqlite.org/c3ref/get_auxdata.html).
    if (fresh != nullptr) sqlite3_set_auxdata(ctx, i + 1, fresh.release(), [](void* p) { delete static_cast<std::string*>(p); });
  }
  sqlite3_result_int64(ctx, mask);
}

}  // namespace

bool RegisterTrigramSubstrings(sqlite3* db, fts5_api* api) {
  if (api == nullptr || api->iVersion < 2) return false;
  std::unique_ptr<TrigramFolder> folder = TrigramFolder::Create(api);
  if (folder == nullptr) return false;
  // SQLite owns the folder from here: it calls the destructor when the function is
  // replaced (registering again) or the connection closes, and also when registration fails.
  return sqlite3_create_function_v2(db, kName, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, folder.release(),
                                    &TrigramSubstrings, nullptr, nullptr,
                                    [](void* p) { delete static_cast<TrigramFolder*>(p); }) == SQLITE_OK;
}

}  // namespace kioku::sdk

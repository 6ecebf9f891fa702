#include "kioku/sdk/fts_rank.hpp"

#include <cmath>
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace kioku::sdk {
namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
constexpr const char* kName = "kioku_bm25";
constexpr const char* kPhrasesName = "kioku_phrases";
constexpr const char* kSubstringsName = "kioku_substrings";

// Per statement (xSetAuxdata): IDF per phrase and the average row length.
struct RankData {
  double avgdl = 0;
  std::vector<double> idf;
};

int CountRow(const Fts5ExtensionApi*, Fts5Context*, void* user) {
  ++*static_cast<std::int64_t*>(user);
  return SQLITE_OK;
}

int LoadData(const Fts5ExtensionApi* api, Fts5Context* fts, int n_val, sqlite3_value** args,
             RankData** out) {
  auto* data = static_cast<RankData*>(api->xGetAuxdata(fts, 0));
  if (data != nullptr) {
    *out = data;
    return SQLITE_OK;
  }
  sqlite3_int64 rows = 0;
  sqlite3_int64 tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  if (rc != SQLITE_OK) return rc;
  auto owned = new RankData;
  owned->avgdl = rows > 0 ? static_cast<double>(tokens) / static_cast<double>(rows) : 1.0;
  const int columns = api->xColumnCount(fts);
  const int phrases = api->xPhraseCount(fts);
  owned->idf.resize(static_cast<std::size_t>(phrases));
  for (int i = 0; i < phrases && rc == SQLITE_OK; ++i) {
    double df = -1;
    const int arg = columns + i;
    if (arg < n_val && sqlite3_value_type(args[arg]) != SQLITE_NULL) df = sqlite3_value_double(args[arg]);
    if (df < 0) {
      std::int64_t hits = 0;
      rc = api->xQueryPhrase(fts, i, &hits, CountRow);
      df = static_cast<double>(hits);
    }
    double idf = std::log((static_cast<double>(rows) - df + 0.5) / (df + 0.5));
    if (!(idf > 0.0)) idf = 1e-6;
    owned->idf[static_cast<std::size_t>(i)] = idf;
  }
  if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, owned, [](void* p) { delete static_cast<RankData*>(p); });
  else delete owned;
  if (rc == SQLITE_OK) *out = owned;
  return rc;
}

void KiokuBm25(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int n_val,
               sqlite3_value** args) {
  RankData* data = nullptr;
  int rc = LoadData(api, fts, n_val, args, &data);
  std::vector<double> freq;
  if (rc == SQLITE_OK) freq.assign(data->idf.size(), 0.0);
  int instances = 0;
  if (rc == SQLITE_OK) rc = api->xInstCount(fts, &instances);
  for (int i = 0; rc == SQLITE_OK && i < instances; ++i) {
    int phrase = 0, column = 0, offset = 0;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc != SQLITE_OK || phrase < 0 || static_cast<std::size_t>(phrase) >= freq.size()) continue;
    freq[static_cast<std::size_t>(phrase)] += column < n_val ? sqlite3_value_double(args[column]) : 1.0;
  }
  int row_tokens = 0;
  if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &row_tokens);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  const double norm = kK1 * (1 - kB + kB * static_cast<double>(row_tokens) / data->avgdl);
  double score = 0;
  for (std::size_t i = 0; i < freq.size(); ++i) {
    score += data->idf[i] * (freq[i] * (kK1 + 1.0)) / (freq[i] + norm);
  }
  sqlite3_result_double(ctx, -score);
}

void KiokuPhrases(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int, sqlite3_value**) {
  if (api->xPhraseCount(fts) > kMaxMaskedPhrases) {
    sqlite3_result_null(ctx);
    return;
  }
  int instances = 0;
  int rc = api->xInstCount(fts, &instances);
  sqlite3_int64 mask = 0;
  for (int i = 0; rc == SQLITE_OK && i < instances; ++i) {
    int phrase = 0, column = 0, offset = 0;
    rc = api->xInst(fts, i, &phrase, &column, &offset);
    if (rc == SQLITE_OK && phrase >= 0) mask |= sqlite3_int64{1} << phrase;
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_int64(ctx, mask);
}

// xTokenize callback: the tokens of a text in order (colocated synonyms skipped).
int CollectToken(void* out, int flags, const char* token, int bytes, int, int) {
  if ((flags & FTS5_TOKEN_COLOCATED) == 0) static_cast<std::vector<std::string>*>(out)->emplace_back(token, bytes);
  return SQLITE_OK;
}

int Tokens(const Fts5ExtensionApi* api, Fts5Context* fts, const char* text, int bytes, std::vector<std::string>* out) {
  out->clear();
  return text == nullptr ? SQLITE_OK : api->xTokenize(fts, text, bytes, out, CollectToken);
}

void KiokuSubstrings(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int n_val,
                     sqlite3_value** args) {
  if (n_val > kMaxMaskedPhrases) {
    sqlite3_result_null(ctx);
    return;
  }
  std::vector<std::vector<std::string>> needles(static_cast<std::size_t>(n_val));
  int rc = SQLITE_OK;
  for (int i = 0; i < n_val && rc == SQLITE_OK; ++i) {
    const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(args[i]));
    rc = Tokens(api, fts, text, sqlite3_value_bytes(args[i]), &needles[static_cast<std::size_t>(i)]);
  }
  sqlite3_int64 mask = 0;
  std::vector<std::string> row;
  for (int c = 0; c < api->xColumnCount(fts) && rc == SQLITE_OK; ++c) {
    const char* text = nullptr;
    int bytes = 0;
    rc = api->xColumnText(fts, c, &text, &bytes);
    if (rc == SQLITE_OK) rc = Tokens(api, fts, text, bytes, &row);
    for (std::size_t i = 0; rc == SQLITE_OK && i < needles.size(); ++i) {
      const std::vector<std::string>& n = needles[i];
      if (!n.empty() && std::search(row.begin(), row.end(), n.begin(), n.end()) != row.end()) {
        mask |= sqlite3_int64{1} << i;
      }
    }
  }
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_int64(ctx, mask);
}

}  // namespace

fts5_api* Fts5Api(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  // https://sqlite.org/fts5.html §7.1 "Custom Auxiliary Functions": the API pointer.
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) != SQLITE_OK) return nullptr;
  sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
  sqlite3_step(stmt);
  sqlite3_finalize(stmt);
  return api;
}

bool RegisterFtsRank(sqlite3* db) {
  fts5_api* api = Fts5Api(db);
  if (api == nullptr || api->iVersion < 2) return false;
  return api->xCreateFunction(api, kName, nullptr, &KiokuBm25, nullptr) == SQLITE_OK &&
         api->xCreateFunction(api, kPhrasesName, nullptr, &KiokuPhrases, nullptr) == SQLITE_OK &&
         api->xCreateFunction(api, kSubstringsName, nullptr, &KiokuSubstrings, nullptr) == SQLITE_OK &&
         RegisterTrigramSubstrings(db, api);
}

}  // namespace kioku::sdk

#pragma once
/// @file fts_rank.hpp
/// `kioku_bm25`, an FTS5 ranking function like FTS5's built-in bm25() that takes each
/// phrase's document frequency from the caller instead of counting it.
///
/// Why: bm25() computes every phrase's IDF by visiting every row the phrase matches
/// (fts5_aux.c, fts5Bm25GetData → xQueryPhrase), once per statement. For a term in most
/// rows (`ts` in `src/x/file1.ts`) that is O(rows) per query — ~5 ms at 100,000 rows even
/// when the query then returns ten. With the frequencies supplied (the caller counted them
/// under a bound, or estimated them from the density of the newest matches), ranking costs
/// O(rows ranked).
///
/// SQL: `kioku_bm25(<fts table>, w_1 … w_C, df_1 … df_P)` — C column weights as for bm25(),
/// then one document frequency per phrase of the MATCH expression, in the order the phrases
/// appear in it. A df that is missing, NULL or negative is counted as bm25() does. Returns
/// the same value as bm25() for the same frequencies: minus the Okapi BM25 score, so lower
/// is better (ORDER BY ascending).
///
/// Formula (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25 and Beyond",
/// 2009; constants and IDF floor as in SQLite's fts5_aux.c): k1 = 1.2, b = 0.75,
///   IDF(p)  = ln((N - df_p + 0.5) / (df_p + 0.5)), or 1e-6 when that is <= 0,
///   score   = Σ_p IDF(p) · f_p·(k1+1) / (f_p + k1·(1 - b + b·|D|/avgdl)),
/// where N = rows in the table, f_p = Σ over p's instances in the row of its column's weight,
/// |D| = tokens in the row, avgdl = tokens in the table / N.
///
/// `kioku_phrases(<fts table>)`: which phrases of the MATCH expression occur in the row, as
/// a bitmask (bit i = phrase i, in the order the phrases appear; from xInstCount/xInst, so
/// the table needs detail=full). NULL when the expression has more than 63 phrases. Lets a
/// caller learn from the rows it ranks which of them hold every word of a query, instead of
/// running an AND query of its own.
///
/// `kioku_substrings(<fts table>, s_1 … s_K)`: which of the texts s_i occur in the row, as a
/// bitmask (bit i-1 = s_i; NULL when K > 63). s_i occurs when the table's tokenizer turns it
/// into a token sequence that appears contiguously in one column of the row, as the same
/// tokenizer reads that column (xTokenize over xColumnText, so case folding is the
/// tokenizer's). Under the trigram tokenizer that is "s_i is a substring"; under unicode61
/// it is a phrase match. Works with any detail= option: with detail=none a MATCH can only
/// say the row holds every trigram of s_i (an AND of single-token queries), and this
/// verifies they are adjacent. A text the tokenizer turns into no token (under trigram:
/// fewer than 3 characters) never occurs. Cost: tokenizing the row's text once per call.
///
/// `kioku_trigram_substrings(text, s_1 … s_K)`: the same bitmask as kioku_substrings over a
/// `tokenize='trigram'` table, for a text outside any index (a row the substring index does
/// not hold yet): bit i-1 is set when s_i (>= 3 characters) is a substring of `text` with
/// case folded as FTS5's trigram tokenizer folds it (that tokenizer, found through
/// xFindTokenizer, folds every non-ASCII text and each needle once per statement; an ASCII
/// text is lower-cased directly, all that tokenizer does to ASCII). NULL when K > 63; a
/// NULL text holds nothing. Cost: one substring search per needle, ~100 ns for an ASCII
/// text of 80 bytes.

#include <sqlite3.h>

namespace kioku::sdk {

/// The most phrases kioku_phrases reports: the bits of a non-negative int64.
inline constexpr int kMaxMaskedPhrases = 63;

/// The connection's FTS5 API (https://sqlite.org/fts5.html §7.1, `SELECT fts5(?1)`): to
/// register functions or reach a tokenizer (xFindTokenizer). Null when it has no FTS5.
fts5_api* Fts5Api(sqlite3* db);

/// Registers kioku_bm25, kioku_phrases, kioku_substrings and kioku_trigram_substrings on one connection (sdk::OpenDatabase does it for every connection
/// it opens). Returns false when the connection has no FTS5. Safe to call more than once.
bool RegisterFtsRank(sqlite3* db);

/// Registers kioku_trigram_substrings on connection `db`, whose FTS5 API is `api` (Fts5Api;
/// RegisterFtsRank calls it). Returns false when `api` is null or has no trigram tokenizer.
bool RegisterTrigramSubstrings(sqlite3* db, fts5_api* api);

}  // namespace kioku::sdk

#include "highlights.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ostream>
#include <stdexcept>

#include <sqlite3.h>

#include "facets.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/secrets.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {
namespace {

using sdk::Json;

// What the model reads: the folded summaries, each cut to its share of this (~6,000 tokens
// in all, within a small local model's context).
constexpr std::size_t kPromptBytes = 24'000;
constexpr std::size_t kMinShareBytes = 600;
constexpr std::size_t kWhyBytes = 200;
constexpr int kDefaultRefineLimit = 20;

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool IsLower(char c) { return std::islower(static_cast<unsigned char>(c)) != 0; }
bool IsUpper(char c) { return std::isupper(static_cast<unsigned char>(c)) != 0; }

// Code-looking tokens a model might invent. Prose words (including hyphenated ones, "and/or",
// "e.g.", version numbers and names like "JavaScript") are not: a false positive only costs
// the abstract, but every one makes the feature less useful.
bool IsIdentifierLike(std::string_view t) {
  if (LooksLikePath(t)) return true;
  if (t.find('_') != std::string_view::npos || t.find("::") != std::string_view::npos ||
      t.find("()") != std::string_view::npos) {
    return std::any_of(t.begin(), t.end(), IsAlnum);
  }
  // Two or more slashes: a directory path without an extension (apps/api/src).
  if (std::count(t.begin(), t.end(), '/') >= 2) return true;
  // a.b with two or more characters each side and a letter somewhere (config.loader, not
  // "e.g" or "3.14").
  const bool has_letter = std::any_of(t.begin(), t.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; });
  for (std::size_t i = 2; has_letter && i + 2 < t.size(); ++i) {
    if (t[i] == '.' && IsAlnum(t[i - 2]) && IsAlnum(t[i - 1]) && IsAlnum(t[i + 1]) && IsAlnum(t[i + 2])) return true;
  }
  // camelCase: a lower-case start with a capital inside (getUser), or two humps (getUserById;
  // "JavaScript" and "PostgreSQL" have one).
  int humps = 0;
  for (std::size_t i = 1; i < t.size(); ++i) humps += IsLower(t[i - 1]) && IsUpper(t[i]);
  return (humps >= 1 && IsLower(t[0])) || humps >= 2;
}

// The abstract's tokens with surrounding punctuation removed; `quoted` marks `backticked` ones.
struct Token {
  std::string text;
  bool quoted = false;
};

std::vector<Token> Tokens(std::string_view text) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    std::size_t j = i;
    while (j < text.size() && text[j] != ' ') ++j;
    std::string_view w = text.substr(i, j - i);
    i = j;
    const bool quoted = w.find('`') != std::string_view::npos;
    auto strip = [](char c) { return std::string_view("`\"'()[]{}<>,;:!?.*").find(c) != std::string_view::npos; };
    while (!w.empty() && strip(w.front())) w.remove_prefix(1);
    // A trailing "()" is part of a call (`parse()`); other trailing punctuation is prose.
    while (!w.empty() && strip(w.back()) && !(w.size() > 2 && w.substr(w.size() - 2) == "()")) w.remove_suffix(1);
    if (!w.empty()) out.push_back({std::string(w), quoted});
  }
  return out;
}

Json AnswerSchema() {
  // Strict structured outputs accept no length keywords; the budget is checked after.
  return {{"type", "object"},
          {"properties", {{"abstract", {{"type", "string"}}}}},
          {"required", {"abstract"}},
          {"additionalProperties", false}};
}

sdk::ChatRequest BuildRequest(const std::vector<Summary>& folded, std::int64_t highlight_tokens) {
  // EstimateTokens is bytes / 4 and an English word with its space is ~6 bytes.
  const std::int64_t words = std::clamp<std::int64_t>(highlight_tokens * 2 / 3, 10, 250);
  sdk::ChatRequest r;
  r.schema_name = "abstract";
  r.json_schema = AnswerSchema();
  r.max_tokens = static_cast<int>(std::min<std::int64_t>(highlight_tokens + 64, 4096));
  r.messages.push_back(
      {"system",
       "You write the narrative of a coding session's earlier summaries: what was worked on, "
       "what was found and how it went, as plain prose of at most " + std::to_string(words) +
           " words. Decisions, open items and files are listed separately: do not list them. "
           "Use only what the summaries say; write a file name or identifier only exactly as it "
           "appears in them. Answer with the JSON object only."});
  const std::size_t share = std::max(kMinShareBytes, kPromptBytes / std::max<std::size_t>(folded.size(), 1));
  std::string user = "Summaries, oldest first:\n";
  for (std::size_t i = 0; i < folded.size(); ++i) {
    const Summary& s = folded[i];
    user += "[" + std::to_string(i + 1) + "] " + sdk::FormatRfc3339(s.started_at) + " to " +
            sdk::FormatRfc3339(s.ended_at) + ": " + sdk::TruncateUtf8(sdk::CollapseWhitespace(s.text), share) + "\n";
  }
  r.messages.push_back({"user", std::move(user)});
  return r;
}

HighlightsOutcome Kept(std::string why) {
  HighlightsOutcome o;
  o.attempted = true;
  o.kept_because = sdk::TruncateUtf8(sdk::CollapseWhitespace(why), kWhyBytes);
  return o;
}

int RunRefine(ToolContext& env, const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  static constexpr const char* kUsage = "usage: kioku summaries refine [--limit N]\n";
  int limit = kDefaultRefineLimit;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--help" || args[i] == "-h") {
      out << kUsage;
      return 0;
    }
    if (args[i] == "--limit" && i + 1 < args.size()) {
      char* end = nullptr;
      const long n = std::strtol(args[++i].c_str(), &end, 10);
      if (end != nullptr && *end == '\0' && n >= 1 && n <= 100'000) {
        limit = static_cast<int>(n);
        continue;
      }
    }
    err << "kioku summaries refine: bad argument '" << sdk::TruncateUtf8(args[i], 80) << "' (--limit takes 1-100000)\n"
        << kUsage;
    return 2;
  }
  sdk::ChatModel* chat = env.host.GetChatModel();
  if (chat == nullptr) {
    err << "kioku summaries refine: no chat model: set providers.chat {url, model} in kioku.yaml\n";
    return 1;
  }
  SQLite::Database& db = env.host.Db();
  const std::vector<std::string> ids = UnrefinedConsolidated(db, limit);
  int refined = 0;
  for (const std::string& id : ids) {
    const HighlightsOutcome o = RefineHighlights(db, *chat, env.settings, id);
    if (!o.model.empty()) ++refined;
    out << id << ": " << (o.model.empty() ? "kept extractive highlights: " + o.kept_because : "highlights by " + o.model)
        << "\n";
  }
  out << "refined " << refined << " of " << ids.size() << " consolidated summaries\n";
  return 0;
}

}  // namespace

std::string HighlightBullets(std::string_view abstract) {
  std::string out;
  for (const std::string& sentence : SplitSentences(abstract)) out += (out.empty() ? "- " : "\n- ") + sentence;
  return out;
}

std::string CheckAbstract(std::string_view abstract, const std::vector<Summary>& folded,
                          std::int64_t highlight_tokens) {
  if (abstract.empty()) return "the abstract is empty";
  const auto tokens = static_cast<std::int64_t>(sdk::EstimateTokens(abstract));
  if (tokens > highlight_tokens) {
    return "the abstract has " + std::to_string(tokens) + " tokens, over highlight_tokens (" +
           std::to_string(highlight_tokens) + ")";
  }
  if (const auto secret = sdk::FindSecret(abstract)) {
    return "the abstract contains what looks like a secret (" + secret->kind + ")";
  }
  // Read back as facets (a later fold, session_timeline), a labelled bullet ("Decision: …",
  // "TODO: …", "[ ] …") would turn the model's words into a decision or open item.
  const Facets read_back = ExtractFacets(std::string(kHighlightsHeader) + "\n" + HighlightBullets(abstract));
  if (!read_back.decisions.empty() || !read_back.open_items.empty()) {
    return "`" + sdk::TruncateUtf8(read_back.decisions.empty() ? read_back.open_items[0] : read_back.decisions[0], 80) +
           "` would read as " + (read_back.decisions.empty() ? "an open item" : "a decision");
  }
  for (const Token& t : Tokens(abstract)) {
    if (!t.quoted && !IsIdentifierLike(t.text)) continue;
    const bool known = std::any_of(folded.begin(), folded.end(), [&](const Summary& s) {
      return s.text.find(t.text) != std::string::npos;
    });
    if (!known) return "it names `" + sdk::TruncateUtf8(t.text, 80) + "`, which no folded summary mentions";
  }
  return "";
}

HighlightsOutcome RefineHighlights(SQLite::Database& db, sdk::ChatModel& chat, const Settings& settings,
                                   std::string_view consolidated_id) {
  // Invariant, not input: a caller inside a transaction would hold the lock over the call.
  if (sqlite3_get_autocommit(db.getHandle()) == 0) {
    throw std::logic_error("RefineHighlights called inside a transaction");
  }
  const std::optional<Summary> s = LoadSummary(db, consolidated_id);
  if (!s || s->kind != "consolidated" || s->status != "active") return Kept("the summary is no longer active");
  if (!s->highlights_model.empty()) return Kept("already written by " + s->highlights_model);
  if (settings.highlight_tokens <= 0) return Kept("highlight_tokens is 0");
  const std::vector<Summary> folded = FoldedInto(db, consolidated_id);
  if (folded.empty()) return Kept("no folded summaries to read");

  const sdk::ChatResult r = chat.Complete(BuildRequest(folded, settings.highlight_tokens));
  if (!r.ok()) {
    return Kept((r.kind == sdk::ChatError::kInvalidAnswer ? "invalid answer: " : "model unavailable: ") + r.error);
  }
  const auto it = r.json.is_object() ? r.json.find("abstract") : r.json.end();
  if (it == r.json.end() || !it->is_string()) return Kept("invalid answer: no \"abstract\" string");
  const std::string abstract = sdk::CollapseWhitespace(it->get<std::string>());
  if (std::string why = CheckAbstract(abstract, folded, settings.highlight_tokens); !why.empty()) {
    return Kept("rejected: " + why);
  }
  const std::string text = ReplaceHighlights(s->text, HighlightBullets(abstract));
  const std::string model = chat.Model();
  bool wrote = false;
  sdk::WithWriteTransaction(db, [&] { wrote = ReplaceConsolidatedText(db, s->id, s->text, text, model); });
  if (!wrote) return Kept("the summary changed while the model answered");
  HighlightsOutcome o;
  o.attempted = true;
  o.model = model;
  return o;
}

HighlightsOutcome RefineAfterCompaction(ToolContext& env, const CompactionOutcome& compaction) {
  if (!compaction.compacted || !env.settings.model_highlights) return {};
  sdk::ChatModel* chat = env.host.GetChatModel();
  if (chat == nullptr) return Kept("no chat model (providers.chat)");
  return RefineHighlights(env.host.Db(), *chat, env.settings, compaction.consolidated_id);
}

sdk::CommandSpec RefineCommand(ToolContext& env) {
  sdk::CommandSpec cmd;
  cmd.name = "summaries refine";
  cmd.summary = "Have the chat model write the highlights of consolidated summaries the hooks folded";
  cmd.usage =
      "usage: kioku summaries refine [--limit N]\n"
      "Refines every active consolidated summary whose highlights no model wrote yet, oldest\n"
      "first, at most N (default 20): the model (providers.chat) writes a short abstract of the\n"
      "folded summaries; an answer with a secret, over compaction.highlight_tokens or naming a\n"
      "file or identifier the summaries do not keeps the extractive highlights. Decisions, open\n"
      "items and files are never rewritten. Safe to repeat (cron): refined ones are skipped.\n";
  cmd.run = [&env](const std::vector<std::string>& args, std::istream&, std::ostream& out, std::ostream& err) {
    return RunRefine(env, args, out, err);
  };
  return cmd;
}

}  // namespace kioku::episodic

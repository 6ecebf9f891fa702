#include "compaction.hpp"

#include <algorithm>
#include <set>

#include <SQLiteCpp/Statement.h>

#include "tool_support.hpp"
#include "facets.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/ids.hpp"
#include "kioku/sdk/sql.hpp"
#include "kioku/sdk/text.hpp"

namespace kioku::episodic {

std::string BuildConsolidatedText(const std::vector<Summary>& folded,
                                  std::int64_t highlight_tokens) {
  std::vector<std::string> decisions, open_items, files;
  std::set<std::string> seen_d, seen_o, seen_f;
  std::vector<std::vector<std::string>> highlights;
  std::int64_t from = 0, to = 0;
  for (std::size_t i = 0; i < folded.size(); ++i) {
    const Summary& s = folded[i];
    if (i == 0 || s.started_at < from) from = s.started_at;
    if (i == 0 || s.ended_at > to) to = s.ended_at;
    Facets f = ExtractFacets(s.text);
    for (auto& d : f.decisions) {
      if (seen_d.insert(NormalizeKey(d)).second) decisions.push_back(d);
    }
    for (auto& o : f.open_items) {
      if (seen_o.insert(NormalizeKey(o)).second) open_items.push_back(o);
    }
    for (auto& p : f.files) {
      if (seen_f.insert(p).second) files.push_back(p);
    }
    highlights.push_back(std::move(f.highlights));
  }

  std::string out = "Consolidated from " + std::to_string(folded.size()) + " summaries, " +
                    sdk::FormatRfc3339(from) + " to " + sdk::FormatRfc3339(to) + "\n";
  if (!decisions.empty()) {
    out += "Decisions:\n";
    for (auto& d : decisions) out += "- " + d + "\n";
  }
  if (!open_items.empty()) {
    out += "Open items:\n";
    for (auto& o : open_items) out += "- " + o + "\n";
  }
  if (!files.empty()) {
    out += "Files touched: ";
    for (std::size_t i = 0; i < files.size(); ++i) out += (i ? ", " : "") + files[i];
    out += "\n";
  }
  // Highlights round-robin: the first sentence of every folded summary before any second
  // sentence, so an early summary cannot crowd out the later ones.
  std::string hl;
  std::set<std::string> seen_h;
  std::int64_t used = 0;
  bool more = true;
  for (std::size_t round = 0; more; ++round) {
    more = false;
    for (auto& list : highlights) {
      if (round >= list.size()) continue;
      more = true;
      const std::string& h = list[round];
      // Our own header line is bookkeeping, not content.
      if (h.rfind("Consolidated from ", 0) == 0) continue;
      if (!seen_h.insert(NormalizeKey(h)).second) continue;
      const auto cost = static_cast<std::int64_t>(sdk::EstimateTokens(h) + 1);
      if (used + cost > highlight_tokens) {
        more = false;
        break;
      }
      used += cost;
      hl += "- " + h + "\n";
    }
  }
  if (!hl.empty()) out += std::string(kHighlightsHeader) + "\n" + hl;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string ReplaceHighlights(std::string_view consolidated, std::string_view highlights) {
  // Decisions and open items are "- " bullets and the files line has its own label, so a
  // line that is exactly the header can only be the highlights section's.
  const std::string marker = "\n" + std::string(kHighlightsHeader) + "\n";
  const std::size_t at = consolidated.find(marker);
  std::string out(consolidated.substr(0, at));
  out += marker;
  out += highlights;
  return out;
}

CompactionOutcome CompactSession(SQLite::Database& db, std::string_view session_id,
                                 const Settings& settings, std::int64_t now_ms) {
  CompactionOutcome outcome;
  std::vector<Summary> active = ActiveSummaries(db, session_id);
  for (auto& s : active) outcome.tokens_before += s.token_count;
  outcome.tokens_after = outcome.tokens_before;
  if (outcome.tokens_before <= settings.session_token_budget || active.size() < 2) {
    return outcome;
  }
  const auto keep_budget = static_cast<std::int64_t>(
      static_cast<double>(settings.session_token_budget) * settings.keep_recent_fraction);
  std::size_t split = active.size();  // active[split..] are kept
  std::int64_t kept = 0;
  while (split > 0 && kept + active[split - 1].token_count <= keep_budget) {
    kept += active[split - 1].token_count;
    --split;
  }
  if (split < 2) split = std::min<std::size_t>(2, active.size());
  std::vector<Summary> fold(active.begin(), active.begin() + static_cast<std::ptrdiff_t>(split));

  Summary c;
  c.session_id = std::string(session_id);
  c.kind = "consolidated";
  c.method = "extractive";
  c.text = BuildConsolidatedText(fold, settings.highlight_tokens);
  c.token_count = static_cast<std::int64_t>(sdk::EstimateTokens(c.text));
  c.created_at = now_ms;
  c.started_at = fold.front().started_at;
  c.ended_at = fold.front().ended_at;
  for (auto& s : fold) {
    c.started_at = std::min(c.started_at, s.started_at);
    c.ended_at = std::max(c.ended_at, s.ended_at);
    c.message_count += s.message_count;
    if (!s.model.empty()) c.model = s.model;  // newest non-empty wins
    if (!s.agent_id.empty()) c.agent_id = s.agent_id;
  }
  c.id = sdk::NewId(now_ms);
  InsertSummary(db, c);
  SQLite::Statement mark(db,
                         "UPDATE episodic_summaries SET status = 'folded', folded_into = ?, source_key = NULL "
                         "WHERE id = ? AND status = 'active'");
  for (auto& s : fold) {
    sdk::Bind(mark, c.id, s.id);
    mark.exec();
    mark.reset();
    outcome.folded_ids.push_back(s.id);
  }
  outcome.compacted = true;
  outcome.consolidated_id = c.id;
  outcome.tokens_after = ActiveSummaryTokens(db, session_id);
  return outcome;
}

}  // namespace kioku::episodic

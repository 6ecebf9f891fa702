#include "context/context_block.hpp"

#include <algorithm>

#include "logging.hpp"
#include "runtime.hpp"

#include "kioku/sdk/text.hpp"

namespace kioku::host {
namespace {

struct Ranked {
  sdk::ContextItem item;
  std::size_t order;  // provider order, then the provider's own order
};

std::string Line(const sdk::ContextItem& item) {
  std::string text = sdk::TruncateUtf8(sdk::CollapseWhitespace(sdk::SanitizeUtf8(item.text)),
                                       sdk::kMaxContextItemBytes);
  std::string label = sdk::CollapseWhitespace(item.kind.empty() ? "note" : item.kind);
  if (!item.trust.empty()) label += "|" + sdk::CollapseWhitespace(item.trust);
  return "- [" + sdk::TruncateUtf8(label, 60) + "] " + text + "\n";
}

std::string Footer(const std::vector<sdk::ContextWithheld>& withheld) {
  std::string parts;
  for (const auto& w : withheld) {
    if (w.count <= 0) continue;
    parts += (parts.empty() ? "" : ", ") + std::to_string(w.count) + " " + w.reason;
  }
  if (parts.empty()) return {};
  return "— withheld: " + parts + " (memory_recall and the layers' list tools show more)\n";
}

void AddWithheld(std::vector<sdk::ContextWithheld>& into, const sdk::ContextWithheld& w) {
  if (w.count <= 0 || w.reason.empty()) return;
  for (auto& existing : into) {
    if (existing.reason == w.reason) {
      existing.count += w.count;
      return;
    }
  }
  into.push_back(w);
}

}  // namespace

ContextBlock BuildContext(Runtime& runtime, const sdk::Caller& caller, const ContextOptions& options) {
  ContextBlock block;
  sdk::ContextRequest request;
  request.caller = caller;
  request.query = sdk::TruncateUtf8(sdk::SanitizeUtf8(options.query), 2000, "");
  request.now_ms = runtime.Clock().NowMs();
  const std::size_t cap = std::min({options.max_chars, kContextMaxChars, options.token_budget * 4});
  // Enough items that the budget, not a count, decides (an item line is rarely < 80 bytes).
  request.max_items = std::clamp<std::size_t>(cap / 80, 4, 100);

  std::vector<Ranked> items;
  for (const auto& provider : runtime.ContextProviders()) {
    try {
      sdk::ContextContribution c = provider.provide(request);
      const std::size_t n = std::min(c.items.size(), std::max<std::size_t>(request.max_items, 1));
      for (std::size_t i = 0; i < n; ++i) {
        if (sdk::CollapseWhitespace(c.items[i].text).empty()) continue;
        items.push_back({std::move(c.items[i]), items.size()});
      }
      for (const auto& w : c.withheld) AddWithheld(block.withheld, w);
    } catch (const std::exception& e) {
      block.failed.push_back(provider.name + ": " + e.what());
      MakeLogger("host")->Warn("context provider of plugin '" + provider.name + "' failed: " + e.what());
    }
  }
  if (items.empty()) return block;
  std::stable_sort(items.begin(), items.end(), [](const Ranked& a, const Ranked& b) {
    return a.item.priority > b.item.priority;
  });

  // "verify unconfirmed items" only when some item is one (a suggestion, a contest, a
  // model's synthesis): said of a block of confirmed facts it reads as a warning about them.
  const bool unconfirmed = std::any_of(items.begin(), items.end(), [](const Ranked& r) {
    return r.item.trust == "unconfirmed" || r.item.trust == "contested" || r.item.trust == "derived";
  });
  const std::string header = request.query.empty()
                                 ? std::string("kioku memory for this project (labels: [kind|trust]") +
                                       (unconfirmed ? "; verify unconfirmed items" : "") + "):\n"
                                 : "kioku memory relevant to this prompt (labels: [kind|trust]):\n";
  // Room for the footer is kept back up front: its final length is known only at the end,
  // and a block over the cap is never acceptable.
  std::vector<sdk::ContextWithheld> worst = block.withheld;
  AddWithheld(worst, {"cut by the budget", static_cast<int>(items.size())});
  const std::size_t reserve = Footer(worst).size();
  std::size_t used = header.size() + reserve;
  std::string body;
  for (const Ranked& r : items) {
    std::string line = Line(r.item);
    if (used + line.size() > cap) {
      ++block.cut;
      continue;
    }
    used += line.size();
    body += line;
    ++block.shown;
  }
  if (block.shown == 0) {
    block.cut = 0;
    return block;  // a header alone is filler
  }
  AddWithheld(block.withheld, {"cut by the budget", static_cast<int>(block.cut)});
  block.text = header + body + Footer(block.withheld);
  return block;
}

}  // namespace kioku::host

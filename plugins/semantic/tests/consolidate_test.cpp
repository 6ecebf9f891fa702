// Consolidation: the tool's dry run and apply, and cluster quality and run time on a
// generated store of 10,000 memories with known duplicates.
#include <algorithm>
#include <chrono>
#include <iostream>
#include <random>
#include <set>

#include "consolidate.hpp"
#include "kioku/sdk/clock.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/json.hpp"
#include "memory_store.hpp"
#include "schema.hpp"
#include "semantic_test_util.hpp"

namespace kioku::semantic {
namespace {

using testing::SemanticTest;
using Json = nlohmann::json;

class ConsolidateToolTest : public SemanticTest {};

TEST_F(ConsolidateToolTest, DryRunListsThenApplyKeepsPinnedElseMostConfident) {
  const std::string a = Remember("Run the linter before every commit", "preference");
  const std::string b = Remember("Before every commit, run the linter", "preference", {{"confidence", 0.6}});
  const std::string c = Remember("The linter runs before every commit", "preference", {{"confidence", 0.9}});
  const std::string other = Remember("Keep pull requests small", "preference");
  const std::string fact = Remember("Run the linter before every commit", "fact");  // another kind

  const std::string before = Snapshot();
  const Json dry = Ok("memory_consolidate", Json::object());
  EXPECT_EQ(before, Snapshot());  // dry run changes nothing
  ASSERT_EQ(dry["total"], 1) << dry.dump();
  EXPECT_EQ(dry["clusters"][0]["keep"], a);  // confidence 1.0
  EXPECT_EQ(dry["clusters"][0]["members"].size(), 3u);

  Ok("memory_pin", {{"id", b}});
  const Json applied = Ok("memory_consolidate", {{"apply", true}});
  EXPECT_EQ(applied["superseded"], 2);
  EXPECT_EQ(applied["clusters"][0]["keep"], b);  // pinned wins
  for (const std::string& id : {a, c}) {
    const Json m = Ok("memory_get", {{"id", id}})["memory"];
    EXPECT_EQ(m["status"], "superseded");
    EXPECT_EQ(m["superseded_by"], b);
  }
  EXPECT_EQ(Count("semantic_memory_history", "action = 'consolidated'"), 2);
  EXPECT_EQ(Count("semantic_memories"), 5);  // never hard-deletes
  EXPECT_EQ(Ok("memory_get", {{"id", other}})["memory"]["status"], "active");
  EXPECT_EQ(Ok("memory_get", {{"id", fact}})["memory"]["status"], "active");
}

TEST_F(ConsolidateToolTest, ContradictingValuesAreNotMerged) {
  Remember("Node version is 18 for the API server", "fact");
  Remember("Node version is 20 for the API server", "fact");
  EXPECT_EQ(Ok("memory_consolidate", Json::object())["total"], 0);
}

// Issue 9 "every result is bounded": a store full of restatements lists what fits under the
// host's cap (48 KiB in tests), counts the rest and says how to narrow; before, the clusters
// went out whole and the host refused the result.
TEST_F(ConsolidateToolTest, ManyLargeClustersFitTheResultCap) {
  const std::vector<std::string> extra = {"always", "please", "first", "carefully", "locally", "quickly", "again", "today"};
  Json batch = Json::array();
  auto flush = [&] {
    if (batch.empty()) return;
    const auto r = Call("memory_remember", {{"memories", batch}});
    ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
    batch = Json::array();
  };
  for (int topic = 0; topic < 40; ++topic) {  // 40 clusters of 28 restatements each
    std::string base = "run the linter before every commit";
    for (const char* w : {" alpha", " bravo", " carol", " delta", " echo", " foxtrot"}) base += w + std::to_string(topic);
    for (std::size_t a = 0; a < extra.size(); ++a) {
      for (std::size_t b = a + 1; b < extra.size(); ++b) {
        batch.push_back({{"text", base + " " + extra[a] + " " + extra[b]}, {"kind", "preference"}});
        if (batch.size() == 100) flush();
      }
    }
  }
  flush();
  const sdk::ToolResult r = Call("memory_consolidate", {{"limit", 100}});
  ASSERT_FALSE(r.is_error) << r.text.substr(0, 300);
  EXPECT_LE(r.text.size() + sdk::DumpJson(r.structured).size(), 48u * 1024);
  const std::size_t shown = r.structured["clusters"].size();
  EXPECT_GT(shown, 0u);
  EXPECT_EQ(shown + r.structured["omitted"].get<std::size_t>(), r.structured["total"].get<std::size_t>());
  EXPECT_GT(r.structured["omitted"].get<std::size_t>(), 0u) << r.structured["total"];
  EXPECT_NE(r.text.find("narrow with kind"), std::string::npos);
}

// ---- generated store --------------------------------------------------------------------

std::vector<std::string> Vocabulary(std::mt19937& rng, std::size_t n) {
  const std::string consonants = "bdfgklmnprtvz";
  const std::string vowels = "aeiou";
  std::set<std::string> words;
  std::uniform_int_distribution<std::size_t> c(0, consonants.size() - 1), v(0, vowels.size() - 1);
  while (words.size() < n) {
    std::string w;
    for (int s = 0; s < 3; ++s) w += std::string(1, consonants[c(rng)]) + vowels[v(rng)];
    words.insert(w);
  }
  return {words.begin(), words.end()};
}

std::string Join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

TEST(ConsolidateGenerated, TenThousandMemoriesWithKnownDuplicates) {
  SQLite::Database db(":memory:", SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  db.exec("PRAGMA foreign_keys = ON");
  ApplyMigrations(db);
  sdk::ManualClock clock;
  const Settings settings;
  sdk::StatementCache statements;
  Env env{db, clock, settings, statements};

  std::mt19937 rng(14);
  const std::vector<std::string> vocab = Vocabulary(rng, 4000);
  std::uniform_int_distribution<std::size_t> pick(0, vocab.size() - 1);
  const auto sentence = [&] {
    std::set<std::string> s;
    while (s.size() < 6) s.insert(vocab[pick(rng)]);
    return std::vector<std::string>(s.begin(), s.end());
  };
  struct Gen {
    std::string text, kind;
    int group;  // -1 = singleton
  };
  std::vector<Gen> gen;
  int group = 0;
  const std::vector<std::string> kinds = {"fact", "decision"};
  while (gen.size() < 4500) {  // duplicate groups of 2–4 restatements
    const std::vector<std::string> base = sentence();
    const std::string kind = kinds[group % 2];
    const int size = 2 + group % 3;
    for (int k = 0; k < size; ++k) {
      std::vector<std::string> words = base;
      if (k > 0) {
        if (k % 2 == 1) words.erase(words.begin() + static_cast<long>(rng() % words.size()));
        if (k >= 2) words.push_back(vocab[pick(rng)]);
        std::shuffle(words.begin(), words.end(), rng);
      }
      gen.push_back({Join(words), kind, group});
    }
    ++group;
  }
  while (gen.size() < 10000) gen.push_back({Join(sentence()), kinds[gen.size() % 2], -1});

  std::vector<std::string> ids;
  WithMemoryWriter(env, [&](MemoryWriter& writer) {
    ids.clear();
    for (const Gen& g : gen) {
      clock.Advance(1000);
      MemoryDraft d;
      d.text = g.text;
      d.kind = g.kind;
      ids.push_back(writer.Remember(d, Author{"gen", ""}).id);
    }
  });
  ASSERT_EQ(ids.size(), 10000u);
  std::map<std::string, int> group_of;
  for (std::size_t i = 0; i < gen.size(); ++i) group_of[ids[i]] = gen[i].group;

  const auto started = std::chrono::steady_clock::now();
  const ConsolidateReport r = Consolidate(env, Viewer{}, ConsolidateOptions{}, "test");
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();

  std::size_t predicted = 0, correct = 0;
  for (const Cluster& c : r.clusters) {
    for (std::size_t i = 0; i < c.members.size(); ++i) {
      for (std::size_t j = i + 1; j < c.members.size(); ++j) {
        ++predicted;
        const int gi = group_of[c.members[i]];
        correct += gi >= 0 && gi == group_of[c.members[j]];
      }
    }
  }
  std::size_t truth = 0;
  std::map<int, int> sizes;
  for (const Gen& g : gen) {
    if (g.group >= 0) ++sizes[g.group];
  }
  for (const auto& [g, n] : sizes) truth += static_cast<std::size_t>(n * (n - 1) / 2);
  const double precision = predicted ? static_cast<double>(correct) / predicted : 0;
  const double recall = static_cast<double>(correct) / truth;
  std::cout << "consolidation on 10000 memories (" << sizes.size() << " duplicate groups): " << r.clusters.size()
            << " clusters, " << r.candidate_pairs << " LSH candidate pairs, pair precision " << precision
            << ", pair recall " << recall << ", " << ms << " ms\n";
  EXPECT_GE(precision, 0.95);
  EXPECT_GE(recall, 0.9);
  EXPECT_LT(r.candidate_pairs, 200000);  // far from the 50 million of all pairs

  ConsolidateOptions apply;
  apply.apply = true;
  ConsolidateReport applied;
  sdk::WithWriteTransaction(db, [&] { applied = Consolidate(env, Viewer{}, apply, "test"); });
  std::size_t losers = 0;
  for (const Cluster& c : applied.clusters) losers += c.members.size() - 1;
  EXPECT_EQ(static_cast<std::size_t>(applied.superseded), losers);
  SQLite::Statement n(db, "SELECT COUNT(*) FROM semantic_memories");
  n.executeStep();
  EXPECT_EQ(n.getColumn(0).getInt(), 10000);
}

}  // namespace
}  // namespace kioku::semantic

// Export → import → export across all five layers, idempotence, and refusals that leave
// the database as it was.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

#include <map>

#include <SQLiteCpp/SQLiteCpp.h>

#include "data/data_export.hpp"
#include "kioku/sdk/ids.hpp"
#include "test_runtime.hpp"

#include "affective_plugin.hpp"
#include "episodic_plugin.hpp"
#include "procedural_plugin.hpp"
#include "semantic_plugin.hpp"
#include "working_plugin.hpp"

namespace kioku {
namespace {

using nlohmann::json;

void AddAll(testing::TestRuntime& rt) {
  rt.Add<working::WorkingPlugin>("working");
  rt.Add<episodic::EpisodicPlugin>("episodic");
  rt.Add<semantic::SemanticPlugin>("semantic");
  rt.Add<procedural::ProceduralPlugin>("procedural");
  rt.Add<affective::AffectivePlugin>("affective");
  rt.Start();
}

sdk::ToolResult Ok(testing::TestRuntime& rt, const std::string& tool, const json& args) {
  auto r = rt.Call(tool, args);
  EXPECT_FALSE(r.is_error) << tool << ": " << r.text;
  return r;
}

// Something in every layer, including history, supersession, relations and outcomes.
void Populate(testing::TestRuntime& rt, const std::string& tag) {
  Ok(rt, "memory_remember", {{"text", "We use pnpm for packages " + tag}, {"kind", "decision"},
                             {"subject", "package-manager " + tag}, {"value", "pnpm"}, {"tags", {"build"}}});
  rt.clock->Advance(1000);
  Ok(rt, "memory_remember", {{"text", "We switched to bun " + tag}, {"kind", "decision"},
                             {"subject", "package-manager " + tag}, {"value", "bun"}});
  Ok(rt, "memory_suggest", {{"text", "The CI runs on Tuesdays " + tag}, {"kind", "fact"}});
  Ok(rt, "memory_remember", {{"text", "Tabs in Makefiles " + tag}, {"kind", "preference"}, {"tags", {"style", "make"}}});
  Ok(rt, "entity_relate", {{"from", "api-" + tag}, {"type", "uses"}, {"to", "postgres"}});
  Ok(rt, "session_start", {{"session_id", "sess-" + tag}});
  Ok(rt, "session_log", {{"session_id", "sess-" + tag}, {"entry", "fixed the token refresh race"}, {"type", "progress"}});
  Ok(rt, "session_end", {{"session_id", "sess-" + tag}, {"summary", "Fixed the race; TODO regression test"}});
  const auto plan = Ok(rt, "plan_create", {{"title", "Ship v2 " + tag},
                                          {"tasks", json::array({{{"title", "write code"}, {"criteria", {"green"}}},
                                                                 {{"title", "test it"}, {"depends_on", {1}}}})}});
  Ok(rt, "plan_check", {{"plan", plan.structured.value("plan_id", "")}, {"task", "t1"}, {"state", "done"}});
  Ok(rt, "procedure_save", {{"name", "release-" + tag}, {"when", "cutting a release"},
                            {"steps", {"bump the version", "tag it"}}});
  Ok(rt, "feedback_record", {{"tool", "Bash"}, {"outcome", "success"}, {"latency_ms", 12}});
  Ok(rt, "block_write", {{"key", "notes-" + tag}, {"content", "shared notes"}});
  Ok(rt, "focus_update", {{"section", "notes"}, {"content", "focus " + tag}});
  Ok(rt, "handoff_write", {{"summary", "half done " + tag}, {"open_items", {"finish tests"}}});
  Ok(rt, "question_add", {{"question", "Which port for " + tag + "?"}});
}

json Sections(testing::TestRuntime& rt) { return host::BuildExport(*rt.runtime, "test")["sections"]; }

// The export of a store of every layer holding Populate(tag).
json PopulatedExport(const std::string& tag) {
  testing::TestRuntime a;
  AddAll(a);
  Populate(a, tag);
  return host::BuildExport(*a.runtime, "test");
}

std::size_t Rows(const json& sections, const std::string& layer, const std::string& table) {
  return sections.at(layer).at("tables").at(table).at("rows").size();
}

TEST(ExportImport, RoundTripIntoEmptyDatabaseIsEqualForEveryTable) {
  const json envelope = PopulatedExport("one");
  EXPECT_EQ(envelope["kioku_export"], sdk::kExportFormatVersion);
  const json& sections = envelope["sections"];
  for (const char* layer : {"working", "episodic", "semantic", "procedural", "affective"}) {
    ASSERT_TRUE(sections.contains(layer)) << layer;
    EXPECT_GT(sections[layer]["schema_version"].get<int>(), 0) << layer;
  }
  EXPECT_EQ(Rows(sections, "semantic", "semantic_memories"), 4u);
  EXPECT_GT(Rows(sections, "semantic", "semantic_memory_history"), 0u);
  EXPECT_GT(Rows(sections, "semantic", "semantic_relations"), 0u);
  EXPECT_GT(Rows(sections, "episodic", "episodic_log"), 0u);
  EXPECT_GT(Rows(sections, "procedural", "procedural_tasks"), 0u);
  EXPECT_GT(Rows(sections, "affective", "affective_outcomes"), 0u);
  EXPECT_GT(Rows(sections, "working", "working_blocks"), 0u);

  testing::TestRuntime b;
  AddAll(b);
  // The empty target has rows its own start wrote (affective captures nothing yet, but be
  // exact): compare after import with what the source exports.
  const json text = json::parse(sdk::DumpJson(envelope));  // through text, as a file would be
  auto report = host::ImportExport(*b.runtime, text);
  // Every exported semantic row is inserted (the target started empty).
  std::size_t semantic_rows = 0;
  for (const auto& [name, table] : sections.at("semantic").at("tables").items()) semantic_rows += Rows(sections, "semantic", name);
  EXPECT_EQ(report["semantic"].inserted, static_cast<std::int64_t>(semantic_rows));
  EXPECT_EQ(Sections(b), sections);

  // Indexes work on the imported rows (FTS rebuilt).
  auto recall = b.runtime->CallTool("memory_recall", {{"query", "makefiles tabs"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(recall.text.find("Tabs in Makefiles"), std::string::npos) << recall.text;
  auto proc = b.runtime->CallTool("procedure_find", {{"query", "cutting a release"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(proc.text.find("release-one"), std::string::npos) << proc.text;
  auto past = b.runtime->CallTool("session_recall", {{"query", "race"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(past.text.find("race"), std::string::npos) << past.text;

  // Idempotent: the same file again inserts nothing and changes nothing (the calls above
  // added captured outcomes and presence of their own, so compare with the state before).
  const json settled = Sections(b);
  auto again = host::ImportExport(*b.runtime, text);
  for (const auto& [layer, c] : again) EXPECT_EQ(c.inserted, 0) << layer;
  EXPECT_GT(again["semantic"].skipped, 0);
  EXPECT_EQ(Sections(b), settled);
}

TEST(ExportImport, MergeIntoNonEmptyDatabaseRemapsKeys) {
  const json envelope = PopulatedExport("one");
  testing::TestRuntime b;
  AddAll(b);
  b.clock->Advance(7);  // same seq numbers, other memories (and so other computed ids)
  Populate(b, "two");
  host::ImportExport(*b.runtime, envelope);
  const json merged = Sections(b);
  EXPECT_EQ(Rows(merged, "semantic", "semantic_memories"), 8u);
  // Tags follow their memory through the new seq: "make" belongs to both Makefile memories.
  auto list = b.runtime->CallTool("memory_recall", {{"query", "Tabs in Makefiles one"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(list.text.find("Makefiles one"), std::string::npos) << list.text;
  SQLite::Statement q(b.Db(),
                      "SELECT count(*) FROM semantic_memory_tags t JOIN semantic_memories m ON m.seq = t.memory_seq "
                      "WHERE t.tag = 'make'");
  ASSERT_TRUE(q.executeStep());
  EXPECT_EQ(q.getColumn(0).getInt(), 2);
  auto graph = b.runtime->CallTool("entity_graph", {{"query", "api-one"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(graph.text.find("postgres"), std::string::npos) << graph.text;
}

// An import into a store whose substring and entity-name indexes lag (semantic
// index_lag.hpp: rows written, their catch-up still queued) rebuilds those indexes over
// every row and marks them whole: each row indexed once, the file's and the store's.
TEST(ExportImport, ImportIntoAStoreWithLaggingIndexesIndexesEveryRowOnce) {
  const json envelope = PopulatedExport("one");
  testing::TestRuntime b;
  AddAll(b);
  const auto remember = [&](const std::string& text) {
    const auto r = b.runtime->CallTool("memory_remember", {{"text", text}, {"kind", "fact"}},
                                       testing::TestRuntime::DefaultCaller());  // no flush: it lags
    ASSERT_FALSE(r.is_error) << r.text;
  };
  const auto mark = [&] {
    return b.Db().execAndGet("SELECT coalesce((SELECT seq FROM semantic_index_marks WHERE name = 'substring'), 0)").getInt64();
  };
  const auto expect_indexes_match_rows = [&] {
    for (const char* t : {"semantic_fts", "semantic_fts_trigram", "semantic_entities_fts"}) {
      EXPECT_NO_THROW(b.Db().exec(std::string("INSERT INTO ") + t + "(" + t + ", rank) VALUES ('integrity-check', 1)")) << t;
    }
  };
  const auto expect_one_found = [&](const std::string& partial) {
    auto found = b.runtime->CallTool("memory_recall", {{"query", partial}}, testing::TestRuntime::DefaultCaller());
    EXPECT_NE(found.text.find("1 memor"), std::string::npos) << partial << ": " << found.text;
  };
  remember("Webhooks retry with exponential backoff");
  ASSERT_EQ(mark(), 0);
  host::ImportExport(*b.runtime, envelope);
  b.runtime->FlushDeferredWrites();  // the catch-up the write queued finds nothing left
  EXPECT_EQ(mark(), b.Db().execAndGet("SELECT max(seq) FROM semantic_memories").getInt64());
  expect_indexes_match_rows();
  expect_one_found("xponenti");
  expect_one_found("akefile");
  // The same file again adds no row, so rebuilds no index: the rows lagging then are
  // indexed by the catch-up before it, not marked as held.
  remember("Search ranks by reciprocal rank fusion");
  host::ImportExport(*b.runtime, envelope);
  b.runtime->FlushDeferredWrites();
  expect_indexes_match_rows();
  expect_one_found("eciproca");
}

// Memory ids are computed from captured_at, a nonce and seq (semantic migration 15): two
// stores that write one seq in one millisecond still name their memories apart (the nonce
// hashes writer, session and text), so an import brings every memory under its own id, a
// second import finds them, a purged namesake stays purged, and a memory edited since the
// export is the same memory.
TEST(ExportImport, MemoriesNamedAlikeInTwoStoresStayTwoMemories) {
  const auto remember = [](testing::TestRuntime& rt, const std::string& session, const std::string& text) {
    sdk::Caller caller = testing::TestRuntime::DefaultCaller();
    caller.session_id = session;
    auto r = rt.runtime->CallTool("memory_remember", {{"text", text}, {"kind", "fact"}}, caller);
    EXPECT_FALSE(r.is_error) << r.text;
    return r.structured["results"][0]["id"].get<std::string>();
  };
  const auto count = [](testing::TestRuntime& rt) {
    return rt.Db().execAndGet("SELECT count(*) FROM semantic_memories").getInt();
  };
  testing::TestRuntime a, b;
  AddAll(a);
  AddAll(b);
  const std::string a1 = remember(a, "sess-a", "The deploy window opens at 09:00");
  const std::string a2 = remember(a, "sess-a", "Staging runs postgres 16");
  const std::string b1 = remember(b, "sess-b", "Release notes live in the wiki");
  const std::string b2 = remember(b, "sess-b", "The cache is redis 7");
  ASSERT_EQ(a1.substr(0, 10), b1.substr(0, 10));  // one clock and one seq ...
  ASSERT_EQ(sdk::ParseSeqId(a1)->seq, sdk::ParseSeqId(b1)->seq);
  ASSERT_NE(a1, b1);  // ... and two ids
  ASSERT_NE(a2, b2);
  Ok(b, "memory_forget", {{"id", b2}, {"purge", true}});
  const json file = host::BuildExport(*a.runtime, "test");

  host::ImportExport(*b.runtime, file);
  EXPECT_EQ(count(b), 3);
  EXPECT_EQ(Ok(b, "memory_get", {{"id", b1}}).structured["memory"]["text"], "Release notes live in the wiki");
  EXPECT_TRUE(b.runtime->CallTool("memory_get", {{"id", b2}}, testing::TestRuntime::DefaultCaller()).is_error);  // purged here
  auto recall = b.runtime->CallTool("memory_recall", {{"query", "deploy window"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(recall.text.find("09:00 · " + a1), std::string::npos) << recall.text;  // under its own id
  host::ImportExport(*b.runtime, file);
  EXPECT_EQ(count(b), 3);  // found again, not added again

  // Into the store it came from, after an edit: the same memory.
  Ok(a, "memory_edit", {{"id", a1}, {"text", "The deploy window opens at 10:00"}});
  host::ImportExport(*a.runtime, file);
  EXPECT_EQ(count(a), 2);
  EXPECT_EQ(Ok(a, "memory_get", {{"id", a1}}).structured["memory"]["text"], "The deploy window opens at 10:00");
}

// The same when writer and session are the same too (two stores fed by `kioku import` of a
// CLAUDE.md at the same millisecond): the text tells them apart. Three stores into one,
// twice: every memory once. Files from before the process counters (text and row epochs)
// were left out of exports still import.
TEST(ExportImport, NamesakesOfOneWriterAndSessionStayApartUntilEdited) {
  const auto remember = [](testing::TestRuntime& rt, const std::string& text) {
    auto r = rt.runtime->CallTool("memory_remember", {{"text", text}, {"kind", "fact"}}, testing::TestRuntime::DefaultCaller());
    EXPECT_FALSE(r.is_error) << r.text;
    return r.structured["results"][0]["id"].get<std::string>();
  };
  const auto count = [](testing::TestRuntime& rt) {
    return rt.Db().execAndGet("SELECT count(*) FROM semantic_memories").getInt();
  };
  testing::TestRuntime a, c, d;
  AddAll(a);
  AddAll(c);
  AddAll(d);
  const std::string a1 = remember(a, "Deploys go out on Fridays"), c1 = remember(c, "Backups run at midnight");
  ASSERT_EQ(sdk::ParseSeqId(a1)->seq, sdk::ParseSeqId(c1)->seq);
  ASSERT_EQ(a1.substr(0, 10), c1.substr(0, 10));
  ASSERT_NE(a1, c1);
  Ok(c, "memory_forget", {{"id", remember(c, "Scratch note to drop")}});  // moves c's counters
  json from_a = host::BuildExport(*a.runtime, "test"), from_c = host::BuildExport(*c.runtime, "test");
  EXPECT_FALSE(from_c["sections"]["semantic"]["tables"].contains("semantic_row_epoch"));
  for (const char* counter : {"semantic_text_epoch", "semantic_row_epoch"}) {
    from_a["sections"]["semantic"]["tables"][counter] = {{"columns", {"id", "epoch"}}, {"rows", {{1, 99}}}};
  }
  for (int round = 0; round < 2; ++round) {
    host::ImportExport(*d.runtime, from_a);
    host::ImportExport(*d.runtime, from_c);
    EXPECT_EQ(count(d), 3) << "round " << round;
  }
  host::ImportExport(*c.runtime, from_a);
  EXPECT_EQ(count(c), 3);
  auto recall = c.runtime->CallTool("memory_recall", {{"query", "deploys fridays"}}, testing::TestRuntime::DefaultCaller());
  EXPECT_NE(recall.text.find("Deploys go out on Fridays"), std::string::npos) << recall.text;
}

// Entity ids are computed from seq (migration 12), and an import renumbers and merges
// entities: every id the file showed still names the same entity, the target's own ids
// stay as they were, and an id the target already uses keeps its meaning.
TEST(ExportImport, EntityIdsOfTheFileStillNameTheirEntitiesAfterAMerge) {
  const auto ids = [](testing::TestRuntime& rt) {
    std::map<std::string, std::string> by_name;
    auto g = rt.runtime->CallTool("entity_graph", {{"query", "api-"}}, testing::TestRuntime::DefaultCaller());
    for (const json& e : g.structured["entities"]) by_name[e["name"]] = e["id"];
    auto pg = rt.runtime->CallTool("entity_graph", {{"entity", "postgres"}}, testing::TestRuntime::DefaultCaller());
    for (const json& e : pg.structured["entities"]) by_name[e["name"]] = e["id"];
    return by_name;
  };
  const auto named = [](testing::TestRuntime& rt, const std::string& id) {
    auto g = rt.runtime->CallTool("entity_graph", {{"entity", id}}, testing::TestRuntime::DefaultCaller());
    return g.structured.value("entities", json::array()).empty() ? std::string("?") : g.structured["entities"][0]["name"].get<std::string>();
  };
  testing::TestRuntime a;
  AddAll(a);
  Ok(a, "entity_relate", {{"from", "api-zero"}, {"type", "uses"}, {"to", "redis"}});  // shifts a's seqs
  Populate(a, "one");
  const auto from_a = ids(a);
  ASSERT_EQ(from_a.count("api-one"), 1u);
  ASSERT_EQ(from_a.count("postgres"), 1u);
  testing::TestRuntime b;
  AddAll(b);
  // Derived ids are unique within a database; two databases' collide only for entities made
  // in the same millisecond with the same seq, which two manual clocks started alike would do.
  b.clock->Advance(60'000);
  Populate(b, "two");  // its own api-two and postgres, at other seqs
  const auto before = ids(b);
  host::ImportExport(*b.runtime, host::BuildExport(*a.runtime, "test"));
  for (const auto& [name, id] : from_a) EXPECT_EQ(named(b, id), name) << id;
  for (const auto& [name, id] : before) EXPECT_EQ(named(b, id), name) << id;
  EXPECT_EQ(ids(b).at("api-two"), before.at("api-two"));
  EXPECT_EQ(ids(b).at("postgres"), before.at("postgres"));  // merged: shown as the target showed it
  EXPECT_EQ(ids(b).at("api-one"), from_a.at("api-one"));    // new here: shown as the file showed it
  auto again = host::ImportExport(*b.runtime, host::BuildExport(*a.runtime, "test"));
  EXPECT_EQ(again["semantic"].inserted, 0);
}

// Entities one call makes share a millisecond, so renumbering them on import shifts one
// entity's derived id onto the next one's old id: the file's entity keeps it.
TEST(ExportImport, RenumberedEntitiesOfOneCallKeepTheirIds) {
  testing::TestRuntime a;
  AddAll(a);
  Ok(a, "memory_remember", {{"text", "The module src/alpha.ts imports src/beta.ts and src/gamma.ts"}, {"kind", "fact"}});
  std::map<std::string, std::string> from_a;
  const auto listed = a.runtime->CallTool("entity_graph", {{"query", ".ts"}}, testing::TestRuntime::DefaultCaller());
  for (const json& e : listed.structured["entities"]) from_a[e["name"]] = e["id"];
  ASSERT_EQ(from_a.size(), 3u) << listed.text;
  testing::TestRuntime b;
  AddAll(b);
  b.clock->Advance(60'000);
  Ok(b, "memory_remember", {{"text", "config lives in src/zeta.ts"}, {"kind", "fact"}});
  host::ImportExport(*b.runtime, host::BuildExport(*a.runtime, "test"));
  for (const auto& [name, id] : from_a) {
    auto g = b.runtime->CallTool("entity_graph", {{"entity", id}}, testing::TestRuntime::DefaultCaller());
    ASSERT_FALSE(g.structured["entities"].empty()) << id;
    EXPECT_EQ(g.structured["entities"][0]["name"], name) << id;
    EXPECT_EQ(g.structured["entities"][0]["id"], id);  // new here: shown as the file showed it
  }
}

// A file written before entity ids were computed carries an `id` column on
// semantic_entities: it imports, and those ids keep naming their entities.
TEST(ExportImport, SectionWithStoredEntityIdsImports) {
  json envelope = PopulatedExport("one");
  json& entities = envelope["sections"]["semantic"]["tables"]["semantic_entities"];
  json& columns = entities["columns"];
  const auto norm = static_cast<std::size_t>(std::find(columns.begin(), columns.end(), "norm_name") - columns.begin());
  columns.insert(columns.begin() + 1, "id");
  int n = 0;
  std::string api_one;
  for (json& row : entities["rows"]) {
    const std::string id = "01JF00000000000000000000" + std::to_string(10 + n++);
    if (row[norm] == "api-one") api_one = id;
    row.insert(row.begin() + 1, id);
  }
  ASSERT_FALSE(api_one.empty());
  testing::TestRuntime b;
  AddAll(b);
  Populate(b, "two");
  host::ImportExport(*b.runtime, envelope);
  auto g = b.runtime->CallTool("entity_graph", {{"entity", api_one}}, testing::TestRuntime::DefaultCaller());
  ASSERT_FALSE(g.structured["entities"].empty()) << g.text;
  EXPECT_EQ(g.structured["entities"][0]["name"], "api-one");
  EXPECT_EQ(g.structured["entities"][0]["id"], api_one);  // new here: shown as the file showed it
  EXPECT_EQ(b.Db().execAndGet("SELECT count(*) FROM semantic_entity_ids WHERE id LIKE '01JF%'").getInt(), n);
}

// A file written before a layer renamed its time columns (working v3, procedural v2,
// affective v4: `*_ms` → `<event>_at`) imports: the host renames the section's columns by
// the layer's list before the rows go in.
TEST(ExportImport, SectionWrittenBeforeAColumnRenameImports) {
  testing::TestRuntime a;
  AddAll(a);
  Populate(a, "one");
  const json envelope = host::BuildExport(*a.runtime, "test");
  json old = envelope;
  int renamed = 0;
  for (const sdk::ExporterSpec& e : a.runtime->Exporters()) {
    for (const sdk::ColumnRenames& r : e.renamed_columns) {
      json& section = old["sections"][e.name];
      section["schema_version"] = r.version - 1;
      for (const sdk::RenamedColumn& c : r.columns) {
        for (json& name : section["tables"][c.table]["columns"]) {
          if (name == c.to) {
            name = c.from;
            ++renamed;
          }
        }
      }
    }
  }
  EXPECT_GE(renamed, 30);  // working 18, procedural 10, affective 4
  testing::TestRuntime b;
  AddAll(b);
  host::ImportExport(*b.runtime, old);
  EXPECT_EQ(Sections(b), envelope["sections"]);
}

// Aggregates on a merge import: a key both databases have keeps its row and gains the
// outcomes the import added (so counts equal the outcome rows); a second import adds nothing.
TEST(ExportImport, AffectiveStatisticsOfAKnownKeyAddTheImportedOutcomesOnce) {
  auto stats = [](testing::TestRuntime& rt, const std::string& table) {
    SQLite::Statement q(rt.Db(), "SELECT n, success, failure, latency_n FROM " + table + " WHERE tool = 'Bash'");
    json rows = json::array();
    while (q.executeStep()) {
      rows.push_back({q.getColumn(0).getInt64(), q.getColumn(1).getInt64(), q.getColumn(2).getInt64(),
                      q.getColumn(3).getInt64()});
    }
    return rows;
  };
  testing::TestRuntime a;
  AddAll(a);
  Ok(a, "feedback_record", {{"tool", "Bash"}, {"outcome", "success"}, {"latency_ms", 10}});
  Ok(a, "feedback_record", {{"tool", "Bash"}, {"outcome", "success"}, {"latency_ms", 30}});
  Ok(a, "feedback_record", {{"tool", "Grep"}, {"outcome", "success"}});
  testing::TestRuntime b;
  AddAll(b);
  Ok(b, "feedback_record", {{"tool", "Bash"}, {"outcome", "failure"}, {"latency_ms", 20}});
  ASSERT_EQ(stats(b, "affective_totals"), json::parse("[[1, 0, 1, 1]]"));
  const double decay_before = b.Db().execAndGet("SELECT decay_n FROM affective_totals WHERE tool = 'Bash'").getDouble();

  const json envelope = host::BuildExport(*a.runtime, "test");
  host::ImportExport(*b.runtime, envelope);
  EXPECT_EQ(stats(b, "affective_totals"), json::parse("[[3, 2, 1, 3]]")) << "summed, not kept";
  EXPECT_EQ(stats(b, "affective_buckets"), json::parse("[[3, 2, 1, 3]]"));
  EXPECT_EQ(b.Db().execAndGet("SELECT count(*) FROM affective_outcomes WHERE tool = 'Bash'").getInt(), 3);
  // A key only the file has arrives as the file wrote it.
  EXPECT_EQ(b.Db().execAndGet("SELECT n FROM affective_totals WHERE tool = 'Grep'").getInt(), 1);
  // The decayed score sees all three outcomes too (all at one time: forward-decay n is 3x).
  EXPECT_NEAR(b.Db().execAndGet("SELECT decay_n FROM affective_totals WHERE tool = 'Bash'").getDouble(),
              3.0 * decay_before, 1e-9);

  const json settled = Sections(b);
  auto again = host::ImportExport(*b.runtime, envelope);
  EXPECT_EQ(again["affective"].inserted, 0);
  EXPECT_EQ(Sections(b), settled) << "a second import of the same file changes nothing";
  EXPECT_EQ(stats(b, "affective_totals"), json::parse("[[3, 2, 1, 3]]"));
}

class Refusal : public ::testing::Test {
 protected:
  void SetUp() override {
    AddAll(rt);
    Populate(rt, "one");
    before = Sections(rt);
    source.reset(new testing::TestRuntime);
    AddAll(*source);
    Populate(*source, "other");
    good = host::BuildExport(*source->runtime, "test");
  }
  void ExpectRefused(const json& file, const std::string& says) {
    try {
      host::ImportExport(*rt.runtime, file);
      ADD_FAILURE() << "import accepted a file that should be refused (" << says << ")";
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_EQ(Sections(rt), before);
  }
  testing::TestRuntime rt;
  std::unique_ptr<testing::TestRuntime> source;
  json before, good;
};

TEST_F(Refusal, BrokenRowInTheLastLayerLeavesEveryLayerAsItWas) {
  json file = good;
  file["sections"]["affective"]["tables"]["affective_outcomes"]["rows"][0] = json::array({1, 2});
  ExpectRefused(file, "affective_outcomes row 1");
}

TEST_F(Refusal, NewerFormatVersion) {
  json file = good;
  file["kioku_export"] = sdk::kExportFormatVersion + 1;
  ExpectRefused(file, "newer kioku");
}

TEST_F(Refusal, NewerSchemaVersion) {
  json file = good;
  file["sections"]["semantic"]["schema_version"] = 999;
  ExpectRefused(file, "newer than this database");
}

TEST_F(Refusal, UnknownColumnOrTable) {
  json file = good;
  file["sections"]["working"]["tables"]["working_blocks"]["columns"][0] = "no_such_column";
  ExpectRefused(file, "no_such_column");
  file = good;
  file["sections"]["working"]["tables"]["working_nope"] = {{"columns", json::array()}, {"rows", json::array()}};
  ExpectRefused(file, "working_nope");
}

TEST_F(Refusal, EntityIdsThatAreNoIds) {
  json& entities = good["sections"]["semantic"]["tables"]["semantic_entities"];
  const std::size_t seq = static_cast<std::size_t>(
      std::find(entities["columns"].begin(), entities["columns"].end(), "seq") - entities["columns"].begin());
  const json first_seq = entities["rows"][0][seq];
  const auto with_alias = [&](const json& row) {
    json file = good;
    file["sections"]["semantic"]["tables"]["semantic_entity_ids"] = {{"columns", {"id", "entity_seq", "shown"}},
                                                                     {"rows", json::array({row})}};
    return file;
  };
  ExpectRefused(with_alias({"sk-ant-api03-notanid", first_seq, 0}), "semantic_entity_ids row 1: its id is not an entity id");
  ExpectRefused(with_alias({"01JF0000000000000000000AAA", first_seq, 2}), "shown 0 or 1");
  ExpectRefused(with_alias({"01JF0000000000000000000AAA", 987654, 0}), "which the file has no entity for");
  json file = good;
  json& e = file["sections"]["semantic"]["tables"]["semantic_entities"];
  e["columns"].insert(e["columns"].begin(), "id");
  for (json& row : e["rows"]) row.insert(row.begin(), 42);  // a file written before migration 12, edited badly
  ExpectRefused(file, "semantic_entities row 1: its id is not an entity id");
}

TEST_F(Refusal, SecretInAMemory) {
  json file = good;
  auto& table = file["sections"]["semantic"]["tables"]["semantic_memories"];
  const auto& cols = table["columns"];
  const auto text = std::find(cols.begin(), cols.end(), "text") - cols.begin();
  table["rows"][0][text] = "deploy key ghp_" + std::string("aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A");
  ExpectRefused(file, "secret");
}

// Every text column is screened, not a chosen few (a fresh-user trial got a password in
// through semantic_memory_history.detail).
TEST_F(Refusal, SecretInAnyTextColumnOfAnyLayer) {
  const std::string secret = "password=hunter2supersecret AKIAIOSFODNN7EXAMPLE";
  for (const auto& [layer, section] : good["sections"].items()) {
    for (const auto& [name, table] : section["tables"].items()) {
      const auto& rows = table["rows"];
      if (rows.empty()) continue;
      for (std::size_t c = 0; c < rows[0].size(); ++c) {
        if (!rows[0][c].is_string()) continue;
        json file = good;
        file["sections"][layer]["tables"][name]["rows"][0][c] = secret;
        SCOPED_TRACE(name + "." + table["columns"][c].get<std::string>());
        ExpectRefused(file, "secret");
      }
    }
  }
}

// Found by a user trial: a NUL inside an imported text was stored (tool arguments refuse it),
// and the memory could not be recalled by its words.
TEST_F(Refusal, NulCharacterInATextColumn) {
  json file = good;
  auto& table = file["sections"]["semantic"]["tables"]["semantic_memories"];
  const auto& cols = table["columns"];
  const auto text = std::find(cols.begin(), cols.end(), "text") - cols.begin();
  table["rows"][0][text] = std::string("nul") + '\0' + "inside export";
  ExpectRefused(file, "NUL character");
}

// Ids stored as text, outside SQL foreign keys: a dangling one names table, row and field.
void SetField(json& file, const std::string& layer, const std::string& table, std::size_t row, const std::string& column,
              const json& value) {
  auto& t = file["sections"][layer]["tables"][table];
  ASSERT_LT(row, t["rows"].size()) << table;
  const auto& cols = t["columns"];
  const auto at = static_cast<std::size_t>(std::find(cols.begin(), cols.end(), column) - cols.begin());
  ASSERT_LT(at, cols.size()) << column;
  t["rows"][row][at] = value;
}

TEST_F(Refusal, HistoryRowAboutNoMemory) {
  json file = good;
  SetField(file, "semantic", "semantic_memory_history", 0, "memory_id", "019aaaaa-0000-7000-8000-00000000dead");
  ExpectRefused(file, "table semantic_memory_history row 1 field memory_id: \"019aaaaa-0000-7000-8000-00000000dead\" "
                      "names no semantic_memories.own_id or semantic_memory_ids.id");
}

// A memory's id and seq are its identity: a file that gives one to two memories, or gives
// one that is none, is refused whole.
TEST_F(Refusal, MemoryIdsThatAreNotOneEach) {
  const auto own_id = [&](std::size_t row) {
    const json& t = good["sections"]["semantic"]["tables"]["semantic_memories"];
    const auto col = std::find(t["columns"].begin(), t["columns"].end(), "own_id") - t["columns"].begin();
    const auto seq = std::find(t["columns"].begin(), t["columns"].end(), "seq") - t["columns"].begin();
    const auto at = std::find(t["columns"].begin(), t["columns"].end(), "captured_at") - t["columns"].begin();
    const auto nonce = std::find(t["columns"].begin(), t["columns"].end(), "id_nonce") - t["columns"].begin();
    const json& r = t["rows"][row];
    return r[col].is_string() ? r[col].get<std::string>()
                              : sdk::SeqId(r[at].get<std::int64_t>(), r[nonce].get<std::int64_t>(), r[seq].get<std::int64_t>());
  };
  json file = good;
  SetField(file, "semantic", "semantic_memories", 1, "own_id", own_id(0));
  ExpectRefused(file, "table semantic_memories row 2: id " + own_id(0) + " is row 1's too");
  std::string lower = own_id(0);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  file = good;
  SetField(file, "semantic", "semantic_memories", 1, "own_id", lower);
  ExpectRefused(file, "is row 1's too");
  file = good;
  SetField(file, "semantic", "semantic_memories", 0, "own_id", "GARBAGE");
  ExpectRefused(file, "table semantic_memories row 1: own_id \"GARBAGE\" is not a memory id");
  file = good;
  SetField(file, "semantic", "semantic_memories", 0, "seq", -3);
  ExpectRefused(file, "table semantic_memories row 1: seq must be an integer from 1 to 2^40");
  file = good;
  SetField(file, "semantic", "semantic_memories", 1, "seq", 1);
  ExpectRefused(file, "table semantic_memories row 2: seq 1 is row 1's too");
  file = good;
  SetField(file, "semantic", "semantic_memories", 0, "superseded_by", own_id(0));
  ExpectRefused(file, "table semantic_memories row 1: superseded by itself");
}

TEST_F(Refusal, SuccessorThatDoesNotExist) {
  json file = good;
  SetField(file, "semantic", "semantic_memories", 0, "superseded_by", "019aaaaa-0000-7000-8000-00000000beef");
  ExpectRefused(file, "table semantic_memories row 1 field superseded_by");
}

TEST_F(Refusal, RelationReplacingNoRelation) {
  json file = good;
  SetField(file, "semantic", "semantic_relations", 0, "replaces", "019aaaaa-0000-7000-8000-0000000000ff");
  ExpectRefused(file, "field replaces");
}

// A memory's project, agent and session are keys of semantic_keys (semantic migration 16),
// which are each database's own numbers: a file names them by text, as before, and an import
// interns them here, or refuses a file that brings numbers of its own.
TEST_F(Refusal, KeysOfAnotherDatabase) {
  json file = good;
  file["sections"]["semantic"]["tables"]["semantic_keys"] = {{"columns", {"seq", "text"}}, {"rows", {{7, "x"}}}};
  ExpectRefused(file, "table semantic_keys: keys are this database's own");
  file = good;
  auto& columns = file["sections"]["semantic"]["tables"]["semantic_memories"]["columns"];
  *std::find(columns.begin(), columns.end(), "session_id") = "session_key";
  ExpectRefused(file, "column session_key holds another database's key; send session_id (text) instead");
  file = good;
  SetField(file, "semantic", "semantic_memories", 1, "project_id", 42);
  ExpectRefused(file, "table semantic_memories row 2 column project_id: must be text");
  file = good;
  SetField(file, "semantic", "semantic_memories", 0, "agent_id", nullptr);
  ExpectRefused(file, "table semantic_memories row 1 column agent_id: must be text");
}

TEST(ExportImport, ProjectsAgentsAndSessionsTravelAsText) {
  testing::TestRuntime a;
  AddAll(a);
  sdk::Caller writer = testing::TestRuntime::DefaultCaller();
  writer.agent_id = "codex";
  writer.session_id = "sess-a";
  writer.project_id = writer.project_root = "/work/webapp";
  const auto made = a.Call("memory_remember", {{"text", "The webapp deploys from main"}, {"kind", "fact"}}, writer);
  ASSERT_FALSE(made.is_error) << made.text;
  const std::string id = made.structured["results"][0]["id"];
  const json envelope = host::BuildExport(*a.runtime, "test");
  const json& memories = envelope["sections"]["semantic"]["tables"]["semantic_memories"];
  for (const char* column : {"project_key", "agent_key", "session_key"}) {
    EXPECT_EQ(std::count(memories["columns"].begin(), memories["columns"].end(), column), 0) << column;
  }
  EXPECT_FALSE(envelope["sections"]["semantic"]["tables"].contains("semantic_keys"));

  // Another store whose keys give these numbers to other texts first.
  testing::TestRuntime b;
  AddAll(b);
  Populate(b, "two");
  host::ImportExport(*b.runtime, envelope);
  const auto got = b.Call("memory_get", {{"id", id}}, writer);
  ASSERT_FALSE(got.is_error) << got.text;
  EXPECT_EQ(got.structured["memory"].value("project_id", ""), "/work/webapp");
  EXPECT_EQ(got.structured["memory"].value("agent_id", ""), "codex");
  EXPECT_EQ(got.structured["memory"].value("session_id", ""), "sess-a");
  // Seen in its project only.
  const auto there = b.Call("memory_recall", {{"query", "webapp deploys"}}, writer);
  EXPECT_NE(there.text.find("deploys from main"), std::string::npos) << there.text;
  const auto elsewhere = b.Call("memory_recall", {{"query", "webapp deploys"}});
  EXPECT_EQ(elsewhere.text.find("deploys from main"), std::string::npos) << elsewhere.text;
  const std::int64_t keys = b.Db().execAndGet("SELECT count(*) FROM semantic_keys").getInt64();
  host::ImportExport(*b.runtime, envelope);
  EXPECT_EQ(b.Db().execAndGet("SELECT count(*) FROM semantic_keys").getInt64(), keys) << "a second import adds no key";
  // Nor one of a row that is here already, whatever project the file now gives it.
  json moved = envelope;
  auto& rows = moved["sections"]["semantic"]["tables"]["semantic_memories"];
  const auto at = std::find(rows["columns"].begin(), rows["columns"].end(), "project_id") - rows["columns"].begin();
  rows["rows"][0][at] = "/work/orphan";
  host::ImportExport(*b.runtime, moved);
  EXPECT_EQ(b.Db().execAndGet("SELECT count(*) FROM semantic_keys").getInt64(), keys);
}

// Files written before semantic migration 17 hold reaffirm keys of 64 bits: an import cuts
// them to the 31 a write computes, so saying an imported memory again reaffirms it.
TEST(ExportImport, ReaffirmKeysOfOlderFilesMatchNewWrites) {
  testing::TestRuntime a;
  AddAll(a);
  Ok(a, "memory_remember", {{"text", "The API rate limit is 600 per minute"}, {"kind", "fact"}});
  json file = host::BuildExport(*a.runtime, "test");
  auto& t = file["sections"]["semantic"]["tables"]["semantic_memories"];
  const auto at = std::find(t["columns"].begin(), t["columns"].end(), "dedup_hash") - t["columns"].begin();
  t["rows"][0][at] = t["rows"][0][at].get<std::int64_t>() | (std::int64_t{0x5A5A} << 40);  // the bits cut since
  testing::TestRuntime b;
  AddAll(b);
  host::ImportExport(*b.runtime, file);
  const auto again = Ok(b, "memory_remember", {{"text", "The API rate limit is 600 per minute"}, {"kind", "fact"}});
  EXPECT_EQ(again.structured["results"][0].value("action", ""), "reaffirmed") << again.text;
  EXPECT_EQ(b.Db().execAndGet("SELECT count(*) FROM semantic_memories").getInt64(), 1);
}

// A purged memory leaves a "purged" history row that still names it: a legitimate export.
TEST(ExportImport, PurgedMemoryHistoryStillImports) {
  testing::TestRuntime a;
  AddAll(a);
  Populate(a, "one");
  auto m = Ok(a, "memory_remember", {{"text", "A mistaken note to purge"}, {"kind", "fact"}});
  const std::string id = m.structured["results"][0]["id"];
  Ok(a, "memory_forget", {{"id", id}, {"purge", true}});
  const json envelope = host::BuildExport(*a.runtime, "test");
  testing::TestRuntime b;
  AddAll(b);
  EXPECT_NO_THROW(host::ImportExport(*b.runtime, envelope));
  EXPECT_EQ(Sections(b)["semantic"]["tables"]["semantic_memory_history"],
            envelope["sections"]["semantic"]["tables"]["semantic_memory_history"]);
}

TEST_F(Refusal, NotAnExportOrLayerNotEnabled) {
  ExpectRefused(json{{"entities", json::array()}}, "not a kioku export");
  json file = good;
  file["sections"]["vectors"] = {{"schema_version", 1}};
  ExpectRefused(file, "not enabled");
}

}  // namespace
}  // namespace kioku

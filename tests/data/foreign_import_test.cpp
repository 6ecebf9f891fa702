// Foreign imports (`kioku import --from claude-md | agents-md | mcp-memory | token-goat`):
// each format on its fixture file (tests/fixtures/import), idempotence, secrets and
// malformed input refusing the whole file with the line named.
#include <gtest/gtest.h>

#include <fstream>

#include <SQLiteCpp/Column.h>
#include <SQLiteCpp/Database.h>
#include <SQLiteCpp/Statement.h>

#include "data/foreign_import.hpp"
#include "foreign_formats.hpp"
#include "semantic_plugin.hpp"
#include "test_runtime.hpp"

namespace kioku {
namespace {

using nlohmann::json;

const std::string kFixtures = KIOKU_IMPORT_FIXTURES;

class ForeignImport : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_.Add<semantic::SemanticPlugin>("semantic");
    rt_.Start();
    target_.agent_id = "importer";
    target_.project_id = "github.com/acme/webapp";
  }

  host::ForeignImportReport Import(const std::string& file, const std::string& format) {
    return host::ImportFile(*rt_.runtime, file, format, target_);
  }

  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (rt_.dir / name).string();
    std::ofstream(path) << text;
    return path;
  }

  int Count(const std::string& table, const std::string& where = "1") {
    SQLite::Statement q(rt_.Db(), "SELECT COUNT(*) FROM " + table + " WHERE " + where);
    q.executeStep();
    return q.getColumn(0).getInt();
  }

  std::string Field(const std::string& column, const std::string& where) {
    // Memory ids are computed (semantic migration 15): the view semantic_memory_ids shows them;
    // projects are keys of semantic_keys (migration 16).
    SQLite::Statement q(rt_.Db(), "SELECT " + column +
                                      " FROM semantic_memories JOIN semantic_memory_ids USING (seq) "
                                      "LEFT JOIN (SELECT seq AS project_key, text AS project_id FROM semantic_keys) "
                                      "USING (project_key) WHERE " + where);
    return q.executeStep() ? q.getColumn(0).getString() : "<none>";
  }

  // The whole message of a refused import (and that it refused).
  std::string Refusal(const std::string& file, const std::string& format) {
    try {
      Import(file, format);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    ADD_FAILURE() << "import of " << file << " was not refused";
    return "";
  }

  json MemoryList() {
    sdk::Caller caller = testing::TestRuntime::DefaultCaller();
    caller.project_id = target_.project_id;
    auto r = rt_.Call("memory_list", {{"status", {"pending"}}, {"limit", 50}}, caller);
    EXPECT_FALSE(r.is_error) << r.text;
    return r.structured;
  }

  testing::TestRuntime rt_;
  host::ImportTarget target_;
};

TEST(MarkdownItems, BulletsNumbersContinuationsAndSkippedBlocks) {
  const auto items = semantic::ParseMarkdownItems(
      "# Top\n- one item\n  continued here\n\n```\n- fenced\n```\n## Sub\n3. numbered\n4) also\n"
      "<!-- kioku:begin -->\n- kioku's own block\n<!-- kioku:end -->\n---\n- x\nplain paragraph\n");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].text, "one item continued here");
  EXPECT_EQ(items[0].line, 2);
  EXPECT_EQ(items[0].headings, std::vector<std::string>{"Top"});
  EXPECT_EQ(items[1].text, "numbered");
  EXPECT_EQ(items[1].headings, (std::vector<std::string>{"Top", "Sub"}));
  EXPECT_EQ(items[2].text, "also");
  EXPECT_EQ(semantic::KindFromHeadings({"Notes", "Lessons learned"}), "lesson");
  EXPECT_EQ(semantic::KindFromHeadings({"Commands"}), "fact");
  EXPECT_EQ(semantic::KindFromHeadings({"Misc"}), "preference");
}

TEST_F(ForeignImport, ClaudeMdBulletsArrivePendingOnceWithHeadingTagsAndKinds) {
  const auto report = Import(kFixtures + "/CLAUDE.md", "claude-md");
  EXPECT_EQ(report.format, "claude-md");
  EXPECT_EQ(report.layers.at("memories").inserted, 6);
  EXPECT_EQ(report.layers.at("memories").skipped, 1);  // the repeated bullet
  ASSERT_EQ(report.notes.size(), 1u);
  EXPECT_NE(report.notes[0].find("line 29: already known as"), std::string::npos) << report.notes[0];
  EXPECT_EQ(Count("semantic_memories"), 6);
  EXPECT_EQ(Count("semantic_memories", "status = 'pending'"), 6);
  EXPECT_EQ(Field("kind", "text LIKE 'Build with%'"), "fact");
  EXPECT_EQ(Field("kind", "text LIKE 'The staging database%'"), "lesson");
  EXPECT_EQ(Field("kind", "text LIKE 'Use 2-space%'"), "preference");
  EXPECT_EQ(Field("text", "text LIKE 'Prefer named%'"), "Prefer named exports over default exports, and keep one component per file.");
  EXPECT_EQ(Field("tags", "text LIKE 'Use 2-space%'"), "claude-md code-style project-notes");
  EXPECT_EQ(Field("source_ref", "text LIKE 'Use 2-space%'"), "CLAUDE.md:9");
  EXPECT_EQ(Field("project_id", "text LIKE 'Use 2-space%'"), "github.com/acme/webapp");
  EXPECT_EQ(Count("semantic_memories", "text LIKE '%fence%' OR text LIKE '%comment%' OR text LIKE '%memory_recall%'"), 0);

  const json list = MemoryList();
  EXPECT_EQ(list["memories"].size(), 6u) << list.dump();

  // A second import adds nothing, and a rejected bullet is not filed again either.
  auto id = Field("id", "text LIKE 'The staging database%'");
  auto r = rt_.Call("memory_review", {{"action", "reject"}, {"id", id}});
  ASSERT_FALSE(r.is_error) << r.text;
  const auto again = Import(kFixtures + "/CLAUDE.md", "auto");
  EXPECT_EQ(again.format, "claude-md");
  EXPECT_EQ(again.layers.at("memories").inserted, 0);
  EXPECT_EQ(again.layers.at("memories").skipped, 7);
  EXPECT_EQ(Count("semantic_memories"), 6);
}

TEST_F(ForeignImport, AgentsMdIsTheSameFormat) {
  const std::string file = Write("AGENTS.md", "## Testing\n- Run `make check` before pushing.\n");
  const auto report = Import(file, "auto");
  EXPECT_EQ(report.format, "agents-md");
  EXPECT_EQ(report.layers.at("memories").inserted, 1);
  EXPECT_EQ(Field("tags", "1"), "agents-md testing");
  EXPECT_EQ(Field("kind", "1"), "fact");
}

TEST_F(ForeignImport, SecretRefusesTheWholeFileNamingLineAndRuleNotTheSecret) {
  const std::string secret = "ghp_" + std::string("A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8");
  const std::string file = Write("CLAUDE.md", "# Setup\n- Use pnpm.\n- The CI token is " + secret + "\n");
  const std::string why = Refusal(file, "claude-md");
  EXPECT_NE(why.find("line 3"), std::string::npos) << why;
  EXPECT_NE(why.find("github-token"), std::string::npos) << why;
  EXPECT_EQ(why.find(secret), std::string::npos) << why;
  EXPECT_EQ(Count("semantic_memories"), 0);
}

// Found by a user trial: a heading turned into a tag ("db-password-is-hunter2hunter2") no longer
// read as a password in prose, so the secret reached the tags and the text index.
TEST_F(ForeignImport, SecretInAHeadingRefusesTheFile) {
  const std::string why = Refusal(Write("CLAUDE.md", "# DB password is hunter2hunter2\n- Use pnpm.\n"), "claude-md");
  EXPECT_NE(why.find("line 2"), std::string::npos) << why;
  EXPECT_EQ(why.find("hunter2hunter2"), std::string::npos) << why;
  EXPECT_EQ(Count("semantic_memories"), 0);
}

// Found by a user trial: "- nul \0 byte here" was stored with its NUL.
TEST_F(ForeignImport, NulCharacterRefusesTheFileNamingTheLine) {
  const std::string why =
      Refusal(Write("GEMINI.md", std::string("- Use pnpm.\n- nul ") + '\0' + " byte here\n"), "agents-md");
  EXPECT_NE(why.find("line 2"), std::string::npos) << why;
  EXPECT_NE(why.find("NUL character"), std::string::npos) << why;
  EXPECT_EQ(Count("semantic_memories"), 0);
}

TEST_F(ForeignImport, ByteOrderMarkKeepsTheFirstHeading) {
  Import(Write("CLAUDE.md", "\xEF\xBB\xBF# Testing\n- Run make check.\n"), "claude-md");
  EXPECT_EQ(Field("tags", "1"), "claude-md testing");
}

TEST_F(ForeignImport, McpMemoryJsonlBecomesMemoriesLinkedToEntitiesAndRelations) {
  const auto report = Import(kFixtures + "/memory.jsonl", "mcp-memory");
  EXPECT_EQ(report.layers.at("memories").inserted, 3);
  EXPECT_EQ(report.layers.at("entities").inserted, 3);  // Billing_Service only from a relation
  EXPECT_EQ(report.layers.at("relations").inserted, 2);
  EXPECT_EQ(Count("semantic_memories", "status = 'active' AND kind = 'observation'"), 3);
  EXPECT_EQ(Field("text", "text LIKE '%Spanish%'"), "John_Smith: Speaks fluent Spanish");
  EXPECT_EQ(Field("tags", "text LIKE '%Spanish%'"), "person");
  const std::string person = "type_key = (SELECT seq FROM semantic_keys WHERE text = 'person')";
  EXPECT_EQ(Count("semantic_entities", person + " AND name = 'John_Smith'"), 1);
  EXPECT_EQ(Count("semantic_memory_entities me JOIN semantic_entities e ON e.seq = me.entity_seq",
                  "e.name = 'John_Smith' AND e." + person),
            2);
  auto graph = rt_.Call("entity_graph", {{"entity", "John_Smith"}});
  ASSERT_FALSE(graph.is_error) << graph.text;
  EXPECT_NE(graph.text.find("works_at"), std::string::npos) << graph.text;
  EXPECT_NE(graph.text.find("Acme_Corp"), std::string::npos) << graph.text;

  const auto again = Import(kFixtures + "/memory.jsonl", "auto");
  EXPECT_EQ(again.format, "mcp-memory");
  EXPECT_EQ(again.layers.at("memories").inserted, 0);
  EXPECT_EQ(again.layers.at("entities").inserted, 0);
  EXPECT_EQ(again.layers.at("relations").inserted, 0);
  EXPECT_EQ(again.layers.at("relations").skipped, 2);
  EXPECT_EQ(Count("semantic_memories"), 3);
}

// Entities without observations add no memory, but their names lag the entity-name index
// all the same (semantic index_lag.hpp): the import settles them as a memory write does,
// and a clean stop leaves nothing lagging (a break-it find: they stayed unindexed).
TEST_F(ForeignImport, McpMemoryEntitiesWithoutObservationsAreIndexedByTheCatchUp) {
  std::string lines;
  for (int i = 0; i < 30; ++i) {
    lines += R"({"type":"entity","name":"LagProbe)" + std::to_string(i) + R"(Service","entityType":"service","observations":[]})" "\n";
  }
  const auto report = Import(Write("memory.jsonl", lines), "mcp-memory");
  EXPECT_EQ(report.layers.at("entities").inserted, 30);
  rt_.runtime->FlushDeferredWrites();
  EXPECT_EQ(rt_.Db().execAndGet("SELECT coalesce((SELECT seq FROM semantic_index_marks WHERE name = 'entity_name'), 0)")
                .getInt64(),
            rt_.Db().execAndGet("SELECT max(seq) FROM semantic_entities").getInt64());
  EXPECT_NO_THROW(rt_.Db().exec("INSERT INTO semantic_entities_fts(semantic_entities_fts, rank) VALUES ('integrity-check', 1)"));
  auto found = rt_.Call("entity_graph", {{"query", "probe17serv"}});
  EXPECT_NE(found.text.find("LagProbe17Service"), std::string::npos) << found.text;
}

TEST_F(ForeignImport, MalformedJsonlNamesTheLineAndChangesNothing) {
  const std::string file = Write("memory.jsonl",
                                 "{\"type\":\"entity\",\"name\":\"A\",\"entityType\":\"x\",\"observations\":[\"ok\"]}\n"
                                 "{\"type\":\"relation\",\"from\":\"A\",\"relationType\":\"uses\"}\n");
  const std::string why = Refusal(file, "mcp-memory");
  EXPECT_NE(why.find("line 2: \"to\" must be a non-empty string"), std::string::npos) << why;
  const std::string broken = Write("broken.jsonl", "\n{\"type\":\"entity\",\"name\":\"A\"}\n{not json\n");
  EXPECT_NE(Refusal(broken, "mcp-memory").find("line 3: not a JSON object"), std::string::npos);
  EXPECT_EQ(Count("semantic_memories"), 0);
  EXPECT_EQ(Count("semantic_entities"), 0);
}

TEST_F(ForeignImport, TokenGoatExportKeepsStatusesEdgesAndTimes) {
  const auto report = Import(kFixtures + "/token-goat-export.json", "token-goat");
  EXPECT_EQ(report.layers.at("memories").inserted, 4);
  const std::string winner = Field("id", "source_ref = 'token-goat:f_02'");
  EXPECT_EQ(Field("status", "source_ref = 'token-goat:f_01'"), "superseded");
  EXPECT_EQ(Field("superseded_by", "source_ref = 'token-goat:f_01'"), winner);
  EXPECT_EQ(Field("status", "source_ref = 'token-goat:f_02'"), "active");
  EXPECT_EQ(Field("status", "source_ref = 'token-goat:f_03'"), "pending");
  EXPECT_EQ(Field("status", "source_ref = 'token-goat:f_04'"), "pinned");
  EXPECT_EQ(Field("kind", "source_ref = 'token-goat:f_04'"), "correction");
  EXPECT_EQ(Field("source", "source_ref = 'token-goat:f_02'"), "user");
  EXPECT_EQ(Field("subject", "source_ref = 'token-goat:f_02'"), "package-manager");
  EXPECT_EQ(Field("captured_at", "source_ref = 'token-goat:f_04'"), "1764000000000");
  EXPECT_EQ(Field("confidence", "source_ref = 'token-goat:f_03'"), "0.6");
  EXPECT_EQ(Count("semantic_memory_history", "action = 'imported'"), 4);

  const auto again = Import(kFixtures + "/token-goat-export.json", "auto");
  EXPECT_EQ(again.format, "token-goat");
  EXPECT_EQ(again.layers.at("memories").inserted, 0);
  EXPECT_EQ(again.layers.at("memories").skipped, 4);
}

TEST_F(ForeignImport, TokenGoatRefusalsNameTheFactAndLine) {
  const std::string no_text = Write("goat.json", "{\"schemaVersion\": 1, \"facts\": [\n  {\"id\": \"a\", \"text\": \"ok fact\"},\n"
                                                 "  {\"id\": \"b\"}\n]}\n");
  const std::string why = Refusal(no_text, "token-goat");
  EXPECT_NE(why.find("facts[1] (line 3)"), std::string::npos) << why;
  const std::string syntax = Write("bad.json", "{\"schemaVersion\": 1,\n \"facts\": [\n {\"id\": }]}\n");
  EXPECT_NE(Refusal(syntax, "token-goat").find("line 3: not valid JSON"), std::string::npos);
  EXPECT_NE(Refusal(Write("x.json", "{\"facts\": []}"), "token-goat").find("schemaVersion"), std::string::npos);
  // Each of these would file something wrong or lose a later fact (found by a user trial).
  const auto goat = [&](const std::string& fact) {
    return Refusal(Write("g.json", "{\"schemaVersion\": 1, \"facts\": [" + fact + "]}"), "token-goat");
  };
  EXPECT_NE(goat("{\"id\": \"\", \"text\": \"t\"}").find("\"id\" is empty"), std::string::npos);
  EXPECT_NE(goat("{\"id\": \"a\", \"text\": \"t\", \"capturedAt\": 99999999999999999}").find("captured_at"),
            std::string::npos);
  EXPECT_NE(goat("{\"id\": \"a\", \"text\": \"t\", \"capturedAt\": -5}").find("captured_at"), std::string::npos);
  EXPECT_NE(goat("{\"id\": \"a\", \"text\": \"t\", \"status\": \"superseded\", \"supersededBy\": \"a\"}")
                .find("superseded by itself"),
            std::string::npos);
  EXPECT_NE(goat("{\"id\": \"a\", \"text\": \"t\", \"scope\": \"path\", \"path\": \"../../etc/passwd\"}")
                .find("leaves the project"),
            std::string::npos);
  EXPECT_EQ(Count("semantic_memories"), 0);
}

TEST_F(ForeignImport, UnknownFormatAndUndetectableFileSayWhatToSend) {
  EXPECT_NE(Refusal(kFixtures + "/CLAUDE.md", "obsidian").find("claude-md, agents-md, mcp-memory, token-goat"),
            std::string::npos);
  EXPECT_NE(Refusal(Write("notes.txt", "hello\n"), "auto").find("--from"), std::string::npos);
}

TEST_F(ForeignImport, OtherAgentsRuleFilesAreDetectedAsAgentsMd) {
  for (const std::string name : {"GEMINI.md", ".cursorrules", "copilot-instructions.md", "CONVENTIONS.md", "style.mdc"}) {
    SCOPED_TRACE(name);
    const auto report = Import(Write(name, "# Style\n- Prefer early returns in " + name + " code.\n"), "auto");
    EXPECT_EQ(report.format, "agents-md");
    EXPECT_EQ(report.layers.at("memories").inserted, 1);
  }
}

TEST_F(ForeignImport, AnEmptyFileSaysSoForEveryFormat) {
  for (const std::string format : {"auto", "claude-md", "mcp-memory", "token-goat", "kioku"}) {
    SCOPED_TRACE(format);
    EXPECT_NE(Refusal(Write("CLAUDE.md", format == "auto" ? "\xEF\xBB\xBF \n\n" : ""), format).find("the file is empty"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace kioku

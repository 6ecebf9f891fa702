// The `data_export` tool: a new 0600 file under <data dir>/exports that imports back, never
// replacing one; full profile only; refused to a connection whose token is limited to some
// projects.
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "data/data_export.hpp"
#include "data/export_tool.hpp"
#include "data/private_file.hpp"
#include "mcp/dispatcher.hpp"
#include "test_runtime.hpp"

#include "semantic_plugin.hpp"
#include "affective_plugin.hpp"

namespace kioku {
namespace {

using nlohmann::json;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class ExportTool : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_.Add<semantic::SemanticPlugin>("semantic");
    rt_.Add<affective::AffectivePlugin>("affective");
    host::AddExportTool(*rt_.runtime, "test");
    rt_.Start();
    for (int i = 0; i < 3; ++i) {
      auto r = rt_.Call("memory_remember", {{"text", "We deploy on Friday number " + std::to_string(i)}, {"kind", "fact"}});
      ASSERT_FALSE(r.is_error) << r.text;
    }
  }
  testing::TestRuntime rt_;
};

// Found by a user trial: with <home>/exports a symlink, the export went where it pointed and
// that folder was made 0700.
TEST_F(ExportTool, RefusesASymlinkedExportsFolder) {
  const auto elsewhere = rt_.dir / "elsewhere";
  std::filesystem::create_directories(elsewhere);
  ::chmod(elsewhere.c_str(), 0755);
  std::filesystem::create_directory_symlink(elsewhere, rt_.dir / "exports");
  auto r = rt_.Call("data_export", json::object());
  ASSERT_TRUE(r.is_error);
  EXPECT_NE(r.text.find("symbolic link"), std::string::npos) << r.text;
  EXPECT_NE(r.text.find("nothing was written"), std::string::npos) << r.text;
  EXPECT_TRUE(std::filesystem::is_empty(elsewhere));
  struct stat st{};
  ASSERT_EQ(::stat(elsewhere.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0755u);
}

TEST_F(ExportTool, WritesANewPrivateFileThatImportsBack) {
  auto r = rt_.Call("data_export", json::object());
  ASSERT_FALSE(r.is_error) << r.text;
  const std::string path = r.structured["path"];
  EXPECT_EQ(std::filesystem::path(path).parent_path(), rt_.dir / "exports");
  EXPECT_EQ(r.structured["format"], "json");
  const std::string text = Slurp(path);
  EXPECT_EQ(r.structured["bytes"].get<std::size_t>(), text.size());
  struct stat st{};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat((rt_.dir / "exports").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);

  const json envelope = json::parse(text);
  EXPECT_EQ(envelope["sections"]["semantic"]["tables"]["semantic_memories"]["rows"].size(), 3u);
  EXPECT_GE(r.structured["rows"]["semantic"].get<int>(), 3);
  EXPECT_EQ(r.structured["rows"], json(host::ExportRowCounts(envelope)));
  EXPECT_NE(r.text.find("kioku import"), std::string::npos) << r.text;
  EXPECT_LT(r.text.size() + r.structured.dump().size(), 1024u) << "the result names the file; it is not the export";

  testing::TestRuntime b;
  b.Add<semantic::SemanticPlugin>("semantic");
  b.Add<affective::AffectivePlugin>("affective");
  b.Start();
  auto report = host::ImportExport(*b.runtime, envelope);
  EXPECT_EQ(report["semantic"].inserted, r.structured["rows"]["semantic"].get<std::int64_t>());
}

TEST_F(ExportTool, NeverReplacesAFileEvenAtTheSameMillisecond) {
  auto first = rt_.Call("data_export", json::object());
  auto second = rt_.Call("data_export", json::object());  // the manual clock did not move
  ASSERT_FALSE(first.is_error) << first.text;
  ASSERT_FALSE(second.is_error) << second.text;
  EXPECT_NE(first.structured["path"], second.structured["path"]);
  EXPECT_TRUE(std::filesystem::exists(first.structured["path"].get<std::string>()));
  auto md = rt_.Call("data_export", {{"format", "md"}});
  ASSERT_FALSE(md.is_error) << md.text;
  EXPECT_EQ(std::filesystem::path(md.structured["path"].get<std::string>()).extension(), ".md");
  EXPECT_NE(Slurp(md.structured["path"]).find("### semantic_memories (3 rows)"), std::string::npos);
  auto bad = rt_.Call("data_export", {{"format", "xml"}});
  EXPECT_TRUE(bad.is_error);
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(rt_.dir / "exports")) {
    EXPECT_EQ(e.path().filename().string().rfind("kioku-export-", 0), 0u) << "no temporary left: " << e.path();
    ++files;
  }
  EXPECT_EQ(files, 3u);
}

TEST_F(ExportTool, FullProfileOnlyAndOwnedByTheHost) {
  const host::RegisteredTool* tool = nullptr;
  for (const auto* t : rt_.runtime->AllTools()) {
    if (t->spec.name == "data_export") tool = t;
  }
  ASSERT_NE(tool, nullptr);
  EXPECT_EQ(tool->spec.profile, sdk::ToolProfile::kFull);
  EXPECT_EQ(tool->plugin, host::kHostToolOwner);
  EXPECT_TRUE(tool->every_project);
}

json CallExport(host::mcp::Dispatcher& d, host::mcp::Session& s) {
  return *d.Handle({{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
                    {"params", {{"name", "data_export"}, {"arguments", json::object()}}}},
                   s);
}

TEST_F(ExportTool, RefusedToATokenLimitedToSomeProjects) {
  host::mcp::Dispatcher d(*rt_.runtime, host::mcp::DispatcherOptions{});
  host::mcp::Session limited;
  limited.id = "s-limited";
  limited.base_caller.agent_id = "ci-bot";
  limited.base_caller.agent_source = sdk::AgentSource::kToken;
  sdk::ProjectInfo only;
  only.id = "/tmp/project";
  only.root = "/tmp/project";
  limited.allowed_projects = {only};
  const json refused = CallExport(d, limited);
  ASSERT_TRUE(refused.contains("error")) << refused.dump();
  EXPECT_EQ(refused["error"]["code"], -32003);
  EXPECT_NE(refused["error"]["message"].get<std::string>().find("every project"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(rt_.dir / "exports")) << "nothing was written";

  host::mcp::Session local;
  local.id = "s-local";
  local.base_caller.agent_id = "me";
  const json ok = CallExport(d, local);
  ASSERT_TRUE(ok.contains("result")) << ok.dump();
  EXPECT_FALSE(ok["result"]["isError"].get<bool>()) << ok.dump();
  EXPECT_TRUE(std::filesystem::exists(ok["result"]["structuredContent"]["path"].get<std::string>()));
}

}  // namespace
}  // namespace kioku

// `kioku export -o PATH` writes through WritePrivateFile: a temporary file renamed over
// PATH. Only a regular file is replaced; a link, FIFO or device (as root: `-o /dev/full`)
// is refused before anything is written, and the thing at PATH stays as it was.
namespace kioku::host {
namespace {

TEST(WritePrivateFile, ReplacesOnlyARegularFile) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kioku-private-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  WritePrivateFile(dir / "out.json", "one");
  WritePrivateFile(dir / "out.json", "two");  // a regular file is replaced
  std::ifstream in(dir / "out.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "two");
  EXPECT_EQ(fs::status(dir / "out.json").permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);

  fs::create_symlink(dir / "out.json", dir / "link");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  fs::create_directory(dir / "folder");
  for (const auto& [name, kind] : std::vector<std::pair<std::string, std::string>>{
           {"link", "a symbolic link"}, {"fifo", "a FIFO"}, {"folder", "a directory"}}) {
    try {
      WritePrivateFile(dir / name, "three");
      ADD_FAILURE() << name << " was replaced";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("it is " + kind), std::string::npos) << e.what();
    }
  }
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(dir / "link")));
  EXPECT_TRUE(fs::is_fifo(fs::status(dir / "fifo")));
  std::ifstream again(dir / "out.json");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(again), {}), "two");  // the link's target untouched
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 4);  // no temporary left
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kioku::host

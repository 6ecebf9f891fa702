// Plugin loader: real modules from tests/fixtures/plugins, manifest checked before any C++
// call, clear refusals naming the file and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "host_test_util.hpp"
#include "kioku/sdk/plugin_entry.hpp"
#include "module_file.hpp"
#include "plugin_loader.hpp"
#include "runtime.hpp"

namespace kioku::host {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::FixtureDir;
using testing::FixtureModule;
using testing::ScopedEnv;
using testing::TempDir;

template <class Fn>
std::string ErrorOf(Fn&& fn) {
  try {
    fn();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

std::unique_ptr<Runtime> MakeRuntime(const TempDir& dir) {
  RuntimeOptions o;
  o.data_dir = dir.path();
  o.clock = std::make_shared<sdk::ManualClock>();
  return std::make_unique<Runtime>(o);
}

TEST(LoaderTest, GoodModuleLoadsWithManifest) {
  auto module = LoadModule(FixtureModule("fixture"), "fixture");
  ASSERT_NE(module.manifest, nullptr);
  EXPECT_STREQ(module.manifest->name, "fixture");
  EXPECT_STREQ(module.manifest->version, "1.0.0");
  EXPECT_EQ(module.manifest->abi_version, KIOKU_SDK_ABI);
  EXPECT_STREQ(module.manifest->fingerprint, KIOKU_BUILD_FINGERPRINT);
  EXPECT_NE(module.create, nullptr);
  EXPECT_NE(module.library, nullptr);
}

TEST(LoaderTest, GoodModuleRunsThroughRuntime) {
  TempDir dir;
  auto rt = MakeRuntime(dir);
  rt->LoadPlugin("fixture", FixtureModule("fixture"), {{"greeting", "hi "}});
  rt->Start();
  auto plugins = rt->Plugins();
  ASSERT_EQ(plugins.size(), 1u);
  EXPECT_EQ(plugins[0], std::make_pair(std::string("fixture"), std::string("1.0.0")));
  auto r = rt->CallTool("echo_say", {{"text", "x"}}, {});
  EXPECT_FALSE(r.is_error) << r.text;
  EXPECT_EQ(r.text, "hi x");
  EXPECT_EQ(rt->PluginInstructions("fixture"), "echo_say repeats text; for testing the host.");
  ASSERT_EQ(rt->Commands().size(), 1u);
  EXPECT_EQ(rt->Commands()[0].name, "fixture-echo");
}

TEST(LoaderTest, WrongAbiRefusedWithExpectedAndFound) {
  const auto path = FixtureModule("wrongabi");
  EXPECT_EQ(ErrorOf([&] { LoadModule(path, "wrongabi"); }),
            "plugin " + path.string() + ": SDK ABI mismatch: expected " + std::to_string(KIOKU_SDK_ABI) + ", found " +
                std::to_string(KIOKU_SDK_ABI + 41) + "; rebuild the plugin against this kioku");
}

TEST(LoaderTest, NoEntryPointRefusedNamingTheSymbol) {
  const auto path = FixtureModule("noentry");
  auto e = ErrorOf([&] { LoadModule(path, "noentry"); });
  EXPECT_THAT(e, StartsWith("plugin " + path.string() + ": missing entry point kioku_plugin_manifest_v1"));
}

TEST(LoaderTest, ThrowingOnCreateRefusedAtStartWithItsMessage) {
  TempDir dir;
  auto rt = MakeRuntime(dir);
  ASSERT_NO_THROW(rt->LoadPlugin("throwing", FixtureModule("throwing")));
  EXPECT_EQ(ErrorOf([&] { rt->Start(); }), "plugin 'throwing' threw on create: fixture refuses to start");
}

TEST(LoaderTest, DuplicateToolNameRefusedNamingBothPlugins) {
  TempDir dir;
  auto rt = MakeRuntime(dir);
  rt->LoadPlugin("fixture", FixtureModule("fixture"));
  rt->LoadPlugin("duplicate", FixtureModule("duplicate"));
  EXPECT_EQ(ErrorOf([&] { rt->Start(); }),
            "duplicate tool 'echo_say': registered by plugin 'fixture' and again by plugin 'duplicate'");
}

TEST(LoaderTest, MissingFileRefusedNamingIt) {
  TempDir dir;
  const auto path = dir.path() / "kioku-ghost.so";
  EXPECT_THAT(ErrorOf([&] { LoadModule(path, "ghost"); }), StartsWith("plugin " + path.string() + ": cannot load: "));
}

TEST(LoaderTest, NotASharedObjectRefused) {
  TempDir dir;
  const auto path = dir.Write("kioku-text.so", "this is not an ELF file\n");
  EXPECT_THAT(ErrorOf([&] { LoadModule(path, "text"); }), StartsWith("plugin " + path.string() + ": cannot load: "));
}

TEST(LoaderTest, TruncatedModuleRefusedInsteadOfDyingOfSigbus) {
  // dlopen maps a half-copied library and the process dies at its first touch past the
  // end; the file is checked against its own headers first.
  TempDir dir;
  std::ifstream in(FixtureModule("fixture"), std::ios::binary);
  const std::string whole((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (std::size_t cut : {std::size_t{64}, std::size_t{4096}, whole.size() / 2, whole.size() - 1}) {
    const auto path = dir.Write("kioku-fixture.so", whole.substr(0, cut));
    EXPECT_THAT(ErrorOf([&] { LoadModule(path, "fixture"); }),
                ::testing::AllOf(StartsWith("plugin " + path.string() + ": cannot load: the file is truncated ("),
                                 HasSubstr("; reinstall or rebuild it")))
        << cut;
  }
  EXPECT_EQ(ModuleFileProblem(FixtureModule("fixture")), "");
  EXPECT_EQ(ModuleFileProblem(dir.path() / "absent.so"), "does not exist");
  EXPECT_EQ(ModuleFileProblem(dir.Write("short.so", "\x7f" "EL")), "is not an ELF shared library");
}

TEST(LoaderTest, ManifestNameMismatchRefused) {
  const auto path = FixtureModule("fixture");
  EXPECT_EQ(ErrorOf([&] { LoadModule(path, "other"); }),
            "plugin " + path.string() + ": manifest names plugin 'fixture', expected 'other'");
}

TEST(LoaderTest, EmptyModulePathFromFindModuleIsRefused) {
  // LoadRuntime passes FindModule's result straight in; an absent module must still fail
  // with a message, not crash.
  EXPECT_THAT(ErrorOf([] { LoadModule(std::filesystem::path(), "ghost"); }), HasSubstr("cannot load"));
}

TEST(LoaderTest, ModuleFileNameFindAndList) {
  EXPECT_EQ(ModuleFileName("semantic"), "kioku-semantic.so");
  TempDir empty;
  EXPECT_EQ(FindModule("fixture", {empty.path(), FixtureDir()}), FixtureModule("fixture"));
  EXPECT_TRUE(FindModule("ghost", {empty.path(), FixtureDir()}).empty());
  auto names = ListModules({empty.path() / "missing", FixtureDir()});
  EXPECT_THAT(names, ::testing::IsSupersetOf({"fixture", "wrongabi", "noentry", "throwing", "duplicate"}));
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(LoaderTest, FirstDirectoryWins) {
  TempDir first;
  first.Write("kioku-fixture.so", "shadow");
  EXPECT_EQ(FindModule("fixture", {first.path(), FixtureDir()}), first.path() / "kioku-fixture.so");
}

TEST(LoaderTest, SearchPathOrderExtraThenEnvThenExeRelative) {
  ScopedEnv env("KIOKU_PLUGIN_PATH", "/a::/b/");
  auto dirs = PluginSearchPath({"/extra"});
  ASSERT_EQ(dirs.size(), 4u);
  EXPECT_EQ(dirs[0], std::filesystem::path("/extra"));
  EXPECT_EQ(dirs[1], std::filesystem::path("/a"));
  EXPECT_EQ(dirs[2], std::filesystem::path("/b/"));
  EXPECT_EQ(dirs[3].filename(), "plugins");
  EXPECT_EQ(dirs[3].parent_path().filename(), "kioku");
}

TEST(LoaderTest, LibraryOutlivesPluginAcrossRuntimeDestruction) {
  // Destroying a runtime that loaded a module (instance first, then library) and loading it
  // again must work: nothing from the module may outlive its library.
  for (int i = 0; i < 2; ++i) {
    TempDir dir;
    auto rt = MakeRuntime(dir);
    rt->LoadPlugin("fixture", FixtureModule("fixture"));
    rt->Start();
    EXPECT_TRUE(rt->CallTool("echo_fail", {}, {}).is_error);
  }
}

}  // namespace
}  // namespace kioku::host

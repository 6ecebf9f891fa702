// The anchors of issue 14: glob-exists, newest-of, git-tracked, package-version, the
// verdict cache keyed on file state, confinement and the per-recall time bound.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "anchor_predicates.hpp"
#include "anchors.hpp"

namespace kioku::semantic {
namespace {

namespace fs = std::filesystem;

class AnchorPredicates : public ::testing::Test {
 protected:
  void SetUp() override {
    std::random_device rd;
    base = fs::temp_directory_path() / ("kioku-anchor-" + std::to_string(rd()) + std::to_string(rd()));
    root = base / "proj";
    fs::create_directories(root);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(base, ec);
  }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root / rel).parent_path());
    std::ofstream(root / rel, std::ios::binary) << text;
  }
  void SetMtime(const std::string& rel, int seconds_ago) {
    fs::last_write_time(root / rel, fs::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
  }
  std::string Eval(const std::string& anchor) { return EvaluateAnchor(anchor, root.string(), 0); }

  fs::path base, root;
};

TEST_F(AnchorPredicates, ValidationNamesWhatIsWrong) {
  EXPECT_EQ(ValidateAnchor("glob-exists src/**/*.ts"), "");
  EXPECT_EQ(ValidateAnchor("newest-of pnpm-lock.yaml package-lock.json yarn.lock"), "");
  EXPECT_EQ(ValidateAnchor("git-tracked src/main.cpp"), "");
  EXPECT_EQ(ValidateAnchor("package-version package.json 1.2.3"), "");
  EXPECT_NE(ValidateAnchor("newest-of only-one").find("2 to 8 paths"), std::string::npos);
  EXPECT_NE(ValidateAnchor("glob-exists ../outside/*").find("relative pattern"), std::string::npos);
  EXPECT_NE(ValidateAnchor("git-tracked /etc/passwd").find("relative"), std::string::npos);
  EXPECT_NE(ValidateAnchor("newest-of a.lock ../b.lock").find("../b.lock"), std::string::npos);
  EXPECT_NE(ValidateAnchor("package-version setup.py 1.0").find("package.json"), std::string::npos);
  EXPECT_NE(ValidateAnchor("nope x").find("glob-exists"), std::string::npos);
}

TEST_F(AnchorPredicates, GlobExists) {
  Write("src/app/main.test.ts", "x");
  Write("README.md", "x");
  EXPECT_EQ(Eval("glob-exists src/**/*.test.ts"), "affirmed");
  EXPECT_EQ(Eval("glob-exists **/main.test.ts"), "affirmed");
  EXPECT_EQ(Eval("glob-exists *.md"), "affirmed");
  EXPECT_EQ(Eval("glob-exists src/*.test.ts"), "contradicted");  // * stays in one folder
  EXPECT_EQ(Eval("glob-exists src/**/*.spec.ts"), "contradicted");
  // The cache sees a new file: the folder it lands in changed (its mtime set back first,
  // since file times tick coarsely).
  fs::last_write_time(root / "src/app", fs::file_time_type::clock::now() - std::chrono::seconds(100));
  EXPECT_EQ(Eval("glob-exists src/**/*.spec.ts"), "contradicted");
  Write("src/app/main.spec.ts", "x");
  EXPECT_EQ(Eval("glob-exists src/**/*.spec.ts"), "affirmed");
  fs::last_write_time(root / "src/app", fs::file_time_type::clock::now() - std::chrono::seconds(50));
  EXPECT_EQ(Eval("glob-exists src/**/*.spec.ts"), "affirmed");
  fs::remove(root / "src/app/main.spec.ts");
  EXPECT_EQ(Eval("glob-exists src/**/*.spec.ts"), "contradicted");
}

TEST_F(AnchorPredicates, GlobDoesNotWalkOutThroughASymlink) {
  fs::create_directories(base / "outside");
  std::ofstream(base / "outside" / "secret.key") << "x";
  fs::create_directory_symlink(base / "outside", root / "leak");
  EXPECT_EQ(Eval("glob-exists leak/*.key"), "contradicted");
}

TEST_F(AnchorPredicates, NewestOf) {
  Write("pnpm-lock.yaml", "a");
  Write("package-lock.json", "b");
  SetMtime("pnpm-lock.yaml", 10);
  SetMtime("package-lock.json", 100);
  EXPECT_EQ(Eval("newest-of pnpm-lock.yaml package-lock.json yarn.lock"), "affirmed");
  EXPECT_EQ(Eval("newest-of package-lock.json pnpm-lock.yaml"), "contradicted");
  EXPECT_EQ(Eval("newest-of yarn.lock pnpm-lock.yaml"), "contradicted");  // expected one missing
  EXPECT_EQ(Eval("newest-of yarn.lock bun.lockb"), "unverified");         // none exists
  // A long-running server sees the change: package-lock.json is touched now.
  SetMtime("package-lock.json", 0);
  EXPECT_EQ(Eval("newest-of pnpm-lock.yaml package-lock.json yarn.lock"), "contradicted");
}

TEST_F(AnchorPredicates, PackageVersionOfEveryManifest) {
  Write("package.json", R"({"name": "web", "version": "2.4.1"})");
  Write("rust/Cargo.toml", "[package]\nname = \"core\"\nversion = \"0.9.0\"\n");
  Write("ws/Cargo.toml", "[workspace.package]\nversion = \"1.0.0\"\n");
  Write("py/pyproject.toml", "[project]\nname = \"tool\"\nversion = \"3.1\"\n");
  Write("poetry/pyproject.toml", "[tool.poetry]\nname = \"tool\"\nversion = \"0.1.0\"\n");
  Write("CMakeLists.txt", "cmake_minimum_required(VERSION 3.25)\nproject(kioku VERSION 0.2.0 LANGUAGES CXX)\n");
  EXPECT_EQ(Eval("package-version package.json 2.4.1"), "affirmed");
  EXPECT_EQ(Eval("package-version package.json 2.*"), "affirmed");
  EXPECT_EQ(Eval("package-version package.json 3.0.0"), "contradicted");
  EXPECT_EQ(Eval("package-version rust/Cargo.toml 0.9.0"), "affirmed");
  EXPECT_EQ(Eval("package-version ws/Cargo.toml 1.0.0"), "affirmed");
  EXPECT_EQ(Eval("package-version py/pyproject.toml 3.1"), "affirmed");
  EXPECT_EQ(Eval("package-version poetry/pyproject.toml 0.1.0"), "affirmed");
  EXPECT_EQ(Eval("package-version CMakeLists.txt 0.2.0"), "affirmed");
  EXPECT_EQ(Eval("package-version missing/package.json 1.0"), "unverified");
  // Edited by a release: the cache keyed on size/mtime/inode sees it.
  Write("package.json", R"({"name": "web", "version": "3.0.10"})");
  EXPECT_EQ(Eval("package-version package.json 3.0.10"), "affirmed");
  EXPECT_EQ(Eval("package-version package.json 2.4.1"), "contradicted");
  Write("broken/Cargo.toml", "[package\nversion = ");
  EXPECT_EQ(Eval("package-version broken/Cargo.toml 1.0"), "unverified");
}

// Within one timestamp tick a same-size rewrite keeps mtime, size and inode (set back here
// to what they were): the content of a small file still changes the cached verdict.
TEST_F(AnchorPredicates, CacheSeesASameSizeRewriteWithinOneTick) {
  Write("package.json", R"({"name": "web", "version": "2.4.1"})");
  struct stat before {};
  ASSERT_EQ(::stat((root / "package.json").c_str(), &before), 0);
  EXPECT_EQ(Eval("package-version package.json 2.4.1"), "affirmed");
  {
    std::fstream f(root / "package.json", std::ios::in | std::ios::out | std::ios::binary);  // same inode
    f << R"({"name": "web", "version": "2.4.2"})";
  }
  const struct timespec times[2] = {before.st_atim, before.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, (root / "package.json").c_str(), times, 0), 0);
  struct stat after {};
  ASSERT_EQ(::stat((root / "package.json").c_str(), &after), 0);
  ASSERT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
  ASSERT_EQ(after.st_size, before.st_size);
  ASSERT_EQ(after.st_ino, before.st_ino);
  EXPECT_EQ(Eval("package-version package.json 2.4.1"), "contradicted");
}

// A Git index (version 2) written byte for byte as git's index-format.txt describes it.
void WriteIndex(const fs::path& file, const std::vector<std::string>& paths, int version = 2) {
  std::string b = "DIRC";
  auto be32 = [&](std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) b += static_cast<char>((v >> s) & 0xFF);
  };
  be32(static_cast<std::uint32_t>(version));
  be32(static_cast<std::uint32_t>(paths.size()));
  std::string previous;
  for (const std::string& p : paths) {
    const std::size_t start = b.size();
    b += std::string(40, '\0');  // stat data
    b += std::string(20, '\x11');  // SHA-1
    b += static_cast<char>((p.size() >> 8) & 0x0F);
    b += static_cast<char>(p.size() & 0xFF);
    if (version == 4) {
      // Strip the whole previous name (varint), then the full name.
      std::size_t strip = previous.size();
      std::string varint(1, static_cast<char>(strip & 127));
      while (strip >>= 7) {
        --strip;
        varint.insert(varint.begin(), static_cast<char>(128 | (strip & 127)));
      }
      b += varint + p + '\0';
    } else {
      b += p;
      const std::size_t len = ((62 + p.size() + 8) & ~static_cast<std::size_t>(7));
      b += std::string(len - (b.size() - start), '\0');
    }
    previous = p;
  }
  b += std::string(20, '\0');  // checksum (not checked)
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << b;
}

TEST_F(AnchorPredicates, GitTracked) {
  WriteIndex(root / ".git" / "index", {"README.md", "src/auth/session.ts", "src/main.cpp"});
  EXPECT_EQ(Eval("git-tracked src/main.cpp"), "affirmed");
  EXPECT_EQ(Eval("git-tracked src/auth"), "affirmed");  // a folder holding tracked files
  EXPECT_EQ(Eval("git-tracked src/au"), "contradicted");
  EXPECT_EQ(Eval("git-tracked build/out.o"), "contradicted");
  WriteIndex(root / ".git" / "index", {"README.md", "build/out.o"});  // the index changed
  EXPECT_EQ(Eval("git-tracked build/out.o"), "affirmed");
  WriteIndex(root / ".git" / "index", {"a.txt", "ab/c.txt", "ab/d.txt"}, 4);
  EXPECT_EQ(Eval("git-tracked ab/d.txt"), "affirmed");
  EXPECT_EQ(Eval("git-tracked ab/e.txt"), "contradicted");
  fs::remove_all(root / ".git");
  EXPECT_EQ(Eval("git-tracked a.txt"), "unverified");
}

TEST_F(AnchorPredicates, PathsThroughSymlinksOutsideAreRefused) {
  fs::create_directories(base / "outside");
  std::ofstream(base / "outside" / "package.json") << R"({"version": "1.0.0"})";
  fs::create_directory_symlink(base / "outside", root / "leak");
  EXPECT_EQ(Eval("package-version leak/package.json 1.0.0"), "unverified");
  EXPECT_NE(ConfineAnchor("package-version leak/package.json 1.0.0", root.string()), "");
  EXPECT_NE(ConfineAnchor("newest-of a.lock leak/package.json", root.string()), "");
  EXPECT_EQ(ConfineAnchor("newest-of a.lock b.lock", root.string()), "");
}

TEST_F(AnchorPredicates, PastTheDeadlineUncachedAnchorsAreUnverified) {
  Write("package.json", R"({"version": "1.0.0"})");
  AnchorDeadline passed{std::chrono::steady_clock::now() - std::chrono::seconds(1)};
  EXPECT_EQ(EvaluateAnchor("package-version package.json 1.0.0", root.string(), 0, passed), "unverified");
  EXPECT_EQ(EvaluateAnchor("glob-exists *.json", root.string(), 0, passed), "unverified");
  // Cached verdicts cost no file reads and are still given.
  EXPECT_EQ(Eval("package-version package.json 1.0.0"), "affirmed");
  EXPECT_EQ(EvaluateAnchor("package-version package.json 1.0.0", root.string(), 0, passed), "affirmed");
}

TEST_F(AnchorPredicates, GlobWalkIsBounded) {
  for (int i = 0; i < 50; ++i) Write("many/f" + std::to_string(i) + ".txt", "");
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Eval("glob-exists many/*.none"), "contradicted");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace kioku::semantic

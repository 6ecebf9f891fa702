// Project identity: normalized git remote plus the path inside the repository, read from
// hand-made .git layouts (no git process).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "host_test_util.hpp"
#include "kioku/sdk/project_identity.hpp"

namespace kioku::sdk {
namespace {

namespace fs = std::filesystem;
using kioku::host::testing::TempDir;

TEST(NormalizeGitRemoteTest, HttpsWithDotGit) {
  EXPECT_EQ(NormalizeGitRemote("https://github.com/acme/app.git"), "github.com/acme/app");
  EXPECT_EQ(NormalizeGitRemote("https://github.com/acme/app"), "github.com/acme/app");
}

TEST(NormalizeGitRemoteTest, ScpStyle) {
  EXPECT_EQ(NormalizeGitRemote("git@github.com:acme/app.git"), "github.com/acme/app");
  EXPECT_EQ(NormalizeGitRemote("github.com:acme/app"), "github.com/acme/app");
}

TEST(NormalizeGitRemoteTest, SshUrlWithUserAndPort) {
  EXPECT_EQ(NormalizeGitRemote("ssh://user@host.example:22/x"), "host.example/x");
  EXPECT_EQ(NormalizeGitRemote("ssh://git@github.com:22/acme/app.git"), "github.com/acme/app");
  EXPECT_EQ(NormalizeGitRemote("ssh://git@github.com/acme/app.git"), "github.com/acme/app");
}

TEST(NormalizeGitRemoteTest, TrailingSlash) {
  EXPECT_EQ(NormalizeGitRemote("https://github.com/acme/app/"), "github.com/acme/app");
  EXPECT_EQ(NormalizeGitRemote("https://github.com/acme/app.git/"), "github.com/acme/app");
}

TEST(NormalizeGitRemoteTest, UpperCaseHostLowered) {
  EXPECT_EQ(NormalizeGitRemote("https://GitHub.COM/acme/App.git"), "github.com/acme/App");
  EXPECT_EQ(NormalizeGitRemote("git@GITLAB.example.org:Team/Repo.git"), "gitlab.example.org/Team/Repo");
}

TEST(NormalizeGitRemoteTest, CredentialsAndWhitespaceDropped) {
  EXPECT_EQ(NormalizeGitRemote("  https://bob:s3cret@github.com/acme/app.git \n"), "github.com/acme/app");
}

TEST(NormalizeGitRemoteTest, AllFormsOfOneRepoAgree) {
  const std::string expected = NormalizeGitRemote("https://github.com/acme/app.git");
  for (const char* url : {"git@github.com:acme/app.git", "ssh://git@github.com:22/acme/app", "https://github.com/acme/app/",
                          "git://github.com/acme/app.git", "http://GITHUB.com/acme/app"}) {
    EXPECT_EQ(NormalizeGitRemote(url), expected) << url;
  }
}

TEST(NormalizeGitRemoteTest, LocalPathRemoteStaysAPath) {
  EXPECT_EQ(NormalizeGitRemote("/srv/git/../git/app.git"), "/srv/git/app.git");
}

// A hand-made repository: <root>/.git/config with the given remote sections.
fs::path MakeRepo(const TempDir& dir, const std::string& name, const std::string& remotes) {
  dir.Write(fs::path(name) / ".git" / "config",
            "[core]\n\trepositoryformatversion = 0\n\tbare = false\n" + remotes);
  dir.Write(fs::path(name) / ".git" / "HEAD", "ref: refs/heads/main\n");
  return fs::canonical(dir.path() / name);
}

const std::string kOrigin = "[remote \"origin\"]\n\turl = git@github.com:acme/app.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n";

TEST(ProjectIdentityTest, RepoRootIsTheNormalizedRemote) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  EXPECT_EQ(ProjectIdentity(repo), "github.com/acme/app");
}

TEST(ProjectIdentityTest, SubfolderIsTheRepositoryProject) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  fs::create_directories(repo / "packages" / "api");
  EXPECT_EQ(ProjectIdentity(repo / "packages" / "api"), "github.com/acme/app");
  const ProjectInfo info = ResolveProject(repo / "packages" / "api");
  EXPECT_EQ(info.root, repo.generic_string());
  EXPECT_EQ(info.path, "packages/api");
  EXPECT_EQ(info.repository, "github.com/acme/app");
}

TEST(ProjectIdentityTest, ConfiguredPackagesAreProjectsOfTheirOwn) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  fs::create_directories(repo / "packages" / "api" / "src");
  fs::create_directories(repo / "apps" / "web");
  fs::create_directories(repo / "docs");
  ProjectOptions options;
  options.packages = {"packages/*", "apps/web"};
  const ProjectInfo api = ResolveProject(repo / "packages" / "api" / "src", options);
  EXPECT_EQ(api.id, "github.com/acme/app//packages/api");
  EXPECT_EQ(api.root, (repo / "packages" / "api").generic_string());
  EXPECT_EQ(api.path, "src");
  EXPECT_EQ(ProjectIdentity(repo / "apps" / "web", options), "github.com/acme/app//apps/web");
  EXPECT_EQ(ProjectIdentity(repo / "docs", options), "github.com/acme/app");
  EXPECT_EQ(ProjectIdentity(repo / "packages", options), "github.com/acme/app");
}

TEST(ProjectIdentityTest, TwoClonesAreOneProject) {
  TempDir dir;
  auto a = MakeRepo(dir, "clone-a", kOrigin);
  auto b = MakeRepo(dir, "clone-b", "[remote \"origin\"]\n  url = https://github.com/acme/app\n");
  EXPECT_EQ(ProjectIdentity(a), ProjectIdentity(b));
}

TEST(ProjectIdentityTest, OriginPreferredOverOtherRemotes) {
  TempDir dir;
  auto repo = MakeRepo(dir, "fork", "[remote \"upstream\"]\n\turl = https://github.com/big/app.git\n" + kOrigin);
  EXPECT_EQ(ProjectIdentity(repo), "github.com/acme/app");
  auto only_upstream = MakeRepo(dir, "up", "[remote \"upstream\"]\n\turl = https://github.com/big/app.git\n");
  EXPECT_EQ(ProjectIdentity(only_upstream), "github.com/big/app");
}

TEST(ProjectIdentityTest, WorktreeFileWithGitdirAndCommondir) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  dir.Write("app/.git/worktrees/feature/commondir", "../..\n");
  dir.Write("app/.git/worktrees/feature/HEAD", "ref: refs/heads/feature\n");
  dir.Write("wt/.git", "gitdir: " + (repo / ".git" / "worktrees" / "feature").string() + "\n");
  fs::create_directories(dir.path() / "wt" / "src");
  EXPECT_EQ(ProjectIdentity(dir.path() / "wt"), "github.com/acme/app");
  EXPECT_EQ(ProjectIdentity(dir.path() / "wt" / "src"), "github.com/acme/app");
  EXPECT_EQ(ResolveProject(dir.path() / "wt" / "src").root, fs::canonical(dir.path() / "wt").generic_string());
}

TEST(ProjectIdentityTest, WorktreeWithRelativeGitdir) {
  TempDir dir;
  MakeRepo(dir, "app", kOrigin);
  dir.Write("app/.git/worktrees/rel/commondir", "../..\n");
  dir.Write("wt2/.git", "gitdir: ../app/.git/worktrees/rel\n");
  EXPECT_EQ(ProjectIdentity(dir.path() / "wt2"), "github.com/acme/app");
}

TEST(ProjectIdentityTest, SubmoduleStyleGitdirWithoutCommondir) {
  TempDir dir;
  dir.Write("super/.git/modules/lib/config", "[remote \"origin\"]\n\turl = https://github.com/acme/lib.git\n");
  dir.Write("super/lib/.git", "gitdir: ../.git/modules/lib\n");
  EXPECT_EQ(ProjectIdentity(dir.path() / "super" / "lib"), "github.com/acme/lib");
}

TEST(ProjectIdentityTest, NoRemoteUsesRepoPath) {
  TempDir dir;
  auto repo = MakeRepo(dir, "local", "");
  fs::create_directories(repo / "sub");
  EXPECT_EQ(ProjectIdentity(repo), repo.generic_string());
  EXPECT_EQ(ProjectIdentity(repo / "sub"), repo.generic_string());
}

TEST(ProjectIdentityTest, WorktreeWithoutRemoteIsItsMainCheckout) {
  TempDir dir;
  auto repo = MakeRepo(dir, "local", "");
  dir.Write("local/.git/worktrees/f/commondir", "../..\n");
  dir.Write("wt/.git", "gitdir: " + (repo / ".git" / "worktrees" / "f").string() + "\n");
  EXPECT_EQ(ProjectIdentity(dir.path() / "wt"), repo.generic_string());
}

TEST(ProjectIdentityTest, BrokenDotGitFileFallsBackToRepoPath) {
  TempDir dir;
  dir.Write("odd/.git", "not a gitdir line\n");
  auto root = fs::canonical(dir.path() / "odd");
  EXPECT_EQ(ProjectIdentity(root), root.generic_string());
}

TEST(ProjectIdentityTest, OutsideAnyRepoIsThePath) {
  TempDir dir;
  fs::create_directories(dir.path() / "plain" / "dir");
  auto root = fs::canonical(dir.path() / "plain" / "dir");
  EXPECT_EQ(ProjectIdentity(root), root.generic_string());
  EXPECT_EQ(ProjectIdentity(dir.path() / "plain" / "dir" / ".." / "dir"), root.generic_string());
}

TEST(ExpandHomeTest, TildeForms) {
  kioku::host::testing::ScopedEnv home("HOME", "/home/dev");
  EXPECT_EQ(ExpandHome("~"), "/home/dev");
  EXPECT_EQ(ExpandHome("~/x"), "/home/dev/x");
  EXPECT_EQ(ExpandHome("~bob/x"), "~bob/x");
  EXPECT_EQ(ExpandHome("/abs"), "/abs");
}

TEST(ProjectOfRecordTest, ExistingCwdResolvesLikeALiveCaller) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  fs::create_directories(repo / "src");
  EXPECT_EQ(ProjectOfRecord({(repo / "src").string(), "", "main"}).id, "github.com/acme/app");
}

TEST(ProjectOfRecordTest, MissingCwdUsesRecordedRemoteThenAncestorThenPath) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  EXPECT_EQ(ProjectOfRecord({"/nowhere/kelpie", "git@git.kelpie.internal:sensors/kelpie.git", ""}).id,
            "git.kelpie.internal/sensors/kelpie");
  EXPECT_EQ(ProjectOfRecord({(repo / "deleted" / "pkg").string(), "", ""}).id, "github.com/acme/app");
  EXPECT_EQ(ProjectOfRecord({"/nowhere/at/all/", "", ""}).id, "/nowhere/at/all");
  kioku::host::testing::ScopedEnv home("HOME", "/home/dev");
  EXPECT_EQ(ProjectOfRecord({"~/tidepool", "", ""}).id, "/home/dev/tidepool");
  EXPECT_TRUE(ProjectOfRecord({"", "", ""}).id.empty());
}

TEST(CanonicalProjectKeyTest, OldSpellingsMove) {
  TempDir dir;
  auto repo = MakeRepo(dir, "app", kOrigin);
  fs::create_directories(repo / "apps" / "api");
  EXPECT_EQ(CanonicalProjectKey("github.com/acme/app//apps/api"), "github.com/acme/app");
  EXPECT_EQ(CanonicalProjectKey("github.com/acme/app"), "github.com/acme/app");
  EXPECT_EQ(CanonicalProjectKey(repo.string()), "github.com/acme/app");
  EXPECT_EQ(CanonicalProjectKey((repo / "apps" / "api").string()), "github.com/acme/app");
  ProjectOptions options;
  options.packages = {"apps/*"};
  EXPECT_EQ(CanonicalProjectKey("github.com/acme/app//apps/api/src", options), "github.com/acme/app//apps/api");
  EXPECT_EQ(CanonicalProjectKey("", options), "");
}

TEST(FileUriPathTest, LocalUrisOnly) {
  EXPECT_EQ(FileUriPath("file:///home/u/my%20project/"), "/home/u/my project");
  EXPECT_EQ(FileUriPath("file://localhost/srv/x"), "/srv/x");
  EXPECT_EQ(FileUriPath("FILE:///a"), "/a");
  EXPECT_EQ(FileUriPath("file://other-host/a"), "");
  EXPECT_EQ(FileUriPath("https://x/a"), "");
}

}  // namespace
}  // namespace kioku::sdk

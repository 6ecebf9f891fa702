// `kioku doctor --online` against the fake embeddings server (loopback, port 0).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/commands.hpp"
#include "fake_openai_server.hpp"

namespace kioku::host {
namespace {

using testing::FakeOpenAiServer;

// `kioku doctor --online` calls the endpoint once; without --online it only reports the config.
TEST(DoctorOnline, ReportsTheEndpointUpOrDown) {
  FakeOpenAiServer server{24};
  const auto dir = std::filesystem::temp_directory_path() / ("kioku-doctor-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write_config = [&](const std::string& url) {
    std::ofstream(dir / "kioku.yaml") << "home: " << (dir / "home").string() << "\nplugins: {enabled: []}\n"
                                      << "providers: {embedding: {url: '" << url << "', model: fake, max_retries: 0}}\n";
  };
  cli::GlobalOptions global;
  global.config_path = (dir / "kioku.yaml").string();

  write_config(server.Url());
  std::ostringstream up;
  cli::Doctor(global, false, up, true);
  EXPECT_NE(up.str().find("ok    embedding endpoint: http://127.0.0.1:"), std::string::npos) << up.str();
  EXPECT_NE(up.str().find("24 dimensions"), std::string::npos) << up.str();
  EXPECT_EQ(server.Requests(), 1);

  std::ostringstream offline;
  cli::Doctor(global, false, offline, false);
  EXPECT_NE(offline.str().find("not contacted; use --online"), std::string::npos) << offline.str();
  EXPECT_EQ(server.Requests(), 1);

  write_config("http://127.0.0.1:1");
  std::ostringstream down;
  EXPECT_EQ(cli::Doctor(global, false, down, true), 1);
  EXPECT_NE(down.str().find("FAIL  embedding endpoint: embedding endpoint http://127.0.0.1:1: connect failed"),
            std::string::npos)
      << down.str();
  EXPECT_NE(down.str().find("writes and text recall still work"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// The circuit every process on the home shares (providers/provider_call.hpp): doctor reports
// it open, probes anyway with --online, and a good answer closes it for everyone.
TEST(DoctorOnline, ReportsTheSharedCircuitAndAGoodProbeClosesIt) {
  FakeOpenAiServer server{24};
  const auto dir = std::filesystem::temp_directory_path() / ("kioku-doctor-circuit-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "home");
  std::ofstream(dir / "kioku.yaml") << "home: " << (dir / "home").string() << "\nplugins: {enabled: []}\n"
                                    << "providers: {embedding: {url: '" << server.Url() << "', model: fake}}\n";
  const auto state = dir / "home" / "embedding.breaker";
  std::ofstream(state) << server.Url() << " fake\n5 99999999999999\nconnect failed\n";
  cli::GlobalOptions global;
  global.config_path = (dir / "kioku.yaml").string();

  std::ostringstream offline;
  cli::Doctor(global, false, offline, false);
  EXPECT_NE(offline.str().find("FAIL  embedding endpoint"), std::string::npos) << offline.str();
  EXPECT_NE(offline.str().find("circuit open after 5 failures in a row (last: connect failed)"), std::string::npos)
      << offline.str();
  EXPECT_EQ(server.Requests(), 0);

  std::ostringstream online;
  cli::Doctor(global, false, online, true);
  EXPECT_NE(online.str().find("(its open circuit is now closed)"), std::string::npos) << online.str();
  EXPECT_EQ(server.Requests(), 1);
  std::ostringstream after;
  cli::Doctor(global, false, after, false);
  EXPECT_NE(after.str().find("not contacted; use --online"), std::string::npos) << after.str();
  std::filesystem::remove_all(dir);
}

// The chat endpoint gets one structured probe with --online; a model answering outside the
// JSON shape is reported as such, an endpoint down as down.
TEST(DoctorOnline, ChecksTheChatEndpoint) {
  FakeOpenAiServer server;
  const auto dir = std::filesystem::temp_directory_path() / ("kioku-doctor-chat-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto write_config = [&](const std::string& url) {
    std::ofstream(dir / "kioku.yaml") << "home: " << (dir / "home").string() << "\nplugins: {enabled: []}\n"
                                      << "providers: {chat: {url: '" << url << "', model: fake, max_retries: 0}}\n";
  };
  cli::GlobalOptions global;
  global.config_path = (dir / "kioku.yaml").string();
  write_config(server.Url());
  server.PushChatReply("{\"ok\": true}");
  std::ostringstream up;
  cli::Doctor(global, false, up, true);  // the exit code also reflects the plugin path here
  EXPECT_NE(up.str().find("ok    chat endpoint: http://127.0.0.1:"), std::string::npos) << up.str();
  EXPECT_NE(up.str().find("structured answer in"), std::string::npos) << up.str();
  server.PushChatReply("I am a helpful assistant");
  std::ostringstream prose;
  cli::Doctor(global, false, prose, true);
  EXPECT_NE(prose.str().find("not in the asked JSON shape"), std::string::npos) << prose.str();
  write_config("http://127.0.0.1:1");
  std::ostringstream down;
  EXPECT_EQ(cli::Doctor(global, false, down, true), 1);
  EXPECT_NE(down.str().find("FAIL  chat endpoint: chat endpoint http://127.0.0.1:1: connect failed"), std::string::npos)
      << down.str();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace kioku::host

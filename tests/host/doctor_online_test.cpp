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
  EXPECT_EQ(cli::Doctor(global, false, up, true), 0) << up.str();
  EXPECT_NE(up.str().find("ok    chat endpoint: http://127.0.0.1:"), std::string::npos) << up.str();
  EXPECT_NE(up.str().find("structured answer in"), std::string::npos) << up.str();
  server.PushChatReply("I am a helpful assistant");
  std::ostringstream prose;
  EXPECT_EQ(cli::Doctor(global, false, prose, true), 1);
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

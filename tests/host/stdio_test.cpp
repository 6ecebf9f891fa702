// stdio transport: RunStdio in-process over pipes (and a regular file, /dev/null), with
// split lines, bad bytes, oversized messages, EOF and the wake fd.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <future>
#include <map>
#include <sstream>
#include <thread>

#include "gate_plugin.hpp"
#include "host_test_util.hpp"
#include "kioku/sdk/text.hpp"
#include "mcp/dispatcher.hpp"
#include "runtime.hpp"
#include "transport/stdio_server.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::FixtureModule;
using testing::Gate;
using testing::GatePlugin;
using testing::TempDir;

void WriteAll(int fd, const std::string& data) {
  std::size_t off = 0;
  while (off < data.size()) {
    ssize_t n = ::write(fd, data.data() + off, data.size() - off);
    if (n < 0 && errno == EINTR) continue;
    ASSERT_GT(n, 0) << "write failed";
    off += static_cast<std::size_t>(n);
  }
}

std::string ReadAll(int fd) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

// Reads one '\n'-terminated line from `fd` (blocking).
std::string ReadLine(int fd) {
  std::string line;
  char c;
  while (::read(fd, &c, 1) == 1 && c != '\n') line += c;
  return line;
}

std::string Line(const json& message) { return message.dump() + "\n"; }

json Req(json id, const std::string& method, json params = json::object()) {
  return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", std::move(params)}};
}

class StdioTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RuntimeOptions o;
    o.data_dir = dir_.path();
    o.clock = std::make_shared<sdk::ManualClock>();
    runtime_ = std::make_unique<Runtime>(o);
    runtime_->LoadPlugin("fixture", FixtureModule("fixture"));
    runtime_->AddPlugin("gate", [this](sdk::HostServices& h) { return std::make_unique<GatePlugin>(h, gate_); });
    runtime_->Start();
    dispatcher_ = std::make_unique<mcp::Dispatcher>(*runtime_, mcp::DispatcherOptions{});
    session_.id = "stdio";
  }

  // Serves `writes` (written in order, then stdin closed) and returns every output line.
  std::vector<std::string> Serve(const std::vector<std::string>& writes, StdioOptions options = {}) {
    int in[2], out[2];
    EXPECT_EQ(::pipe2(in, O_CLOEXEC), 0);
    EXPECT_EQ(::pipe2(out, O_CLOEXEC), 0);
    options.in_fd = in[0];
    options.out_fd = out[1];
    std::thread server([&] {
      RunStdio(*dispatcher_, session_, options);
      ::close(out[1]);
    });
    std::string output;
    std::thread reader([&] { output = ReadAll(out[0]); });
    for (const auto& w : writes) WriteAll(in[1], w);
    ::close(in[1]);
    server.join();
    reader.join();
    ::close(in[0]);
    ::close(out[0]);
    return Lines(output);
  }

  static std::vector<std::string> Lines(const std::string& output) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    for (std::size_t nl; (nl = output.find('\n', start)) != std::string::npos; start = nl + 1) {
      lines.push_back(output.substr(start, nl - start));
    }
    EXPECT_EQ(start, output.size()) << "output must end with a newline";
    return lines;
  }

  // Parses output lines into responses keyed by id (dumped); errors without id under "null".
  static std::multimap<std::string, json> ById(const std::vector<std::string>& lines) {
    std::multimap<std::string, json> out;
    for (const auto& l : lines) {
      EXPECT_TRUE(sdk::IsValidUtf8(l)) << l;
      const json r = json::parse(l);
      // A missing id is keyed "absent": errors whose id cannot be read must say "id": null.
      out.emplace(r.contains("id") ? r["id"].dump() : std::string("absent"), r);
    }
    return out;
  }

  TempDir dir_;
  Gate gate_;
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<mcp::Dispatcher> dispatcher_;
  mcp::Session session_;
};

TEST_F(StdioTest, SeveralRequestsEachAnswered) {
  auto lines = Serve({Line(Req(1, "initialize", {{"protocolVersion", "2025-11-25"}})) +
                          Line({{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}}) +
                          Line(Req(2, "tools/list")) +
                          Line(Req(3, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", "hi"}}}})) +
                          Line(Req("four", "ping"))});
  ASSERT_EQ(lines.size(), 4u);
  auto by_id = ById(lines);
  EXPECT_EQ(by_id.find("1")->second["result"]["protocolVersion"], "2025-11-25");
  EXPECT_EQ(by_id.find("2")->second["result"]["tools"].size(), 5u);  // the fixture's four and gate_wait
  EXPECT_EQ(by_id.find("3")->second["result"]["structuredContent"]["echo"], "hi");
  EXPECT_EQ(by_id.find("\"four\"")->second["result"], json::object());
}

TEST_F(StdioTest, LineSplitAcrossWrites) {
  const std::string line = Line(Req(7, "ping"));
  auto lines = Serve({line.substr(0, 5), line.substr(5, 10), line.substr(15)});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["id"], 7);
}

TEST_F(StdioTest, LineLongerThanOneReadIsReassembled) {
  // 200 KB cannot arrive in one 64 KB read, so the line necessarily spans reads.
  auto big = Req(8, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", std::string(200'000, 'z')}}}});
  auto lines = Serve({Line(big), Line(Req(9, "ping"))});
  auto by_id = ById(lines);
  ASSERT_EQ(by_id.count("8"), 1u);
  EXPECT_EQ(by_id.find("8")->second["result"]["isError"], true);
  EXPECT_THAT(by_id.find("8")->second["result"]["content"][0]["text"].get<std::string>(),
              HasSubstr("text: too long (200000 characters; at most 1000)"));
  EXPECT_EQ(by_id.count("9"), 1u);
}

TEST_F(StdioTest, FinalLineWithoutNewlineIsHandled) {
  auto lines = Serve({Line(Req(1, "ping")) + Req(2, "ping").dump()});
  auto by_id = ById(lines);
  EXPECT_EQ(by_id.count("1"), 1u);
  EXPECT_EQ(by_id.count("2"), 1u);
}

TEST_F(StdioTest, CrLfAndBlankLinesAccepted) {
  auto lines = Serve({"\n  \n" + Req(1, "ping").dump() + "\r\n\r\n"});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["id"], 1);
}

TEST_F(StdioTest, InvalidJsonAnsweredAndServerContinues) {
  auto lines = Serve({"{\"jsonrpc\": \"2.0\", \"id\": 1, \n", Line(Req(2, "ping")), "[1, 2\n", Line(Req(3, "ping"))});
  auto by_id = ById(lines);
  ASSERT_EQ(by_id.count("null"), 2u);
  for (auto [it, end] = by_id.equal_range("null"); it != end; ++it) {
    EXPECT_EQ(it->second["error"]["code"], mcp::kParseError);
  }
  EXPECT_EQ(by_id.count("2"), 1u);
  EXPECT_EQ(by_id.count("3"), 1u);
}

TEST_F(StdioTest, InvalidUtf8LineIsParseErrorAndServerContinues) {
  auto lines = Serve({"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n",
                      "\xc3\x28\n", Line(Req(2, "ping"))});
  auto by_id = ById(lines);
  // The first line is JSON but for its bytes: its id can be read, so the client is told.
  EXPECT_EQ(by_id.count("1"), 1u);
  EXPECT_EQ(by_id.find("1")->second["error"]["code"], mcp::kParseError);
  EXPECT_EQ(by_id.count("null"), 1u);
  EXPECT_EQ(by_id.find("null")->second["error"]["code"], mcp::kParseError);
  EXPECT_EQ(by_id.count("2"), 1u);
}

TEST_F(StdioTest, HostileJsonAnsweredAndServerContinues) {
  // A million-deep array (2 MB, under the limit) would overflow the stack if copied.
  auto lines = Serve({std::string(1'000'000, '[') + std::string(1'000'000, ']') + "\n",
                      R"({"jsonrpc":"2.0","id":1e999,"method":"ping"})" "\n", Line(Req(2, "ping"))});
  auto by_id = ById(lines);
  ASSERT_EQ(by_id.count("null"), 2u);
  for (auto [it, end] = by_id.equal_range("null"); it != end; ++it) {
    EXPECT_EQ(it->second["error"]["code"], mcp::kParseError);
  }
  EXPECT_EQ(by_id.count("2"), 1u);
}

TEST_F(StdioTest, JsonArrayIsInvalidRequest) {
  auto lines = Serve({"[" + Req(1, "ping").dump() + "]\n", Line(Req(2, "ping"))});
  auto by_id = ById(lines);
  ASSERT_EQ(by_id.count("null"), 1u);
  EXPECT_EQ(by_id.find("null")->second["error"]["code"], mcp::kInvalidRequest);
  EXPECT_EQ(by_id.count("2"), 1u);
}

TEST_F(StdioTest, OversizedMessageRefusedAndNextAnswered) {
  StdioOptions o;
  o.max_message_bytes = 100;
  auto big = Req(1, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", std::string(150, 'x')}}}});
  auto huge = Req(2, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", std::string(300'000, 'y')}}}});
  auto lines = Serve({Line(big) + Line(Req(3, "ping")), Line(huge), Line(Req(4, "ping")), std::string(500, 'q')}, o);
  auto by_id = ById(lines);
  // big (inside one read), huge (across reads) and the unterminated tail: three refusals.
  ASSERT_EQ(by_id.count("null"), 3u) << ::testing::PrintToString(lines);
  for (auto [it, end] = by_id.equal_range("null"); it != end; ++it) {
    EXPECT_EQ(it->second["error"]["code"], mcp::kInvalidRequest);
    EXPECT_THAT(it->second["error"]["message"].get<std::string>(), HasSubstr("longer than 100 bytes"));
  }
  EXPECT_EQ(by_id.count("1"), 0u);
  EXPECT_EQ(by_id.count("2"), 0u);
  EXPECT_EQ(by_id.count("3"), 1u);
  EXPECT_EQ(by_id.count("4"), 1u);
}

TEST_F(StdioTest, MessageAtTheLimitIsAccepted) {
  StdioOptions o;
  std::string ping = Req(1, "ping").dump();
  o.max_message_bytes = ping.size();
  auto lines = Serve({ping + "\n", ping + "\n"}, o);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(json::parse(lines[0])["result"], json::object());
}

TEST_F(StdioTest, TenMegabyteArgumentIsSchemaErrorNotACrash) {
  const std::string ten_mb(10 * 1024 * 1024, 'm');
  auto lines = Serve({Line(Req(1, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", ten_mb}}}})),
                      Line(Req(2, "ping"))});
  auto by_id = ById(lines);
  ASSERT_EQ(by_id.count("1"), 1u);
  const auto& result = by_id.find("1")->second["result"];
  EXPECT_EQ(result["isError"], true);
  const auto text = result["content"][0]["text"].get<std::string>();
  EXPECT_THAT(text, HasSubstr("text: too long (10485760 characters; at most 1000)"));
  EXPECT_LT(text.size(), 1000u);  // the value is not echoed back
  EXPECT_EQ(by_id.count("2"), 1u);
}

TEST_F(StdioTest, EofOnEmptyInput) {
  EXPECT_TRUE(Serve({}).empty());
}

TEST_F(StdioTest, DevNullAsStdin) {
  int null_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(null_fd, 0);
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  StdioOptions o;
  o.in_fd = null_fd;
  o.out_fd = out[1];
  RunStdio(*dispatcher_, session_, o);
  ::close(out[1]);
  EXPECT_EQ(ReadAll(out[0]), "");
  ::close(out[0]);
  ::close(null_fd);
}

TEST_F(StdioTest, RegularFileAsStdin) {
  auto file = dir_.Write("requests.jsonl", Line(Req(1, "ping")) +
                                               Line(Req(2, "tools/call", {{"name", "echo_fail"}})) +
                                               Req(3, "ping").dump());
  int in_fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(in_fd, 0);
  int out[2];
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  StdioOptions o;
  o.in_fd = in_fd;
  o.out_fd = out[1];
  RunStdio(*dispatcher_, session_, o);  // output fits the pipe buffer
  ::close(out[1]);
  auto by_id = ById(Lines(ReadAll(out[0])));
  ::close(out[0]);
  ::close(in_fd);
  EXPECT_EQ(by_id.count("1"), 1u);
  EXPECT_EQ(by_id.find("2")->second["result"]["isError"], true);
  EXPECT_EQ(by_id.count("3"), 1u);
}

TEST_F(StdioTest, InFlightCallsFinishBeforeReturn) {
  std::vector<std::string> writes;
  for (int i = 0; i < 20; ++i) {
    writes.push_back(Line(Req(i, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", std::to_string(i)}}}})));
  }
  auto by_id = ById(Serve(writes));
  ASSERT_EQ(by_id.size(), 20u);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(by_id.find(std::to_string(i))->second["result"]["structuredContent"]["echo"], std::to_string(i));
  }
}

TEST_F(StdioTest, InvalidUtf8ToolOutputIsValidOnTheWire) {
  auto lines = Serve({Line(Req(1, "tools/call", {{"name", "echo_bytes"}}))});
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_TRUE(sdk::IsValidUtf8(lines[0]));
  EXPECT_THAT(lines[0], HasSubstr("bad \xef\xbf\xbd"));
}

// stdin, stdout and wake pipes for RunStdio; the ends still open are closed at the end.
struct Pipes {
  int in[2] = {-1, -1};
  int out[2] = {-1, -1};
  int wake[2] = {-1, -1};
  Pipes() {
    for (int* p : {in, out, wake}) EXPECT_EQ(::pipe2(p, O_CLOEXEC), 0);
  }
  ~Pipes() {
    for (int* p : {in, out, wake}) {
      for (int i : {0, 1}) {
        if (p[i] >= 0) ::close(p[i]);
      }
    }
  }
  StdioOptions Options(bool wake_fd = true) const {
    StdioOptions o;
    o.in_fd = in[0];
    o.out_fd = out[1];
    o.wake_fd = wake_fd ? wake[0] : -1;
    return o;
  }
  static void Close(int& fd) {
    ::close(fd);
    fd = -1;
  }
};

TEST_F(StdioTest, WakeFdEndsTheLoop) {
  Pipes p;
  const StdioOptions o = p.Options();
  std::thread server([&] { RunStdio(*dispatcher_, session_, o); });
  WriteAll(p.in[1], Line(Req(1, "ping")));
  EXPECT_EQ(json::parse(ReadLine(p.out[0]))["id"], 1);  // serving while stdin stays open
  WriteAll(p.wake[1], "x");
  server.join();  // returns although stdin was never closed
}

// The SDKs' close() ends stdin, then sends SIGTERM, then SIGKILL. The stop after the end of
// stdin still stops the running call and keeps the queued one from starting; it was ignored
// until every queued call had run (and the SIGKILL came first). The running call is
// answered with what it returned.
TEST_F(StdioTest, WakeAfterEofCancelsTheRunningCallAndDropsTheQueued) {
  Pipes p;
  StdioOptions o = p.Options();
  o.workers = 1;  // the second call queues behind the first
  auto started = gate_.started.get_future();
  std::thread server([&] {
    RunStdio(*dispatcher_, session_, o);
    Pipes::Close(p.out[1]);
  });
  std::string output;
  std::thread reader([&] { output = ReadAll(p.out[0]); });
  WriteAll(p.in[1], Line(Req(1, "tools/call", {{"name", "gate_wait"}})) +
                        Line(Req(2, "tools/call", {{"name", "echo_say"}, {"arguments", {{"text", "queued"}}}})));
  Pipes::Close(p.in[1]);
  started.wait();
  WriteAll(p.wake[1], "x");
  server.join();  // without the stop, gate_wait would run forever
  reader.join();
  EXPECT_TRUE(gate_.saw_cancel.load());
  EXPECT_THAT(output, Not(HasSubstr("queued")));
  const auto by_id = ById(Lines(output));
  ASSERT_EQ(by_id.size(), 1u) << output;
  EXPECT_EQ(by_id.find("1")->second["result"]["content"][0]["text"], "cancelled");
}

std::string ThisThread() {
  std::ostringstream id;
  id << std::this_thread::get_id();
  return id.str();
}

// A plugin whose one tool says which thread it ran on and whether the warming had ended.
class WhereRunPlugin final : public sdk::Plugin {
 public:
  WhereRunPlugin(sdk::HostServices&, const std::atomic<bool>& warmed) : warmed_(warmed) {}
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec where;
    where.name = "where_run";
    where.description = "Says which thread it ran on.";
    r.AddTool(where, [this](const nlohmann::json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok(ThisThread() + (warmed_.load() ? " warmed" : " cold"));
    });
  }

 private:
  const std::atomic<bool>& warmed_;
};

// serve warms worker 0 (opens its database connection) beside the client's handshake. The
// first tool call waits for the warming and then runs on that worker, not on worker 1,
// which would open a connection of its own.
TEST(StdioWarmWorker, TheFirstCallWaitsForTheWarmingAndRunsOnTheWarmedWorker) {
  TempDir dir;
  RuntimeOptions ro;
  ro.data_dir = dir.path();
  ro.clock = std::make_shared<sdk::ManualClock>();
  std::atomic<bool> warmed{false};
  Runtime runtime(ro);
  runtime.AddPlugin("where", [&warmed](sdk::HostServices& h) { return std::make_unique<WhereRunPlugin>(h, warmed); });
  runtime.Start();
  mcp::Dispatcher dispatcher(runtime, mcp::DispatcherOptions{});
  mcp::Session session;
  session.id = "stdio";
  Pipes p;
  StdioOptions o = p.Options();
  std::promise<void> release;
  std::string warm_thread;
  o.warm_worker = [&] {
    warm_thread = ThisThread();
    runtime.Db();
    release.get_future().wait();
    warmed = true;
  };
  std::thread server([&] { RunStdio(dispatcher, session, o); });
  WriteAll(p.in[1], Line(Req(1, "tools/call", {{"name", "where_run"}})));
  release.set_value();  // most often after the reader met the call: it waited for this
  const json answer = json::parse(ReadLine(p.out[0]));
  Pipes::Close(p.in[1]);
  server.join();
  EXPECT_EQ(answer["result"]["content"][0]["text"], warm_thread + " warmed") << answer.dump();
}

// A line cut off by a stop is a fragment, not a message: it gets no parse error (-32700).
TEST_F(StdioTest, WakeDropsALineWithoutItsNewline) {
  Pipes p;
  const StdioOptions o = p.Options();
  std::thread server([&] { RunStdio(*dispatcher_, session_, o); });
  // One write (atomic on a pipe): once the ping is answered, the fragment has been read.
  WriteAll(p.in[1], Line(Req(1, "ping")) + R"({"jsonrpc":"2.0","id":2,"meth)");
  EXPECT_EQ(json::parse(ReadLine(p.out[0]))["id"], 1);
  WriteAll(p.wake[1], "x");
  server.join();
  Pipes::Close(p.out[1]);
  EXPECT_EQ(ReadAll(p.out[0]), "");
}

// A client that stops reading is gone even while it keeps stdin open: the loop ends (the
// write end of a pipe whose reader closed polls as POLLERR), nothing written needed.
TEST_F(StdioTest, ReaderClosingStdoutEndsTheLoop) {
  Pipes p;
  const StdioOptions o = p.Options(/*wake_fd=*/false);
  std::thread server([&] { RunStdio(*dispatcher_, session_, o); });
  WriteAll(p.in[1], Line(Req(1, "ping")));
  EXPECT_EQ(json::parse(ReadLine(p.out[0]))["id"], 1);
  Pipes::Close(p.out[0]);
  server.join();  // returns although stdin was never closed
}

}  // namespace
}  // namespace kioku::host

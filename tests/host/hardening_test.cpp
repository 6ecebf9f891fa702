// Host hardening (issue 9): deferred bookkeeping writes, reads while another connection
// holds the write lock, busy answers, start-up without the write lock, the result byte cap,
// cancellation of queued calls, removed modern ping, invalid UTF-8 with a readable id, and
// cancellation of a call still queued for a stdio worker at shutdown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <thread>

#include <SQLiteCpp/Statement.h>

#include "connection_pool.hpp"
#include "deferred_writes.hpp"
#include "host_test_util.hpp"
#include "kioku/sdk/db.hpp"
#include "kioku/sdk/text.hpp"
#include "logging.hpp"
#include "mcp/dispatcher.hpp"
#include "migrations.hpp"
#include "runtime.hpp"
#include "transport/stdio_server.hpp"

namespace kioku::host {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::TempDir;

// Holds the database's write lock from a connection of its own, as another kioku process
// in the middle of a long write would.
class WriteLockHolder {
 public:
  explicit WriteLockHolder(const std::filesystem::path& db) : db_(sdk::OpenDatabase(db.string(), 0)) {
    db_.exec("BEGIN IMMEDIATE");
  }
  ~WriteLockHolder() { Release(); }
  void Release() {
    if (held_) db_.exec("ROLLBACK");
    held_ = false;
  }

 private:
  SQLite::Database db_;
  bool held_ = true;
};

// A layer with a read tool that counts its reads through DeferWrite (as memory_recall
// counts recalls), a plain write tool, and tools returning oversized results.
class CounterPlugin final : public sdk::Plugin {
 public:
  explicit CounterPlugin(sdk::HostServices& host) : host_(host) {}
  std::vector<sdk::Migration> Migrations() const override {
    return {{1, "counter", "CREATE TABLE counter_reads (n INTEGER NOT NULL); INSERT INTO counter_reads VALUES (0);"
                           "CREATE TABLE counter_rows (v TEXT)",
             {}}};
  }
  void Register(sdk::Registrar& r) override {
    sdk::ToolSpec read;
    read.name = "counter_read";
    read.description = "Reads, and counts the read off the request thread.";
    read.annotations.read_only = true;
    r.AddTool(read, [this](const json&, const sdk::CallContext& ctx) {
      budget_seen = ctx.result_budget_bytes;
      const auto n = host_.Db().execAndGet("SELECT n FROM counter_reads").getInt();
      host_.DeferWrite([](SQLite::Database& db) { db.exec("UPDATE counter_reads SET n = n + 1"); });
      return sdk::ToolResult::Ok("reads so far: " + std::to_string(n));
    });
    sdk::ToolSpec write;
    write.name = "counter_write";
    write.description = "Writes a row.";
    r.AddTool(write, [this](const json&, const sdk::CallContext&) {
      auto& db = host_.Db();
      sdk::WithWriteTransaction(db, [&] { db.exec("INSERT INTO counter_rows VALUES ('x')"); }, 2);
      return sdk::ToolResult::Ok("written");
    });
    sdk::ToolSpec note;
    note.name = "counter_note";
    note.description = "Stores args.v; refuses an unknown one by quoting it (as id lookups do).";
    r.AddTool(note, [this](const json& args, const sdk::CallContext&) {
      ++notes_called;
      const std::string v = args.value("v", std::string());
      if (v.starts_with("unknown")) throw sdk::ToolError("unknown note '" + v + "'; send a known one");
      auto& db = host_.Db();
      sdk::WithWriteTransaction(db, [&] {
        SQLite::Statement q(db, "INSERT INTO counter_rows VALUES (?)");
        q.bind(1, v);
        q.exec();
      });
      return sdk::ToolResult::Ok("stored");
    });
    sdk::ToolSpec big_text;
    big_text.name = "counter_big_text";
    big_text.description = "Returns far more text than the cap, in 3-byte characters.";
    r.AddTool(big_text, [](const json&, const sdk::CallContext&) {
      std::string text;
      for (int i = 0; i < 100'000; ++i) text += "記";
      return sdk::ToolResult::Ok(text);
    });
    sdk::ToolSpec big_structured;
    big_structured.name = "counter_big_structured";
    big_structured.description = "Returns a structuredContent over the cap.";
    big_structured.annotations.read_only = true;
    r.AddTool(big_structured, [](const json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok("many", json{{"items", std::string(200'000, 'x')}});
    });
    sdk::ToolSpec big_write;
    big_write.name = "counter_big_write";
    big_write.description = "Writes, then returns a structuredContent over the cap.";
    r.AddTool(big_write, [](const json&, const sdk::CallContext&) {
      return sdk::ToolResult::Ok("wrote", json{{"items", std::string(200'000, 'x')}});
    });
  }
  sdk::HostServices& host_;
  std::atomic<std::size_t> budget_seen{0};
  std::atomic<int> notes_called{0};
};

class HardeningTest : public ::testing::Test {
 protected:
  std::unique_ptr<Runtime> Make(int busy_timeout_ms = 200, bool one_shot = false) {
    RuntimeOptions o;
    o.one_shot = one_shot;
    o.data_dir = dir_.path();
    o.clock = clock_;
    o.busy_timeout_ms = busy_timeout_ms;
    o.max_result_bytes = 16 * 1024;
    auto rt = std::make_unique<Runtime>(o);
    rt->AddPlugin("counter", [this](sdk::HostServices& h) {
      auto p = std::make_unique<CounterPlugin>(h);
      plugin_ = p.get();
      return p;
    });
    return rt;
  }
  int Reads(Runtime& rt) { return rt.Db().execAndGet("SELECT n FROM counter_reads").getInt(); }
  std::filesystem::path DbPath() const { return dir_.path() / "kioku.db"; }

  TempDir dir_;
  std::shared_ptr<sdk::ManualClock> clock_ = std::make_shared<sdk::ManualClock>();
  CounterPlugin* plugin_ = nullptr;
};

TEST_F(HardeningTest, ReadsAnswerWhileAnotherConnectionHoldsTheWriteLock) {
  auto rt = Make();
  rt->Start();
  WriteLockHolder lock(DbPath());
  for (int i = 0; i < 20; ++i) {
    auto r = rt->CallTool("counter_read", json::object());
    ASSERT_FALSE(r.is_error) << r.text;  // before the fix: the counter write hit SQLITE_BUSY
  }
  lock.Release();
  rt->FlushDeferredWrites();
  EXPECT_EQ(Reads(*rt), 20);  // nothing lost: the batch waited for the lock
}

// Issue 9: a NUL (U+0000) in any argument string or key is refused by the host before the
// handler runs, with a message naming where — never cut at the NUL (a ToolError quoting the
// argument would have been: what() is a C string), never stored.
TEST_F(HardeningTest, NulCharactersInArgumentsAreRefusedWholeAndNamed) {
  auto rt = Make();
  rt->Start();
  const int rows_before = rt->Db().execAndGet("SELECT count(*) FROM counter_rows").getInt();
  struct Case {
    json args;
    std::string named;
  };
  const std::vector<Case> cases{
      {{{"v", std::string("ab\0cd", 5)}}, "v holds a NUL character (U+0000) at character 2"},
      {{{"v", std::string("unknown \0 x", 11)}}, "v holds a NUL character (U+0000) at character 8"},
      {{{"v", "ok"}, {"list", {{{"k", "x"}}, {{"k", std::string("\xc3\xa9\0", 3)}}}}},
       "list[1].k holds a NUL character (U+0000) at character 1"},
      {{{"v", "ok"}, {"meta", {{std::string("a\0b", 3), 1}}}}, "the key \"a\\u0000b\" in meta holds"},
  };
  for (const auto& c : cases) {
    auto r = rt->CallTool("counter_note", c.args);
    EXPECT_TRUE(r.is_error) << c.named;
    EXPECT_THAT(r.text, HasSubstr(c.named));
    EXPECT_THAT(r.text, HasSubstr("nothing was stored"));  // the whole message, past the NUL
    EXPECT_EQ(r.text.find('\0'), std::string::npos) << r.text;
  }
  EXPECT_EQ(plugin_->notes_called.load(), 0);
  EXPECT_EQ(rt->Db().execAndGet("SELECT count(*) FROM counter_rows").getInt(), rows_before);
  // Without a NUL the same tool runs; its own refusal quoting the argument stays whole.
  EXPECT_FALSE(rt->CallTool("counter_note", {{"v", "fine"}}).is_error);
  EXPECT_THAT(rt->CallTool("counter_note", {{"v", "unknown-x"}}).text, HasSubstr("send a known one"));
  // A read tool stores nothing anyway: it says what to send instead.
  auto read = rt->CallTool("counter_read", {{"q", std::string("a\0b", 3)}});
  EXPECT_TRUE(read.is_error);
  EXPECT_THAT(read.text, HasSubstr("q holds a NUL character"));
  EXPECT_THAT(read.text, HasSubstr("send the text without it"));
  EXPECT_THAT(read.text, ::testing::Not(HasSubstr("nothing was stored")));
}

TEST_F(HardeningTest, WritePastItsBusyBudgetAnswersDatabaseBusyRetry) {
  auto rt = Make();
  rt->Start();
  WriteLockHolder lock(DbPath());
  auto r = rt->CallTool("counter_write", json::object());
  EXPECT_TRUE(r.is_error);
  EXPECT_THAT(r.text, HasSubstr("database busy"));
  EXPECT_THAT(r.text, HasSubstr("retry"));
  EXPECT_THAT(r.text, ::testing::Not(HasSubstr("internal error")));
}

TEST_F(HardeningTest, StopFlushesDeferredWrites) {
  {
    auto rt = Make();
    rt->Start();
    for (int i = 0; i < 3; ++i) rt->CallTool("counter_read", json::object());
    rt->Stop();  // the SIGTERM and end-of-stdin paths end here
  }
  auto rt = Make();
  rt->Start();
  EXPECT_EQ(Reads(*rt), 3);
}

TEST_F(HardeningTest, OneShotStopWritesDeferredWritesAndLeavesTheWalForTheNextProcess) {
  {
    auto rt = Make(200, /*one_shot=*/true);
    rt->Start();
    for (int i = 0; i < 3; ++i) rt->CallTool("counter_read", json::object());
    rt->Stop();  // `kioku call` exit: written on this thread's connection
  }
  // Closed without a checkpoint (the WAL is under the one-shot bound): the WAL holds the
  // batch until a later process folds it in.
  EXPECT_TRUE(std::filesystem::exists(DbPath().string() + "-wal"));
  auto rt = Make();
  rt->Start();
  EXPECT_EQ(Reads(*rt), 3);
}

// `kioku call` and hooks end with Runtime::StopForExit and, when it says so, std::_Exit
// instead of destroying the runtime (cli::EndOneShot): the deferred writes must be
// committed by then, and a runtime whose close would checkpoint must not be abandoned.
TEST_F(HardeningTest, StopForExitCommitsDeferredWritesAndAllowsExitOnlyForOneShotWithASmallWal) {
  {
    auto rt = Make(200, /*one_shot=*/true);
    rt->Start();
    for (int i = 0; i < 3; ++i) rt->CallTool("counter_read", json::object());
    EXPECT_TRUE(rt->StopForExit());
    EXPECT_NE(rt->FindTool("counter_read"), nullptr);  // kept: nothing freed for an exiting process
    auto other = Make();  // another process
    other->Start();
    EXPECT_EQ(Reads(*other), 3);
  }  // and a runtime that was not abandoned still tears down after StopForExit
  {
    auto rt = Make();
    rt->Start();
    EXPECT_FALSE(rt->StopForExit());  // a server checkpoints when it closes
  }
  auto rt = Make(200, /*one_shot=*/true);
  rt->Start();
  rt->Db().exec("CREATE TABLE big (v BLOB); INSERT INTO big VALUES (zeroblob(1200000))");
  EXPECT_FALSE(rt->StopForExit());  // over the 1 MiB bound: the close must checkpoint
}

TEST(ConnectionPoolClose, ClosesWithoutCheckpointOnlyUnderItsBound) {
  TempDir dir;
  const auto db = dir.path() / "kioku.db";
  ConnectionPool pool(db, 2000);
  pool.ForThisThread().exec("CREATE TABLE t (v BLOB); INSERT INTO t VALUES (zeroblob(4000))");
  EXPECT_FALSE(pool.ClosesWithoutCheckpoint());  // no bound: always checkpoint
  pool.SetCheckpointOnCloseAbove(64 * 1024);
  EXPECT_TRUE(pool.ClosesWithoutCheckpoint());
  pool.ForThisThread().exec("INSERT INTO t VALUES (zeroblob(100000))");
  EXPECT_FALSE(pool.ClosesWithoutCheckpoint());
}

TEST(ConnectionPoolClose, LeavesASmallWalAndCheckpointsOneOverTheBound) {
  TempDir dir;
  const auto db = dir.path() / "kioku.db";
  const auto wal = db.string() + "-wal";
  const auto write = [&](int rows) {
    ConnectionPool pool(db, 2000);
    pool.SetCheckpointOnCloseAbove(64 * 1024);
    auto& c = pool.ForThisThread();
    c.exec("CREATE TABLE IF NOT EXISTS t (v BLOB)");
    for (int i = 0; i < rows; ++i) c.exec("INSERT INTO t VALUES (zeroblob(4000))");
  };
  write(2);  // a few pages: left for the next process
  ASSERT_TRUE(std::filesystem::exists(wal));
  EXPECT_LE(std::filesystem::file_size(wal), 64u * 1024);
  write(40);  // ~160 KiB: the last connection checkpoints and removes it
  EXPECT_FALSE(std::filesystem::exists(wal));
  ConnectionPool check(db, 2000);
  EXPECT_EQ(check.ForThisThread().execAndGet("SELECT count(*) FROM t").getInt(), 42);
}

TEST_F(HardeningTest, StartWithNothingToMigrateTakesNoWriteLock) {
  { Make()->Start(); }
  WriteLockHolder lock(DbPath());
  auto rt = Make();
  EXPECT_NO_THROW(rt->Start());
  EXPECT_FALSE(rt->CallTool("counter_read", json::object()).is_error);
}

TEST_F(HardeningTest, PendingMigrationBehindALockSaysItIsALock) {
  { sdk::OpenDatabase(DbPath().string()); }
  WriteLockHolder lock(DbPath());
  auto rt = Make();
  try {
    rt->Start();
    FAIL() << "start-up should not have got the write lock";
  } catch (const DatabaseLockedError& e) {
    EXPECT_THAT(e.what(), HasSubstr("is locked"));
    EXPECT_THAT(e.what(), HasSubstr(DbPath().string()));
    EXPECT_THAT(e.what(), HasSubstr("plugin 'counter'"));
  }
}

TEST_F(HardeningTest, ResultCapIsToldToToolsAndEnforced) {
  auto rt = Make();
  rt->Start();
  rt->CallTool("counter_read", json::object());
  EXPECT_EQ(plugin_->budget_seen.load(), 16u * 1024);

  auto text = rt->CallTool("counter_big_text", json::object());
  EXPECT_FALSE(text.is_error);
  EXPECT_LE(text.text.size(), 16u * 1024);
  EXPECT_TRUE(sdk::IsValidUtf8(text.text));  // never cut inside a UTF-8 sequence
  EXPECT_THAT(text.text, HasSubstr("[cut: result over 16384 bytes]"));

  auto structured = rt->CallTool("counter_big_structured", json::object());
  EXPECT_TRUE(structured.is_error);
  EXPECT_THAT(structured.text, HasSubstr("server.max_result_bytes"));
  EXPECT_THAT(structured.text, HasSubstr("ask for less"));

  // A tool that writes: its answer is lost to the cap, what it did is not, and the message
  // says so (sending it again would do it twice).
  auto write = rt->CallTool("counter_big_write", json::object());
  EXPECT_TRUE(write.is_error);
  EXPECT_THAT(write.text, HasSubstr("counter_big_write finished and what it did is kept"));
  EXPECT_THAT(write.text, HasSubstr("do not send it again"));
}

// --- the background writer itself ----------------------------------------------------------

class DeferredWritesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    pool_ = std::make_unique<ConnectionPool>(dir_.path() / "kioku.db", 2000);
    pool_->ForThisThread().exec("CREATE TABLE t (v INTEGER)");
  }
  DeferredWrite Insert(int v) {
    return [v](SQLite::Database& db) { db.exec("INSERT INTO t VALUES (" + std::to_string(v) + ")"); };
  }
  int Rows() { return pool_->ForThisThread().execAndGet("SELECT count(*) FROM t").getInt(); }

  TempDir dir_;
  sdk::ManualClock clock_;
  std::unique_ptr<sdk::Logger> log_ = MakeLogger("test");
  std::unique_ptr<ConnectionPool> pool_;
};

TEST_F(DeferredWritesTest, CountBoundFlushesAFullBatch) {
  DeferredWriteOptions o;
  o.max_writes = 4;
  o.max_age_ms = 3'600'000;  // the manual clock never gets there
  DeferredWrites writes(*pool_, clock_, *log_, o);
  for (int i = 0; i < 3; ++i) writes.Add(Insert(i));
  EXPECT_EQ(writes.Pending(), 3u);  // not due: under the count and the age bound
  writes.Add(Insert(3));
  // Due now: the writer thread takes the batch; Flush() is the barrier to see it written.
  writes.Flush();
  EXPECT_EQ(Rows(), 4);
  EXPECT_EQ(writes.Batches(), 1u);
}

TEST_F(DeferredWritesTest, AgeBoundUsesTheInjectedClock) {
  DeferredWriteOptions o;
  o.max_writes = 1000;
  o.max_age_ms = 5000;
  DeferredWrites writes(*pool_, clock_, *log_, o);
  writes.Add(Insert(1));
  clock_.Advance(4999);
  writes.Add(Insert(2));
  EXPECT_EQ(writes.Pending(), 2u);
  clock_.Advance(1);
  writes.Add(Insert(3));  // the oldest is 5000 ms old: due
  writes.Flush();
  EXPECT_EQ(Rows(), 3);
  EXPECT_EQ(writes.Pending(), 0u);
}

TEST_F(DeferredWritesTest, AFailingWriteIsSkippedAndTheRestLand) {
  DeferredWrites writes(*pool_, clock_, *log_, {});
  writes.Add(Insert(1));
  writes.Add([](SQLite::Database& db) { db.exec("INSERT INTO no_such_table VALUES (1)"); });
  writes.Add([](SQLite::Database&) { throw std::runtime_error("plugin bug"); });
  writes.Add(Insert(2));
  writes.Flush();
  EXPECT_EQ(Rows(), 2);
}

TEST_F(DeferredWritesTest, FlushHereWritesOnTheCallingThreadAndKeepsWhatALockHeldBack) {
  pool_ = std::make_unique<ConnectionPool>(dir_.path() / "kioku.db", 20);
  DeferredWriteOptions o;
  o.max_writes = 1000;
  o.max_age_ms = 3'600'000;  // the writer thread writes only when asked
  DeferredWrites writes(*pool_, clock_, *log_, o);
  writes.Add(Insert(1));
  writes.FlushHere();
  EXPECT_EQ(Rows(), 1);
  EXPECT_EQ(writes.Batches(), 0u);  // written here, not by the writer thread
  writes.Add(Insert(2));
  {
    WriteLockHolder lock(dir_.path() / "kioku.db");
    writes.FlushHere();  // locked past the busy timeout: back in the queue, not lost
    EXPECT_EQ(writes.Pending(), 1u);
  }
  writes.Flush();
  EXPECT_EQ(Rows(), 2);
}

// A lock held through every retry at shutdown: there is no later (a one-shot process exits
// next), so the batch is dropped and the log says so, not that it is kept.
TEST_F(DeferredWritesTest, ALockHeldThroughShutdownDropsTheBatchAndSaysSo) {
  struct Lines : sdk::Logger {
    void Log(sdk::LogLevel, std::string_view m) override {
      std::lock_guard lock(mutex);
      text += std::string(m) + "\n";
    }
    std::mutex mutex;
    std::string text;
  } lines;
  pool_ = std::make_unique<ConnectionPool>(dir_.path() / "kioku.db", 20);
  DeferredWriteOptions o;
  o.max_age_ms = 3'600'000;
  DeferredWrites writes(*pool_, clock_, lines, o);
  writes.Add(Insert(1));
  {
    WriteLockHolder lock(dir_.path() / "kioku.db");
    writes.Stop();
  }
  EXPECT_EQ(Rows(), 0);
  EXPECT_THAT(lines.text, HasSubstr("at shutdown; dropped 1 (usage counters and call outcomes, never a memory)"));
  EXPECT_THAT(lines.text, Not(HasSubstr("for later")));
}

TEST_F(DeferredWritesTest, StopWritesWhatIsQueuedAndLaterWritesRunInline) {
  DeferredWrites writes(*pool_, clock_, *log_, {});
  writes.Add(Insert(1));
  writes.Stop();
  EXPECT_EQ(Rows(), 1);
  writes.Add(Insert(2));
  EXPECT_EQ(Rows(), 2);
}

// --- dispatcher ------------------------------------------------------------------------------

class DispatcherHardeningTest : public HardeningTest {
 protected:
  void SetUp() override {
    runtime_ = Make();
    runtime_->Start();
    dispatcher_ = std::make_unique<mcp::Dispatcher>(*runtime_, mcp::DispatcherOptions{});
    session_.id = "s";
  }
  static json Req(json id, const std::string& method, json params = json::object()) {
    return {{"jsonrpc", "2.0"}, {"id", std::move(id)}, {"method", method}, {"params", std::move(params)}};
  }
  std::unique_ptr<Runtime> runtime_;
  std::unique_ptr<mcp::Dispatcher> dispatcher_;
  mcp::Session session_;
};

TEST_F(DispatcherHardeningTest, CallsHandledAfterShutdownBeganAreCancelledUnrun) {
  dispatcher_->CancelAll();  // SIGTERM: this call was read and queued, not yet started
  EXPECT_FALSE(dispatcher_->Handle(Req(1, "tools/call", {{"name", "counter_read"}}), session_).has_value());
  runtime_->FlushDeferredWrites();
  EXPECT_EQ(Reads(*runtime_), 0);  // the handler never ran
}

TEST_F(DispatcherHardeningTest, ModernPingIsMethodNotFoundLikeInitialize) {
  json meta{{"io.modelcontextprotocol/protocolVersion", mcp::kModernVersion},
            {"io.modelcontextprotocol/clientCapabilities", json::object()}};
  auto r = dispatcher_->Handle(Req(1, "ping", {{"_meta", meta}}), session_);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)["error"]["code"], mcp::kMethodNotFound);
  EXPECT_EQ((*r)["id"], 1);
  auto legacy = dispatcher_->Handle(Req(2, "ping"), session_);
  EXPECT_EQ((*legacy)["result"], json::object());
}

TEST_F(DispatcherHardeningTest, InvalidUtf8InAStringStillAnswersWithTheId) {
  const std::string line =
      R"({"jsonrpc":"2.0","id":"call-7","method":"tools/call","params":{"name":"counter_read","arguments":{"q":"a)"
      "\xff"
      R"(b"}}})";
  const json r = json::parse(dispatcher_->HandleText(line, session_));
  EXPECT_EQ(r["id"], "call-7");
  EXPECT_EQ(r["error"]["code"], mcp::kParseError);
  EXPECT_THAT(r["error"]["message"].get<std::string>(), HasSubstr("UTF-8"));
  // Not JSON at all: no id to give, so "id": null (JSON-RPC 2.0 section 5).
  const json bad = json::parse(dispatcher_->HandleText("{\"id\":1,\xff", session_));
  ASSERT_TRUE(bad.contains("id")) << bad.dump();
  EXPECT_TRUE(bad["id"].is_null());
}

// A call queued behind a running one on a single stdio worker is cancelled at shutdown too:
// nothing depends on when the worker picks it up.
TEST_F(DispatcherHardeningTest, StdioShutdownCancelsRunningAndQueuedCalls) {
  std::promise<void> started;
  std::atomic<bool> saw_cancel{false};
  RuntimeOptions o;
  TempDir dir;
  o.data_dir = dir.path();
  o.call_timeout_ms = 20'000;
  Runtime rt(o);
  class Slow final : public sdk::Plugin {
   public:
    Slow(sdk::HostServices&, std::promise<void>& started, std::atomic<bool>& saw, std::atomic<int>& runs)
        : started_(started), saw_(saw), runs_(runs) {}
    void Register(sdk::Registrar& r) override {
      sdk::ToolSpec wait;
      wait.name = "slow_wait";
      wait.description = "Runs until cancelled.";
      r.AddTool(wait, [this](const json&, const sdk::CallContext& ctx) {
        if (runs_++ == 0) started_.set_value();
        while (!ctx.Cancelled() && !ctx.Expired()) std::this_thread::yield();
        saw_ = saw_ || ctx.Cancelled();
        return sdk::ToolResult::Ok("cancelled");
      });
    }
    std::promise<void>& started_;
    std::atomic<bool>& saw_;
    std::atomic<int>& runs_;
  };
  std::atomic<int> runs{0};
  rt.AddPlugin("slow", [&](sdk::HostServices& h) { return std::make_unique<Slow>(h, started, saw_cancel, runs); });
  rt.Start();
  mcp::Dispatcher dispatcher(rt, {});
  mcp::Session session;
  session.id = "stdio";
  int in[2], out[2], wake[2];
  ASSERT_EQ(::pipe2(in, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(out, O_CLOEXEC), 0);
  ASSERT_EQ(::pipe2(wake, O_CLOEXEC), 0);
  StdioOptions options;
  options.in_fd = in[0];
  options.out_fd = out[1];
  options.wake_fd = wake[0];
  options.workers = 1;
  std::thread server([&] { RunStdio(dispatcher, session, options); });
  const std::string calls = Req(1, "tools/call", {{"name", "slow_wait"}}).dump() + "\n" +
                            Req(2, "tools/call", {{"name", "slow_wait"}}).dump() + "\n";
  ASSERT_EQ(::write(in[1], calls.data(), calls.size()), static_cast<ssize_t>(calls.size()));
  started.get_future().wait();  // call 1 runs on the only worker; call 2 waits behind it
  ASSERT_EQ(::write(wake[1], "x", 1), 1);
  server.join();  // before the fix call 2 started after call 1 and ran to its deadline
  EXPECT_TRUE(saw_cancel.load());
  EXPECT_EQ(runs.load(), 1);  // the queued call never ran
  ::close(out[1]);
  // The running call is answered with what it returned; the queued one is not.
  std::string output;
  char buf[4096];
  for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) output.append(buf, static_cast<std::size_t>(n));
  ASSERT_EQ(std::count(output.begin(), output.end(), '\n'), 1) << output;
  const json answer = json::parse(output);
  EXPECT_EQ(answer["id"], 1);
  EXPECT_EQ(answer["result"]["content"][0]["text"], "cancelled");
  for (int fd : {in[0], in[1], out[0], wake[0], wake[1]}) ::close(fd);
}

}  // namespace
}  // namespace kioku::host

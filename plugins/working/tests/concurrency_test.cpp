// Races on one database file: 8 threads, each with its own SQLite connection (the host
// opens one per thread), call the tools at the same moment (a barrier per round). Each race
// runs >= 200 rounds with a fresh key per round; every round must have exactly one winner,
// no 'database is locked' / busy error may reach a caller, and nothing may be lost.
#include <atomic>
#include <barrier>
#include <thread>

#include "working_test_util.hpp"

namespace kioku::working::testing {
namespace {

constexpr int kThreads = 8;
constexpr int kRounds = 200;

std::string AgentName(int i) { return "racer-" + std::to_string(i); }

bool LooksLikeLockError(const std::string& text) {
  return text.find("locked") != std::string::npos || text.find("busy") != std::string::npos ||
         text.find("BUSY") != std::string::npos || text.find("internal") != std::string::npos;
}

class ConcurrencyTest : public WorkingTest {
 protected:
  /// Runs `body(thread, round)` on kThreads threads, all released together each round;
  /// `between(round)` runs alone on this thread before each round starts.
  template <class Body, class Between>
  void Race(Body body, Between between) {
    std::barrier start(kThreads + 1);
    std::barrier done(kThreads + 1);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int round = 0; round < kRounds; ++round) {
          start.arrive_and_wait();
          body(t, round);
          done.arrive_and_wait();
        }
      });
    }
    for (int round = 0; round < kRounds; ++round) {
      between(round);
      start.arrive_and_wait();
      done.arrive_and_wait();
    }
    for (auto& th : threads) th.join();
  }
};

TEST_F(ConcurrencyTest, FileClaimsHaveExactlyOneWinnerPerRound) {
  std::vector<std::array<int, kThreads>> acquired(kRounds);
  std::vector<std::array<std::string, kThreads>> holder_seen(kRounds);
  std::atomic<int> errors{0};
  std::mutex mu;
  std::string first_error;
  Race(
      [&](int t, int round) {
        // Half the threads name the two paths in the opposite order: all-or-nothing must
        // still give both paths to one agent, never one path each.
        Json paths = t % 2 == 0 ? Json{"r" + std::to_string(round) + "/a", "r" + std::to_string(round) + "/b"}
                                : Json{"r" + std::to_string(round) + "/b", "r" + std::to_string(round) + "/a"};
        auto r = Call("file_claim", {{"paths", paths}}, AgentName(t));
        if (r.is_error) {
          ++errors;
          std::lock_guard lock(mu);
          if (first_error.empty()) first_error = r.text;
          return;
        }
        acquired[round][t] = r.structured["acquired"].get<bool>() ? 1 : 0;
        if (!r.structured["acquired"].get<bool>()) {
          holder_seen[round][t] = r.structured["conflicts"][0]["holder"].get<std::string>();
        }
      },
      [](int) {});
  ASSERT_EQ(errors.load(), 0) << first_error;
  for (int round = 0; round < kRounds; ++round) {
    int winners = 0;
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (acquired[round][t]) {
        ++winners;
        winner = t;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    const std::string r = "r" + std::to_string(round);
    EXPECT_EQ(Text("SELECT group_concat(DISTINCT holder) FROM working_file_claims WHERE path IN ('" +
                   r + "/a', '" + r + "/b')"),
              AgentName(winner));
    for (int t = 0; t < kThreads; ++t) {
      if (t != winner) {
        EXPECT_EQ(holder_seen[round][t], AgentName(winner)) << "round " << round;
      }
    }
  }
  EXPECT_EQ(Count("SELECT count(*) FROM working_file_claims"), 2 * kRounds);
  EXPECT_EQ(Count("SELECT count(*) FROM working_events WHERE kind = 'file.claim'"), 2 * kRounds);
}

TEST_F(ConcurrencyTest, HandoffClaimsHaveExactlyOneWinnerPerRound) {
  std::vector<std::string> ids(kRounds);
  std::vector<std::array<int, kThreads>> won(kRounds);
  std::atomic<int> unexpected{0};
  std::mutex mu;
  std::string first_unexpected;
  Race(
      [&](int t, int round) {
        auto r = Call("handoff_claim", {{"handoff_id", ids[round]}}, AgentName(t));
        if (!r.is_error) {
          won[round][t] = 1;
        } else if (r.text.find("already claimed by racer-") == std::string::npos ||
                   LooksLikeLockError(r.text)) {
          ++unexpected;
          std::lock_guard lock(mu);
          if (first_unexpected.empty()) first_unexpected = r.text;
        }
      },
      [&](int round) {
        ids[round] = Ok("handoff_write", {{"summary", "job " + std::to_string(round)}},
                        "writer")["handoff_id"];
      });
  ASSERT_EQ(unexpected.load(), 0) << first_unexpected;
  for (int round = 0; round < kRounds; ++round) {
    int winners = 0;
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (won[round][t]) {
        ++winners;
        winner = t;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    EXPECT_EQ(Text("SELECT claimed_by FROM working_handoffs WHERE id = '" + ids[round] + "'"),
              AgentName(winner));
  }
  EXPECT_EQ(Count("SELECT count(*) FROM working_events WHERE kind = 'handoff.claim'"), kRounds);
}

TEST_F(ConcurrencyTest, BlockVersionsHaveExactlyOneWinnerPerRound) {
  std::vector<std::array<int, kThreads>> won(kRounds);
  std::atomic<int> unexpected{0};
  std::mutex mu;
  std::string first_unexpected;
  Race(
      [&](int t, int round) {
        auto r = Call("block_write",
                      {{"key", "b" + std::to_string(round)},
                       {"content", AgentName(t)},
                       {"expected_version", 1}},
                      AgentName(t));
        if (!r.is_error) {
          won[round][t] = 1;
        } else if (r.text.find("stale expected_version 1") == std::string::npos ||
                   r.structured["current"]["version"] != 2 || LooksLikeLockError(r.text)) {
          ++unexpected;
          std::lock_guard lock(mu);
          if (first_unexpected.empty()) first_unexpected = r.text;
        }
      },
      [&](int round) {
        Ok("block_write", {{"key", "b" + std::to_string(round)}, {"content", "seed"}}, "writer");
      });
  ASSERT_EQ(unexpected.load(), 0) << first_unexpected;
  for (int round = 0; round < kRounds; ++round) {
    int winners = 0;
    int winner = -1;
    for (int t = 0; t < kThreads; ++t) {
      if (won[round][t]) {
        ++winners;
        winner = t;
      }
    }
    ASSERT_EQ(winners, 1) << "round " << round;
    const std::string key = "b" + std::to_string(round);
    EXPECT_EQ(Text("SELECT content FROM working_blocks WHERE key = '" + key + "'"),
              AgentName(winner));
    EXPECT_EQ(Count("SELECT version FROM working_blocks WHERE key = '" + key + "'"), 2);
    EXPECT_EQ(Count("SELECT count(*) FROM working_block_history WHERE key = '" + key + "'"), 2);
  }
}

TEST_F(ConcurrencyTest, ReadModifyWriteLoopsLoseNoUpdate) {
  // Every thread appends its own token to one block through read + versioned write,
  // retrying on a stale version: the final block must hold every token exactly once.
  constexpr int kPerThread = 25;
  Ok("block_write", {{"key", "counter"}, {"content", "start"}}, "writer");
  std::atomic<int> unexpected{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        for (;;) {
          auto read = Call("block_read", {{"key", "counter"}}, AgentName(t));
          if (read.is_error) {
            ++unexpected;
            return;
          }
          const std::string content = read.structured["content"];
          const std::int64_t v = read.structured["version"];
          auto w = Call("block_write",
                        {{"key", "counter"},
                         {"content", content + " t" + std::to_string(t) + "." + std::to_string(i)},
                         {"expected_version", v}},
                        AgentName(t));
          if (!w.is_error) break;
          if (w.text.find("stale expected_version") == std::string::npos) {
            ++unexpected;
            return;
          }
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_EQ(unexpected.load(), 0);
  const std::string final_content = Text("SELECT content FROM working_blocks WHERE key = 'counter'");
  for (int t = 0; t < kThreads; ++t) {
    for (int i = 0; i < kPerThread; ++i) {
      const std::string token = " t" + std::to_string(t) + "." + std::to_string(i);
      const auto pos = final_content.find(token + " ");
      const bool at_end = final_content.size() >= token.size() &&
                          final_content.compare(final_content.size() - token.size(),
                                                token.size(), token) == 0;
      EXPECT_TRUE(pos != std::string::npos || at_end) << token << " lost";
    }
  }
  EXPECT_EQ(Count("SELECT version FROM working_blocks WHERE key = 'counter'"),
            1 + kThreads * kPerThread);
}

TEST_F(ConcurrencyTest, WorkspaceClaimHasExactlyOneWinnerPerRound) {
  // One workspace per project: use a fresh project per round.
  std::vector<std::array<int, kThreads>> won(kRounds);
  std::atomic<int> unexpected{0};
  Race(
      [&](int t, int round) {
        auto r = CallAs("workspace_claim", {{"task", "task of " + AgentName(t)}},
                        As(AgentName(t), "/tmp/p" + std::to_string(round)));
        if (!r.is_error) {
          won[round][t] = 1;
        } else if (r.text.find("workspace is held by racer-") == std::string::npos) {
          ++unexpected;
        }
      },
      [](int) {});
  ASSERT_EQ(unexpected.load(), 0);
  for (int round = 0; round < kRounds; ++round) {
    int winners = 0;
    for (int t = 0; t < kThreads; ++t) winners += won[round][t];
    ASSERT_EQ(winners, 1) << "round " << round;
  }
  EXPECT_EQ(Count("SELECT count(*) FROM working_workspace"), kRounds);
}

}  // namespace
}  // namespace kioku::working::testing

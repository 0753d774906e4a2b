// The request log's writer above a backend that loses its connection (a fake: the real
// PostgreSQL one is tested in postgres_request_log_test.cpp).

#include "store/request_log_writer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "captured_log.h"

namespace llmux::store {
namespace {

/// A backend whose connection the test switches off and on; it counts what it was asked.
class SwitchedBackend final : public RequestLogBackend {
 public:
  struct State {
    std::atomic<bool> reachable{true};  ///< whether reconnect succeeds
    std::atomic<bool> connected{true};
    std::atomic<int> reconnects{0};
    std::atomic<std::size_t> rows{0};
  };
  explicit SwitchedBackend(State& state) : state_(state) {}

  Result<void> insertBatch(std::span<LogRow> batch, std::string_view) override {
    if (!state_.connected) return makeError(ErrorKind::Internal, "not connected");
    state_.rows += batch.size();
    return {};
  }
  Result<std::size_t> deleteExpired(WallTime, std::size_t) override { return std::size_t{0}; }
  Result<std::size_t> heartbeat(std::string_view, WallTime, std::chrono::milliseconds) override {
    if (!state_.connected) return makeError(ErrorKind::Internal, "not connected");
    return std::size_t{0};
  }
  Result<void> retire(std::string_view) override { return {}; }
  bool connected() const override { return state_.connected; }
  Result<void> reconnect() override {
    ++state_.reconnects;
    if (!state_.reachable) return makeError(ErrorKind::Internal, "connection refused");
    state_.connected = true;
    return {};
  }

 private:
  State& state_;
};

RequestRecord record(std::string id) {
  RequestRecord r;
  r.request_id = std::move(id);
  return r;
}

TEST(RequestLogWriter, ADisconnectedBackendKeepsTheBatchUntilItIsBack) {
  CapturedLog log;
  SwitchedBackend::State state;
  state.connected = false;
  state.reachable = false;
  RequestLogWriterOptions options;
  options.linger = std::chrono::milliseconds(0);
  options.reconnect_min = std::chrono::milliseconds(5);
  options.reconnect_max = std::chrono::milliseconds(10);
  RequestLogWriter writer("test log", std::make_unique<SwitchedBackend>(state), options);
  writer.record(record("kept"));
  while (state.reconnects < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(writer.stats().written, 0u);
  EXPECT_EQ(writer.stats().dropped, 0u) << "held, not given up on";
  state.reachable = true;
  while (writer.stats().written < 1) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  writer.flush();
  EXPECT_EQ(state.rows, 1u);
  EXPECT_EQ(writer.stats().failed_batches, 0u);
  bool logged_loss = false;
  bool logged_recovery = false;
  for (auto const& line : log.lines()) {
    if (line.find("test log connection failed: connection refused") != std::string::npos) {
      logged_loss = true;
    }
    if (line.find("test log connection") != std::string::npos &&
        line.find("works again") != std::string::npos) {
      logged_recovery = true;
    }
  }
  EXPECT_TRUE(logged_loss);
  EXPECT_TRUE(logged_recovery);
}

TEST(RequestLogWriter, AFlushWithTheBackendGoneGivesUpOnEveryBatchWithoutAConnectEach) {
  SwitchedBackend::State state;
  state.connected = false;
  state.reachable = false;
  ManualTimeSource clock;  // never advances: the backoff step never ends
  RequestLogWriterOptions options;
  options.clock = &clock;
  options.batch_size = 1;
  options.linger = std::chrono::milliseconds(0);
  options.reconnect_min = std::chrono::seconds(1);
  RequestLogWriter writer("test log", std::make_unique<SwitchedBackend>(state), options);
  for (int i = 0; i < 20; ++i) writer.record(record("lost"));
  writer.flush();
  RequestLogStats stats = writer.stats();
  EXPECT_EQ(stats.written, 0u);
  EXPECT_EQ(stats.dropped, 20u);
  EXPECT_EQ(stats.failed_batches, 20u);
  EXPECT_LE(state.reconnects, 2) << "one try, then the batches are given up on at once";
  EXPECT_NE(writer.lastWriteError().find("connection refused"), std::string::npos);
}

}  // namespace
}  // namespace llmux::store

// Running rows of the request log (proxy/running_rows.h): a request's row opens only once it
// has run for a while; one that ends sooner costs the log nothing but its finished record.
#include "proxy/running_rows.h"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <vector>

#include "admin_fixture.h"
#include "proxy/request_context.h"
#include "store/request_log.h"

namespace llmux::proxy {
namespace {

using namespace std::chrono_literals;

/// Remembers what was opened (the request id and how many attempts it carried then).
class OpenedRows final : public store::RequestLogSink {
 public:
  struct Opened {
    std::string request_id;
    std::size_t attempts = 0;
  };
  void record(RequestRecord) override {}
  std::uint64_t opened(RequestRecord const& head) override {
    rows.push_back({head.request_id, head.attempts.size()});
    return rows.size();
  }
  void flush() override {}
  store::RequestLogStats stats() const override { return {}; }
  std::vector<Opened> rows;
};

class RunningRowsTest : public ::testing::Test {
 protected:
  /// A request admitted under `id`.
  struct Request {
    http::ServerRequest server;
    RecordingWriter writer;
    std::optional<RequestContext> ctx;
  };
  std::unique_ptr<Request> request(std::string id) {
    auto r = std::make_unique<Request>();
    r->ctx.emplace(r->server, r->writer);
    r->ctx->record.request_id = std::move(id);
    return r;
  }

  boost::asio::io_context io;
  OpenedRows sink;
  RunningRows rows{io, sink, 10ms};
  MonoTime const t0 = MonoClock::now();
};

TEST_F(RunningRowsTest, ARequestThatEndsBeforeItsRowOpensIsNeverOpened) {
  auto a = request("a");
  rows.admitted(*a->ctx, t0);
  EXPECT_EQ(rows.waiting(), 1u);
  a->ctx->running_row.unlink();  // it ended (GatewayHandler::account)
  EXPECT_EQ(rows.waiting(), 0u);
  rows.openDue(t0 + 1s);
  EXPECT_TRUE(sink.rows.empty());
  EXPECT_EQ(a->ctx->record.log_handle, 0u) << "its end writes the row whole";
}

TEST_F(RunningRowsTest, RowsOpenOldestFirstOnceDueWithTheAttemptsSoFar) {
  auto a = request("a");
  auto b = request("b");
  auto c = request("c");
  rows.admitted(*a->ctx, t0);
  rows.admitted(*b->ctx, t0 + 4ms);
  rows.admitted(*c->ctx, t0 + 12ms);
  a->ctx->record.attempts.emplace_back();  // its first attempt runs
  rows.openDue(t0 + 9ms);
  EXPECT_TRUE(sink.rows.empty()) << "nothing has run 10 ms yet";
  rows.openDue(t0 + 14ms);
  ASSERT_EQ(sink.rows.size(), 2u);
  EXPECT_EQ(sink.rows[0].request_id, "a");
  EXPECT_EQ(sink.rows[0].attempts, 1u) << "opened as it is now, its running attempt included";
  EXPECT_EQ(sink.rows[1].request_id, "b");
  EXPECT_EQ(a->ctx->record.log_handle, 1u);
  EXPECT_EQ(b->ctx->record.log_handle, 2u);
  EXPECT_EQ(c->ctx->record.log_handle, 0u);
  EXPECT_EQ(rows.waiting(), 1u);
  rows.openDue(t0 + 30ms);
  EXPECT_EQ(c->ctx->record.log_handle, 3u);
  rows.openDue(t0 + 60ms);
  EXPECT_EQ(sink.rows.size(), 3u) << "each row opens once";
}

TEST_F(RunningRowsTest, ADestroyedRequestLeavesTheList) {
  auto a = request("a");
  auto b = request("b");
  rows.admitted(*a->ctx, t0);
  rows.admitted(*b->ctx, t0);
  a.reset();  // its coroutine frame destroyed (a shutdown that did not wait for it)
  EXPECT_EQ(rows.waiting(), 1u);
  rows.openDue(t0 + 1s);
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].request_id, "b");
}

TEST_F(RunningRowsTest, TheWorkersTimerOpensTheRowsOfRequestsStillRunning) {
  auto a = request("a");
  auto b = request("b");
  rows.admitted(*a->ctx, MonoClock::now());
  rows.admitted(*b->ctx, MonoClock::now());
  b->ctx->running_row.unlink();  // b ends at once
  io.run_for(200ms);             // the timer fires 10 ms after the admission, then nothing is left
  ASSERT_EQ(sink.rows.size(), 1u);
  EXPECT_EQ(sink.rows[0].request_id, "a");
  EXPECT_EQ(rows.waiting(), 0u);
}

TEST(RunningRowsAtOnce, NoDelayOpensEveryRowAtAdmission) {
  boost::asio::io_context io;
  OpenedRows sink;
  RunningRows rows{io, sink, 0ms};
  http::ServerRequest server;
  RecordingWriter writer;
  RequestContext ctx{server, writer};
  rows.admitted(ctx, MonoClock::now());
  EXPECT_EQ(ctx.record.log_handle, 1u);
  EXPECT_EQ(rows.waiting(), 0u);
}

}  // namespace
}  // namespace llmux::proxy

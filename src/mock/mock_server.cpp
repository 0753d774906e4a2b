#include "mock/mock_server.h"


#include "http/response_writer.h"
#include "http/server_request.h"
#include "net/asio_types.h"

namespace llmux::mock {

namespace asio = boost::asio;
using net::kUseTuple;
using net::Task;

namespace {

double wallMs() {
  return std::chrono::duration<double, std::milli>(WallClock::now().time_since_epoch()).count();
}

/// Waits `delay`; returns false when the client went away meanwhile.
Task<bool> pause(asio::io_context& io, http::Cancellation& cancellation, std::chrono::milliseconds delay) {
  if (cancellation.cancelled()) co_return false;
  if (delay.count() <= 0) co_return true;
  net::Timer timer(io, delay);
  auto id = cancellation.add([&timer](http::CancelReason) { timer.cancel(); });
  co_await timer.async_wait(kUseTuple);
  cancellation.remove(id);
  co_return !cancellation.cancelled();
}

/// Plays `reply`, appending what was written to `entry`.
Task<void> play(asio::io_context& io, MockReply const& reply, http::ResponseWriter& out,
                MockJournal::Entry& entry) {
  auto& cancellation = out.cancellation();
  entry.status = reply.status;
  if (!co_await pause(io, cancellation, reply.head_delay)) {
    entry.outcome = "client_gone";
    co_return;
  }
  if (!reply.streaming && reply.ending == MockEnding::Complete) {
    // A whole answer is sent when it is done: a slow first token delays all of it, as a
    // provider's non-streamed answer arrives head and body together.
    std::chrono::milliseconds done_after{0};
    for (auto const& chunk : reply.chunks) done_after += chunk.delay;
    if (!co_await pause(io, cancellation, done_after)) {
      entry.outcome = "client_gone";
      co_return;
    }
    std::string body = reply.body();
    co_await out.send(reply.status, reply.headers, body);
    entry.response_body = std::move(body);
    entry.outcome = "complete";
    co_return;
  }
  bool started = false;
  for (auto const& chunk : reply.chunks) {
    if (started && !co_await pause(io, cancellation, chunk.delay)) {
      entry.outcome = "client_gone";
      co_return;
    }
    bool ok = false;
    if (!started) {
      // The head goes out at once; the first chunk's delay is a slow first token.
      if (chunk.delay.count() > 0) {
        ok = co_await out.beginBody(reply.status, reply.headers, std::nullopt, {});
        if (ok && !co_await pause(io, cancellation, chunk.delay)) ok = false;
        if (ok) ok = co_await out.writeBody(chunk.bytes);
      } else {
        ok = co_await out.beginBody(reply.status, reply.headers, std::nullopt, chunk.bytes);
      }
      started = true;
    } else {
      ok = co_await out.writeBody(chunk.bytes);
    }
    if (!ok) {
      entry.outcome = "client_gone";
      co_return;
    }
    entry.response_body += chunk.bytes;
  }
  if (!started && !co_await out.beginBody(reply.status, reply.headers, std::nullopt, {})) {
    entry.outcome = "client_gone";
    co_return;
  }
  switch (reply.ending) {
    case MockEnding::Complete:
      co_await out.endBody({});
      entry.outcome = "complete";
      break;
    case MockEnding::Cut:
      out.breakConnection();
      entry.outcome = "cut";
      break;
    case MockEnding::Stall:
      if (co_await pause(io, cancellation, reply.stall_for)) {
        out.breakConnection();
        entry.outcome = "stalled";
      } else {
        entry.outcome = "client_gone";
      }
      break;
  }
}

}  // namespace

MockServerHandler::MockServerHandler(MockProvider& provider, MockJournal* journal, asio::io_context& io)
    : provider_(provider), journal_(journal), io_(io) {}

http::PlainAnswer MockServerHandler::rejection(int status, std::string_view, std::string_view message) {
  return {"application/json",
          "{\"error\":{\"message\":\"" + std::string(message) + "\",\"code\":" + std::to_string(status) + "}}"};
}

Task<void> MockServerHandler::handle(http::ServerRequest& request, http::ResponseWriter& response) {
  if (request.path() == "/_mock/journal") {
    HeaderList headers;
    headers.add("Content-Type", "application/json");
    if (!journal_) {
      co_await response.send(404, headers, "{\"error\":\"the journal is disabled\"}");
    } else if (request.method == "DELETE") {
      journal_->clear();
      co_await response.send(200, headers, "{}");
    } else {
      co_await response.send(200, headers, journal_->toJson());
    }
    co_return;
  }

  MockJournal::Entry entry;
  entry.started_at_ms = wallMs();
  MockRequest mock_request{request.method, std::string(request.path()), std::string(request.query()),
                           request.headers, std::move(request.body)};
  MockReply reply = provider_.handle(mock_request);

  auto& cancellation = response.cancellation();
  auto gone_id = cancellation.add([&entry](http::CancelReason) { entry.client_gone_at_ms = wallMs(); });
  co_await play(io_, reply, response, entry);
  cancellation.remove(gone_id);

  if (!journal_) co_return;
  entry.finished_at_ms = wallMs();
  entry.method = std::move(mock_request.method);
  entry.path = std::move(mock_request.path);
  entry.query = std::move(mock_request.query);
  entry.headers = std::move(mock_request.headers);
  entry.body = std::move(mock_request.body);
  journal_->add(std::move(entry));
}

}  // namespace llmux::mock

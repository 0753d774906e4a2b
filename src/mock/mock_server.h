#pragma once

#include <boost/asio/io_context.hpp>

#include "net/task.h"
#include "http/request_handler.h"
#include "mock/mock_journal.h"
#include "mock/mock_provider.h"

namespace llmux::mock {

/// Plays MockProvider replies over HTTP for one worker thread: delays, chunk pacing, cuts and
/// stalls happen on real timers and sockets. Also serves the journal:
/// `GET /_mock/journal` (JSON) and `DELETE /_mock/journal`.
class MockServerHandler final : public http::RequestHandler {
 public:
  /// `journal` may be null (benchmarks: nothing is recorded).
  MockServerHandler(MockProvider& provider, MockJournal* journal, boost::asio::io_context& io);

  /// A provider stand-in reads every body (its own checks answer the errors).
  bool screenHead(http::ServerRequest&) override { return true; }
  net::Task<void> handle(http::ServerRequest& request,
                                      http::ResponseWriter& response) override;
  http::PlainAnswer rejection(int status, std::string_view path, std::string_view message) override;

 private:
  MockProvider& provider_;
  MockJournal* journal_;
  boost::asio::io_context& io_;
};

}  // namespace llmux::mock

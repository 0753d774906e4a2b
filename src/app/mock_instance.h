#pragma once

#include <memory>
#include <vector>

#include "core/result.h"
#include "http/server.h"
#include "mock/mock_journal.h"
#include "mock/mock_provider.h"
#include "mock/mock_server.h"
#include "net/listen_address.h"
#include "net/worker_pool.h"

namespace llmux::app {

/// A mock provider serving HTTP on a worker pool: `llmux mock-provider`, and the demo channels of
/// the embedded default (in-process, on a loopback port).
class MockInstance {
 public:
  MockInstance(net::WorkerPool& workers, mock::MockOptions options, bool journal);
  Result<std::uint16_t> listen(net::HostPort const& address) { return server_->listen(address); }
  http::HttpServer& server() { return *server_; }

 private:
  mock::MockProvider provider_;
  std::unique_ptr<mock::MockJournal> journal_;
  std::vector<std::unique_ptr<mock::MockServerHandler>> handlers_;
  std::unique_ptr<http::HttpServer> server_;
};

}  // namespace llmux::app

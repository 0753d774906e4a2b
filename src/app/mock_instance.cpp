#include "app/mock_instance.h"

namespace llmux::app {

MockInstance::MockInstance(net::WorkerPool& workers, mock::MockOptions options, bool journal)
    : provider_(std::move(options)) {
  if (journal) journal_ = std::make_unique<mock::MockJournal>();
  std::vector<http::RequestHandler*> raw;
  for (unsigned i = 0; i < workers.size(); ++i) {
    handlers_.push_back(
        std::make_unique<mock::MockServerHandler>(provider_, journal_.get(), workers.context(i)));
    raw.push_back(handlers_.back().get());
  }
  http::ServerLimits limits;
  limits.max_body_bytes = 64u << 20;
  server_ = std::make_unique<http::HttpServer>(workers, std::move(raw), limits);
}

}  // namespace llmux::app

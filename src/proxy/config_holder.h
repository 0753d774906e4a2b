#pragma once

#include <atomic>
#include <memory>

#include "routing/catalog.h"

namespace llmux::proxy {

/// The configuration in force. A request pins the catalog it started with (`current()` returns a
/// shared pointer) for its whole life; a reload swaps in a new one atomically.
class ConfigHolder {
 public:
  explicit ConfigHolder(std::shared_ptr<const routing::Catalog> initial) : current_(std::move(initial)) {}

  std::shared_ptr<const routing::Catalog> current() const { return current_.load(); }
  void replace(std::shared_ptr<const routing::Catalog> next) { current_.store(std::move(next)); }

 private:
  std::atomic<std::shared_ptr<const routing::Catalog>> current_;
};

}  // namespace llmux::proxy

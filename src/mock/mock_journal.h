#pragma once

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include "core/http_headers.h"

namespace llmux::mock {

/// What the mock provider received and sent, kept so end-to-end tests can check that the gateway
/// forwarded bytes faithfully (`GET /_mock/journal`). Thread-safe; keeps the newest entries only.
/// A body that is not UTF-8 (an upload, audio, video) is written as `"body": null` plus
/// `"body_base64"` (likewise `response_body`), so the journal stays valid JSON.
class MockJournal {
 public:
  struct Entry {
    std::uint64_t seq = 0;
    std::string method, path, query;
    HeaderList headers;
    std::string body;
    int status = 0;
    std::string response_body;  ///< the body bytes actually written, chunk framing excluded
    std::string outcome;         ///< "complete", "cut", "stalled", "client_gone"
    double started_at_ms = 0;    ///< wall clock, milliseconds since the epoch
    double finished_at_ms = 0;
    std::optional<double> client_gone_at_ms;  ///< when the mock saw its client disconnect
  };

  explicit MockJournal(std::size_t capacity = 256) : capacity_(capacity) {}

  void add(Entry entry);
  void clear();
  /// {"entries":[...]} oldest first.
  std::string toJson() const;

 private:
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;
  std::uint64_t next_seq_ = 1;
};

}  // namespace llmux::mock

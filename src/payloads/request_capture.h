#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/capped_copy.h"
#include "payloads/payload_row.h"

namespace llmux::payloads {

/// How bodies are captured: the same for every request of the process (read at start).
struct CaptureOptions {
  std::size_t max_bytes = 1u << 20;  ///< per body; longer ones are cut and marked
  std::vector<std::string> redact;   ///< JSON field and header names blanked (lower case)
};

/// `cut` without a last UTF-8 sequence the cut left incomplete.
std::string_view withoutCutSequence(std::string_view cut);

/// `body` cut to at most `limit` bytes, never inside a UTF-8 sequence of a text body.
std::string_view truncatedBody(std::string_view body, std::size_t limit);

/// The bodies of one sampled request, gathered on its worker thread (the branches of a race
/// share it: they run on the same thread) and handed to the writer when the request ends.
class RequestCapture {
 public:
  RequestCapture(std::shared_ptr<CaptureOptions const> options, std::string request_id,
                 std::int64_t ts)
      : options_(std::move(options)), request_id_(std::move(request_id)), ts_(ts) {}

  /// The number of the next upstream attempt (1, 2, …, in the order they start).
  std::uint32_t nextAttempt() { return ++attempts_; }

  /// A body known whole (a request as sent): cut at max_bytes, then redacted.
  void addBody(std::uint32_t attempt, BodyKind kind, std::string_view body,
               std::string headers = {});
  /// A body copied as it passed (CappedCopy of max_bytes): redacted.
  void addCopy(std::uint32_t attempt, BodyKind kind, CappedCopy copy);
  /// An empty copy of the configured size, to fill as a body passes.
  CappedCopy newCopy() const { return CappedCopy{options_->max_bytes, {}, 0}; }

  CaptureOptions const& options() const { return *options_; }
  std::vector<PayloadRow> take() { return std::move(rows_); }

 private:
  std::shared_ptr<CaptureOptions const> options_;
  std::string request_id_;
  std::int64_t ts_;
  std::uint32_t attempts_ = 0;
  std::vector<PayloadRow> rows_;
};

}  // namespace llmux::payloads

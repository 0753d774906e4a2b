#pragma once

#include <array>
#include <memory>
#include <optional>
#include <string_view>


#include "core/capped_copy.h"
#include "core/http_headers.h"
#include "http/response_reader.h"
#include "http/upstream_connection.h"

namespace llmux::http {

/// One HTTP request/response on an upstream connection. The request goes out as a gather write
/// of caller-owned pieces (head, body slices: the body is never copied); the response is read
/// head first, then body piece by piece, each piece handed over as soon as it arrives. Parsing is
/// `ResponseReader`'s (interim 1xx heads skipped, 101 refused); this class does the I/O.
///
/// Thread safety: one worker thread. Cancellation: `abort()` (safe from a cancellation callback)
/// closes the connection; the pending call then returns an error of kind Cancelled.
class UpstreamExchange {
 public:
  static constexpr std::size_t kMaxPieces = 6;

  UpstreamExchange(UpstreamPool& pool, std::unique_ptr<UpstreamConnection> connection);
  ~UpstreamExchange();

  /// The request on the wire, in order; empty pieces are skipped.
  using Pieces = std::array<std::string_view, kMaxPieces>;

  /// Writes the request and waits for the response head until `head_deadline`. The pieces are
  /// taken by value: a coroutine keeps its parameters, and a reference could outlive the
  /// caller's temporary (the bytes the views point at must stay alive until it completes).
  net::Task<Result<void>> start(Pieces pieces,
                                MonoTime head_deadline);

  int status() const { return reader_.status(); }
  HeaderList const& headers() const { return reader_.headers(); }
  std::optional<std::uint64_t> contentLength() const { return reader_.contentLength(); }

  /// The bytes that arrived with the head and were not parsed yet (the start of the body, in its
  /// transfer framing), without waiting for more. Valid until the next read.
  std::string_view bufferedBody() const;

  /// The next piece of the body, valid until the next call; an empty piece once `done()`.
  net::Task<Result<std::string_view>> readBody(MonoTime piece_deadline);
  /// Every piece `readBody` hands out is also appended to `copy` (a sampled request's payload
  /// capture); nullptr stops it.
  void tapBody(CappedCopy* copy) { tap_ = copy; }
  bool done() const;

  /// Closes the connection now (a failed, abandoned or cancelled exchange).
  void abort();
  /// Ends the exchange: the connection goes back to the pool when the final response was read
  /// completely and both sides allow keep-alive, otherwise it is closed.
  void finish();

  /// The request could not be written at all on a connection that had served earlier requests
  /// (the peer had reset it): no byte of it reached the upstream, so it may be sent again on a
  /// new connection. A request that was written is never sent twice on this path, even when the
  /// connection then closes without an answer: the upstream may have acted on it.
  bool staleConnection() const { return stale_; }
  /// When the final response head arrived.
  MonoTime headReceivedAt() const { return head_at_; }

 private:
  /// Writes the request; a write that failed before its first byte on a pooled connection
  /// marks the connection stale.
  net::Task<Result<void>> writeRequest(Pieces pieces);
  /// Reads heads until the final one (interim heads skipped by the reader).
  net::Task<Result<void>> readFinalHead();
  /// One read into the reader's buffer, bounded by the connection's deadline.
  net::Task<Result<void>> readMore(std::string_view timeout_message);
  /// The verdict of the watchdog or of `abort()` after an awaited step, whatever that step's own
  /// result (the socket may have been closed just as the step completed).
  std::optional<Error> interrupted(std::string_view timeout_message) const;

  UpstreamPool& pool_;
  std::unique_ptr<UpstreamConnection> connection_;
  ResponseReader reader_;
  bool aborted_ = false;
  bool stale_ = false;
  CappedCopy* tap_ = nullptr;
  MonoTime head_at_{};
};

}  // namespace llmux::http

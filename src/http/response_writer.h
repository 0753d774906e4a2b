#pragma once

#include <cstdint>
#include <optional>
#include <string_view>


#include "core/clock.h"
#include "core/http_headers.h"
#include "net/task.h"
#include "http/cancellation.h"

namespace llmux::http {

/// How a handler answers the client. A response is either sent whole (`send`) or streamed
/// (`beginBody`, then `writeBody` pieces, then `endBody`); each piece is on the wire, flushed,
/// when the awaited call returns. Calls return false once the client connection is broken; the
/// handler then stops writing. Framing (Content-Length or chunked, Connection) is the writer's job:
/// handlers never pass those headers.
///
/// Thread safety: one request, one worker thread. Cancellation: `cancellation()` fires when the
/// client disconnects or the server's drain timeout passes.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;

  /// A complete response with a Content-Length.
  virtual net::Task<bool> send(int status, HeaderList const& headers,
                                            std::string_view body) = 0;

  /// Starts a body: with `content_length` the body is sent as is, without it chunked (or, for an
  /// HTTP/1.0 client, delimited by closing the connection). `first_piece` goes out in the same
  /// write as the head.
  virtual net::Task<bool> beginBody(int status, HeaderList const& headers,
                                                 std::optional<std::uint64_t> content_length,
                                                 std::string_view first_piece) = 0;
  virtual net::Task<bool> writeBody(std::string_view piece) = 0;
  /// Ends a started body, with `last_piece` (possibly empty) written in the same system call as
  /// the end of a chunked body.
  virtual net::Task<bool> endBody(std::string_view last_piece) = 0;

  /// Gives up on a started body whose framing cannot be completed (a Content-Length body cut
  /// short): the connection is closed so the client sees the truncation.
  virtual void breakConnection() = 0;

  virtual bool headSent() const = 0;
  virtual std::uint64_t bodyBytesSent() const = 0;
  /// When the first response byte was written; default-constructed before that.
  virtual MonoTime firstByteAt() const = 0;
  virtual Cancellation& cancellation() = 0;
};

}  // namespace llmux::http

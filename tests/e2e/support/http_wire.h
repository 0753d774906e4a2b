#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/http_headers.h"
#include "core/result.h"

// Pure parsing of the HTTP/1.1 response wire format, strict on purpose: the harness checks what
// llmux sends, so CRLF line endings and well-formed chunk framing are required, not tolerated.
namespace llmux::e2e {

/// A response's status line and header fields as received.
struct ResponseHead {
  std::string version;  ///< "HTTP/1.1"
  int status = 0;
  std::string reason;
  HeaderList headers;  ///< case-insensitive lookup: headers.get("content-type")
  std::string raw;     ///< the head's bytes, through the empty line

  bool isInterim() const { return status >= 100 && status < 200; }
};

/// Parses one complete head: status line, fields and the terminating empty line.
Result<ResponseHead> parseResponseHead(std::string_view raw);

/// How a response body is delimited (RFC 9112 section 6.3).
enum class BodyFraming {
  None,           ///< 1xx, 204, 304 or an answer to HEAD
  ContentLength,  ///< exactly `length` bytes
  Chunked,        ///< Transfer-Encoding: chunked
  UntilClose,     ///< neither: the body ends when the server closes the connection
};

struct Framing {
  BodyFraming kind = BodyFraming::None;
  std::size_t length = 0;  ///< for ContentLength
};

/// The framing of the body that follows `head`.
Result<Framing> framingOf(ResponseHead const& head, bool answers_head_request);

/// What `ChunkedDecoder::next` found at the front of the buffer.
struct ChunkStep {
  enum class Kind {
    NeedMore,  ///< the next chunk is not complete yet; nothing is consumed
    Chunk,     ///< one whole chunk; its data is in `data`
    End,       ///< the last chunk and the trailer section were consumed
  };
  Kind kind = Kind::NeedMore;
  std::string data;
  std::size_t consumed = 0;  ///< framing and data bytes this step used up
};

/// Decodes a chunked body one whole chunk at a time, so a test sees the chunks as the server
/// framed them. The caller owns the buffer and drops `consumed` bytes after each step; bytes after
/// the body's end (a next response on a kept-alive connection) are never consumed.
class ChunkedDecoder {
 public:
  /// Decodes the next chunk at the front of `buffer` if it is complete.
  Result<ChunkStep> next(std::string_view buffer);
  bool done() const { return done_; }
  HeaderList const& trailers() const { return trailers_; }

 private:
  bool done_ = false;
  HeaderList trailers_;
};

}  // namespace llmux::e2e

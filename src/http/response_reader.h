#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include "core/http_headers.h"
#include "core/result.h"
#include "http/response_parser.h"

namespace llmux::http {

/// The parsing half of reading an upstream's response, without I/O: the caller reads into
/// `readSpace()` and reports what came with `received()` (or `receivedEof()`); this turns the
/// buffered bytes into the final head and pieces of body. The upstream exchange drives it from a
/// socket and the upstream_response fuzz target from arbitrary bytes: one implementation.
///
/// Interim heads (1xx other than 101: `100 Continue`, `103 Early Hints`...) before the final head
/// are parsed and dropped, each by a fresh parser over the bytes already buffered (a 1xx is a
/// complete message of its own). More than kMaxInterimHeads of them, or a `101 Switching
/// Protocols` (llmux never asks for an upgrade), is an upstream protocol error. The caller's
/// deadline for the head covers every interim head: they never extend it.
///
/// Bounds: a head (start line and fields) of at most kMaxHeadBytes; whatever must be buffered
/// whole (a head, a chunk header, a trailer) fits in the buffer, whose limit is kBufferLimit.
/// Body bytes are handed over piece by piece, never accumulated.
class ResponseReader {
 public:
  static constexpr int kMaxInterimHeads = 8;
  static constexpr std::size_t kMaxHeadBytes = 8 * 1024;
  /// The read buffer's limit (`UpstreamConnection` makes its buffer with it).
  static constexpr std::size_t kBufferLimit = 16 * 1024;

  /// Reads through `buffer`, which outlives the reader (the connection's: bytes still in it
  /// after a complete response mean the connection cannot be reused).
  explicit ResponseReader(boost::beast::flat_buffer& buffer);

  /// Where the next read may write; an error when the buffer is full of something that must be
  /// buffered whole and still is not complete (the upstream is broken or hostile).
  Result<boost::asio::mutable_buffer> readSpace();
  /// `n` bytes were read into the read space.
  void received(std::size_t n);
  /// The upstream closed the connection: ends a body delimited by the end of the connection;
  /// anything else unfinished is an error (kind Connect when no byte of a response came at all).
  Result<void> receivedEof();

  /// Parses buffered heads: true once the final head is in, false when more bytes are needed.
  Result<bool> parseHead();
  /// Parses buffered body bytes until a piece of body is in `body()` or the response is done:
  /// true then, false when more bytes are needed.
  Result<bool> parseBody();

  /// The final head is in (an interim or refused head never counts).
  bool headDone() const { return final_head_; }
  /// The final response is complete.
  bool done() const { return final_head_ && parser_->done(); }
  /// A byte of a head (interim or final) arrived.
  bool gotSome() const { return got_some_; }
  int interimHeads() const { return interim_heads_; }

  int status() const { return parser_->status(); }
  HeaderList const& headers() const { return parser_->headers(); }
  /// The body bytes parsed since the caller last emptied it.
  std::string& body() { return parser_->body(); }
  bool keepAlive() const { return parser_->keepAlive(); }
  /// The length of the final response's body as its head declares it: none when chunked or
  /// delimited by the close, 0 for a 204 or 304 (which have no body whatever they declare).
  std::optional<std::uint64_t> contentLength() const;

 private:
  void freshParser();
  /// Hands the buffered bytes to the parser once and drops what it used: whether it progressed
  /// (false: it needs more bytes), or a framing error naming `what` it was parsing. `what` may
  /// take `limit` bytes, `used_before` of which earlier steps parsed (a head's start line is
  /// parsed before its fields when it arrives in pieces): the limit is the same however the
  /// bytes arrive.
  Result<bool> step(std::string_view what, std::size_t limit, std::size_t used_before);
  /// A complete 1xx head was parsed: drop it (or fail on a 101 or one too many).
  Result<void> skipInterimHead();

  boost::beast::flat_buffer& buffer_;
  std::optional<ResponseParser> parser_;
  std::size_t parsed_ = 0;      ///< bytes the parsers have used so far
  std::size_t head_start_ = 0;  ///< `parsed_` when the current head began
  int interim_heads_ = 0;
  bool final_head_ = false;
  bool got_some_ = false;
};

}  // namespace llmux::http

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/http_headers.h"

namespace llmux::http {

/// Parses one HTTP/1.x response from bytes its caller buffers: no I/O, no callbacks, no
/// allocation per field (the fields go into one HeaderList). The head is parsed once it is whole
/// (through the blank line), then the body as its Content-Length, the chunked coding or the end
/// of the connection delimits it, each piece appended to `body()`. One parser per response: an
/// interim (1xx) head is a response of its own, followed by the next one's bytes.
///
/// RFC 9112, as Beast's parser (which it replaces on the upstream side) reads it: CRLF line
/// ends; HTTP/1.0 or 1.1; a status of three digits followed by a space; field names are tokens
/// followed at once by the colon; values are trimmed and may not carry control bytes (tab
/// aside); obsolete line folding is joined with a space; Content-Length is a list of equal
/// decimal values; Transfer-Encoding is chunked only when `chunked` is its last coding, and is
/// refused together with Content-Length; 1xx, 204 and 304 have no body whatever they declare;
/// chunk extensions and trailer fields are checked and dropped.
class ResponseParser {
 public:
  /// What one `put` did.
  struct Step {
    std::size_t used = 0;    ///< bytes of the input taken
    bool need_more = false;  ///< nothing could be taken yet: the caller needs more bytes
    /// Non-empty when the response is malformed: what is wrong ("bad status line", ...).
    std::string_view error;
  };

  ResponseParser() { headers_.reserve(16, 512); }

  /// One step over `data`, which starts where the last step's used bytes ended: the whole head
  /// (never a byte past it), or a piece of body, or a chunk's header with the line end of the
  /// chunk before it (a last chunk: with its trailer section).
  Step put(std::string_view data);
  /// The connection ended here: completes a body delimited by it. False when the response is
  /// not complete (a head or a sized or chunked body cut short).
  bool putEof();

  /// A byte of this response was given to `put`.
  bool gotSome() const { return got_some_; }
  bool headerDone() const { return state_ != State::Head; }
  bool done() const { return state_ == State::Done; }

  int status() const { return status_; }
  HeaderList const& headers() const { return headers_; }
  /// The body bytes parsed since the caller last emptied it.
  std::string& body() { return body_; }
  /// The connection may carry another response after this one (HTTP/1.1 without
  /// `Connection: close`, HTTP/1.0 with `keep-alive`, and a body not delimited by the close).
  bool keepAlive() const;
  bool chunked() const { return chunked_; }
  /// The declared Content-Length; none when there is none or the body is chunked.
  std::optional<std::uint64_t> contentLength() const { return content_length_; }

 private:
  enum class State { Head, SizedBody, BodyToEof, ChunkHeader, ChunkData, Done };

  Step parseHead(std::string_view data);
  Step parseChunkHeader(std::string_view data);
  /// Body bytes of a sized body or chunk (`remaining_` of them); `after` once they are all in.
  Step takeSized(std::string_view data, State after);
  /// Checks one field against the framing it declares; an error text, or empty.
  std::string_view noteField(std::string_view name, std::string_view value);

  State state_ = State::Head;
  bool got_some_ = false;
  int status_ = 0;
  bool http11_ = false;
  bool connection_close_ = false;
  bool connection_keep_alive_ = false;
  bool chunked_ = false;
  bool body_to_eof_ = false;  ///< delimited by the end of the connection
  bool chunk_line_end_due_ = false;  ///< the CRLF after a chunk's data is still to come
  std::optional<std::uint64_t> content_length_;
  std::uint64_t remaining_ = 0;  ///< of the sized body or the current chunk
  HeaderList headers_;
  std::string body_;
};

}  // namespace llmux::http

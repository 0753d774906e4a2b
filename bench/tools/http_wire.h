#pragma once
// Just enough HTTP/1.1 for the benchmark client: an incremental response reader that notes when
// the head ends, when the first body byte arrives, when the body first contains a marker text and
// when the message is complete, plus socket helpers. Benchmarks only; the gateway's own HTTP code lives in src/http.

#include <netinet/in.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::bench {

/// Where a response stands after the bytes fed so far.
enum class ReadState {
  Head,       ///< still reading the status line and headers
  Body,       ///< head complete, body not finished
  Done,       ///< the whole message has been read
  Malformed,  ///< the bytes are not an HTTP/1.1 response this reader understands
};

/// Incremental reader of one response (Content-Length, chunked, or until EOF).
class ResponseReader {
 public:
  /// Starts over for the next response on the same connection (the marker stays).
  void reset();

  /// Text to look for in the body (the payload, chunk framing removed, across reads); empty: none.
  void setMarker(std::string marker) { marker_ = std::move(marker); }

  /// Consumes `data`; returns how many bytes belonged to this response (the rest, if any, is the
  /// start of something else, which the benchmark never pipelines, so callers treat it as an
  /// error).
  std::size_t feed(std::string_view data);

  /// The peer closed the connection: completes an until-EOF body, else marks the reply cut.
  void onEof();

  ReadState state() const { return state_; }
  int status() const { return status_; }
  /// True once at least one body byte (framing included) has been seen.
  bool sawBodyByte() const { return saw_body_byte_; }
  /// True once the body contains the marker (never without one).
  bool sawMarker() const { return saw_marker_; }
  /// True when the server asked to close the connection after this response.
  bool closeAfter() const { return close_after_; }
  /// True when the connection ended before the message did.
  bool cut() const { return cut_; }

 private:
  enum class ChunkPhase { Size, Data, DataEnd, Trailer };

  bool parseHead();
  std::size_t feedBody(std::string_view data);
  std::size_t feedChunked(std::string_view data);
  void scanPayload(std::string_view payload);

  ReadState state_ = ReadState::Head;
  std::string head_;
  int status_ = 0;
  bool chunked_ = false;
  bool until_eof_ = false;
  bool close_after_ = false;
  bool saw_body_byte_ = false;
  bool cut_ = false;
  std::string marker_;
  bool saw_marker_ = false;
  std::string tail_;  ///< the last marker_.size() - 1 payload bytes, for a marker across reads
  std::uint64_t remaining_ = 0;  ///< Content-Length left, or bytes left in the current chunk
  ChunkPhase phase_ = ChunkPhase::Size;
  std::string line_;  ///< partial chunk-size or trailer line
};

/// Parses "host:port" (IPv4 literal) into a socket address; false if malformed.
bool parseEndpoint(std::string_view text, sockaddr_in& out);

/// Blocking TCP connect with TCP_NODELAY; returns the fd or -1 (errno set).
int connectBlocking(sockaddr_in const& address);

/// Writes all of `data` to a blocking socket; false on error.
bool writeAll(int fd, std::string_view data);

/// Reads a whole file; throws std::runtime_error if it cannot (start-up only).
std::string readFile(std::string const& path);

}  // namespace llmux::bench

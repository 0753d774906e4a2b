#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/http_headers.h"
#include "core/result.h"
#include "e2e/support/http_wire.h"
#include "e2e/support/socket_io.h"

namespace llmux::e2e {

inline constexpr Millis kDefaultIoTimeout{10'000};

/// A piece of a response body and when its last byte was received. For a chunked body one piece
/// is one chunk exactly as the server framed it; otherwise whatever one read returned.
struct BodyPiece {
  std::string data;
  MonoTime arrived;
};

/// A whole response, as `HttpClient::request` returns it.
struct Response {
  std::vector<ResponseHead> interim;  ///< 1xx heads received before the final one (100 Continue)
  ResponseHead head;
  std::string body;               ///< decoded body (chunk framing removed)
  std::vector<BodyPiece> pieces;  ///< the body as it arrived
  HeaderList trailers;            ///< chunked trailer fields

  int status() const { return head.status; }
  std::string_view header(std::string_view name) const { return head.headers.get(name); }
};

/// Builds the bytes of an HTTP/1.1 request. Adds `Host` when absent, and `Content-Length` when
/// neither it nor `Transfer-Encoding` is given and there is a body (or the method is POST, PUT
/// or PATCH). `headers` are written in order, as given.
std::string formatRequest(std::string_view method, std::string_view target,
                          HeaderList const& headers, std::string_view body, std::uint16_t port);

/// A blocking HTTP/1.1 client over one loopback TCP connection, for driving a server byte by byte.
/// Every call takes a timeout and fails with ErrorKind::Timeout instead of hanging; bytes received
/// before a timeout are kept for the next call. Typical use:
///
///   auto client = HttpClient::connect(port);
///   auto response = client->request("POST", "/v1/messages", headers, body);
///
/// or, for streaming: `sendRequest`, `readHead`, then `readBodyPiece` (or an `SseReader`) until
/// it returns nullopt. The connection stays open for further requests (keep-alive).
class HttpClient {
 public:
  static Result<HttpClient> connect(std::uint16_t port, Millis timeout = kDefaultIoTimeout);

  HttpClient(HttpClient&&) = default;
  HttpClient& operator=(HttpClient&&) = default;

  std::uint16_t port() const { return port_; }

  /// Sends bytes as they are: malformed heads, huge headers, chunked bodies sent piece by piece.
  Result<void> sendRaw(std::string_view bytes, Millis timeout = kDefaultIoTimeout);
  /// Sends `formatRequest(...)`; read the answer with `readHead` / `readResponse`.
  Result<void> sendRequest(std::string_view method, std::string_view target,
                           HeaderList const& headers = {}, std::string_view body = {},
                           Millis timeout = kDefaultIoTimeout);

  /// Reads the next response head, interim (1xx) ones included, and prepares to read its body.
  /// Pass `answers_head_request` when the request was HEAD (its response has no body).
  Result<ResponseHead> readHead(Millis timeout = kDefaultIoTimeout,
                                bool answers_head_request = false);
  /// The next piece of the current body as soon as it is complete; nullopt once the body ended.
  Result<std::optional<BodyPiece>> readBodyPiece(Millis timeout = kDefaultIoTimeout);
  /// The rest of the current body; `timeout` bounds the whole read.
  Result<std::string> readBody(Millis timeout = kDefaultIoTimeout);
  /// Interim heads, the final head and the whole body.
  Result<Response> readResponse(Millis timeout = kDefaultIoTimeout,
                                bool answers_head_request = false);
  /// `sendRequest` then `readResponse`; `timeout` bounds each of the two.
  Result<Response> request(std::string_view method, std::string_view target,
                           HeaderList const& headers = {}, std::string_view body = {},
                           Millis timeout = kDefaultIoTimeout);

  /// Trailer fields of the last chunked body read to its end.
  HeaderList const& trailers() const { return chunked_.trailers(); }
  /// Whether the current response's body has been read to its end (or has none).
  bool bodyComplete() const { return !body_active_; }

  /// Succeeds when the server closes the connection (EOF or reset) within `timeout`; fails if
  /// bytes arrive instead or the connection stays open.
  Result<void> waitForClose(Millis timeout = kDefaultIoTimeout);
  /// Disconnects now, mid-stream if need be; with CloseMode::Reset the server sees a TCP reset.
  void closeNow(CloseMode mode = CloseMode::Graceful);
  bool isOpen() const { return fd_.valid() && !peer_closed_; }
  bool peerClosed() const { return peer_closed_; }

  /// Every byte received on this connection so far, framing included (the wire transcript).
  std::string const& received() const { return received_; }

 private:
  HttpClient(UniqueFd fd, std::uint16_t port) : fd_(std::move(fd)), port_(port) {}

  /// One read into `buffer_`; sets `peer_closed_` on EOF. Returns the bytes read.
  Result<std::size_t> fill(MonoTime deadline);
  /// Removes `n` bytes from the front of `buffer_` and returns when the last of them arrived.
  MonoTime consume(std::size_t n);

  UniqueFd fd_;
  std::uint16_t port_ = 0;
  std::string buffer_;    ///< received, not yet consumed
  std::string received_;  ///< everything received
  bool peer_closed_ = false;

  /// Arrival of received bytes: (stream offset just past a read's last byte, when it was read).
  std::deque<std::pair<std::size_t, MonoTime>> arrivals_;
  std::size_t consumed_total_ = 0;  ///< stream offset of buffer_'s first byte

  Framing framing_;
  bool body_active_ = false;
  std::size_t body_left_ = 0;  ///< for Content-Length bodies
  ChunkedDecoder chunked_;
};

}  // namespace llmux::e2e

#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "e2e/support/socket_io.h"

namespace llmux::e2e {

/// One request as a strict HTTP/1.1 server parsed it off the wire.
struct RecordedRequest {
  std::string request_line;             ///< "POST /v1/messages HTTP/1.1"
  std::vector<std::string> header_lines;  ///< each "Name: value" line as received
  std::string body;
  std::size_t connection = 0;           ///< index of the connection it came on
  std::string peer_address;             ///< the IP address the connection came from

  /// The first value of header `name` (case-insensitive), "" when absent.
  std::string header(std::string_view name) const;
};

/// A loopback upstream that parses every request it receives the way a strict server would
/// (CRLF head, Content-Length or chunked body, keep-alive) and answers each with what `respond`
/// returns (raw response bytes). It records every request and every byte, so a test can prove
/// what went on the wire: how many requests an upstream parsed, and each header line.
/// Bytes that do not parse as a request are kept as `garbage()` and end the connection.
class RecordingUpstream {
 public:
  using Responder = std::function<std::string(RecordedRequest const&)>;

  /// Binds 127.0.0.1 on a free port and starts serving; throws std::runtime_error on failure.
  explicit RecordingUpstream(Responder respond);
  ~RecordingUpstream();
  RecordingUpstream(RecordingUpstream const&) = delete;
  RecordingUpstream& operator=(RecordingUpstream const&) = delete;

  std::uint16_t port() const { return port_; }
  std::string baseUrl() const;

  std::vector<RecordedRequest> requests() const;
  /// Every byte received, all connections, in arrival order per connection.
  std::string receivedBytes() const;
  /// Bytes that were not a well-formed request (a desynchronised stream).
  std::string garbage() const;
  std::size_t connections() const;

  /// A complete JSON answer with a Content-Length.
  static std::string jsonResponse(std::string_view body, int status = 200,
                                  std::string_view extra_headers = "");

 private:
  void acceptLoop();
  void serve(UniqueFd fd, std::size_t index);

  Responder respond_;
  UniqueFd listener_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread acceptor_;

  mutable std::mutex mutex_;
  std::vector<std::thread> connection_threads_;
  std::vector<RecordedRequest> requests_;
  std::vector<std::string> received_;
  std::string garbage_;
};

}  // namespace llmux::e2e

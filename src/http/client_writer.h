#pragma once

#include "net/asio_types.h"

#include "http/response_writer.h"
#include "http/server.h"
#include "net/deadline.h"

namespace llmux::http {

/// The ResponseWriter over a client connection: writes heads and bodies straight to the socket
/// with gather writes (head and first piece in one syscall, chunk framing without copying).
class ClientWriter final : public ResponseWriter {
 public:
  /// `keep_alive`: whether the client allows reusing the connection; `chunked_ok`: HTTP/1.1;
  /// `closing`: the server is shutting down (read when the head is written: the answer then
  /// carries Connection: close).
  ClientWriter(net::Socket& socket, net::Deadline& deadline, bool keep_alive,
               bool chunked_ok, Millis write_timeout, bool const& closing);

  net::Task<bool> send(int status, HeaderList const& headers,
                                    std::string_view body) override;
  net::Task<bool> beginBody(int status, HeaderList const& headers,
                                         std::optional<std::uint64_t> content_length,
                                         std::string_view first_piece) override;
  net::Task<bool> writeBody(std::string_view piece) override;
  net::Task<bool> endBody(std::string_view last_piece) override;
  void breakConnection() override;

  bool headSent() const override { return head_sent_; }
  std::uint64_t bodyBytesSent() const override { return body_bytes_; }
  MonoTime firstByteAt() const override { return first_byte_at_; }
  Cancellation& cancellation() override { return cancellation_; }

  /// Whether the connection may serve another request after this response.
  bool reusable() const { return keep_alive_ && ok_ && finished_ && !close_delimited_; }
  /// Whether anything has been answered (a handler that returns without answering is a bug).
  bool answered() const { return head_sent_; }

 private:
  std::string buildHead(int status, HeaderList const& headers,
                        std::optional<std::uint64_t> content_length);
  net::Task<bool> writeBuffers(std::string_view a, std::string_view b,
                                            std::string_view c, std::string_view d);

  net::Socket& socket_;
  net::Deadline& deadline_;
  bool keep_alive_;
  bool chunked_ok_;
  Millis write_timeout_;
  bool const& closing_;
  Cancellation cancellation_;
  bool head_sent_ = false;
  bool chunked_ = false;
  bool close_delimited_ = false;
  bool finished_ = false;
  bool ok_ = true;
  std::uint64_t body_bytes_ = 0;
  MonoTime first_byte_at_{};
};

/// The reason phrase of a status code ("OK", "Too Many Requests", ...).
std::string_view reasonPhrase(int status);

}  // namespace llmux::http

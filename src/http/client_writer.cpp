#include "http/client_writer.h"

#include <array>
#include <charconv>

#include <boost/asio/write.hpp>

#include "core/strings.h"
#include "net/asio_types.h"

namespace llmux::http {

using net::ErrorCode;
using net::kUseTuple;
namespace asio = boost::asio;

std::string_view reasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 308: return "Permanent Redirect";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 402: return "Payment Required";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 428: return "Precondition Required";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 499: return "Client Closed Request";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 502: return "Bad Gateway";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 529: return "Site Overloaded";
    default: return status < 400 ? "OK" : "Error";
  }
}

ClientWriter::ClientWriter(net::Socket& socket, net::Deadline& deadline,
                           bool keep_alive, bool chunked_ok, Millis write_timeout,
                           bool const& closing)
    : socket_(socket),
      deadline_(deadline),
      keep_alive_(keep_alive),
      chunked_ok_(chunked_ok),
      write_timeout_(write_timeout),
      closing_(closing) {}

std::string ClientWriter::buildHead(int status, HeaderList const& headers,
                                    std::optional<std::uint64_t> content_length) {
  if (closing_) keep_alive_ = false;
  std::string head;
  head.reserve(256);
  head += "HTTP/1.1 ";
  head += std::to_string(status);
  head += ' ';
  head += reasonPhrase(status);
  head += "\r\n";
  for (auto const& f : headers) {
    head += f.name;
    head += ": ";
    head += f.value;
    head += "\r\n";
  }
  if (status == 204 || status == 304) {
    // No body, and no Content-Length either (RFC 9110 §8.6).
  } else if (content_length) {
    head += "Content-Length: ";
    head += std::to_string(*content_length);
    head += "\r\n";
  } else if (chunked_ok_) {
    chunked_ = true;
    head += "Transfer-Encoding: chunked\r\n";
  } else {
    close_delimited_ = true;
    keep_alive_ = false;
  }
  if (!keep_alive_) head += "Connection: close\r\n";
  head += "\r\n";
  return head;
}

net::Task<bool> ClientWriter::writeBuffers(std::string_view a, std::string_view b,
                                                 std::string_view c, std::string_view d) {
  if (!ok_) co_return false;
  std::array<asio::const_buffer, 4> buffers{asio::buffer(a), asio::buffer(b), asio::buffer(c),
                                            asio::buffer(d)};
  deadline_.expireAfter(write_timeout_);
  auto [ec, n] = co_await asio::async_write(socket_, buffers, kUseTuple);
  deadline_.clear();
  if (ec) {
    ok_ = false;
    co_return false;
  }
  if (first_byte_at_ == MonoTime{}) first_byte_at_ = MonoClock::now();
  co_return true;
}

net::Task<bool> ClientWriter::send(int status, HeaderList const& headers,
                                         std::string_view body) {
  std::string head = buildHead(status, headers, body.size());
  head_sent_ = true;
  bool ok = co_await writeBuffers(head, body, {}, {});
  body_bytes_ += body.size();
  finished_ = true;
  co_return ok;
}

namespace {
// "<hex size>\r\n" for one chunk.
std::string_view chunkSizeLine(std::size_t size, std::array<char, 24>& storage) {
  auto [end, ec] = std::to_chars(storage.data(), storage.data() + 16, size, 16);
  *end++ = '\r';
  *end++ = '\n';
  return std::string_view(storage.data(), static_cast<std::size_t>(end - storage.data()));
}
}  // namespace

net::Task<bool> ClientWriter::beginBody(int status, HeaderList const& headers,
                                              std::optional<std::uint64_t> content_length,
                                              std::string_view first_piece) {
  std::string head = buildHead(status, headers, content_length);
  head_sent_ = true;
  body_bytes_ += first_piece.size();
  if (!chunked_ || first_piece.empty()) co_return co_await writeBuffers(head, first_piece, {}, {});
  std::array<char, 24> size_line;
  co_return co_await writeBuffers(head, chunkSizeLine(first_piece.size(), size_line), first_piece,
                                  "\r\n");
}

net::Task<bool> ClientWriter::writeBody(std::string_view piece) {
  if (piece.empty()) co_return ok_;
  body_bytes_ += piece.size();
  if (!chunked_) co_return co_await writeBuffers(piece, {}, {}, {});
  std::array<char, 24> size_line;
  co_return co_await writeBuffers(chunkSizeLine(piece.size(), size_line), piece, "\r\n", {});
}

net::Task<bool> ClientWriter::endBody(std::string_view last_piece) {
  finished_ = true;
  body_bytes_ += last_piece.size();
  if (chunked_) {
    if (last_piece.empty()) co_return co_await writeBuffers("0\r\n\r\n", {}, {}, {});
    std::array<char, 24> size_line;
    co_return co_await writeBuffers(chunkSizeLine(last_piece.size(), size_line), last_piece,
                                    "\r\n0\r\n\r\n", {});
  }
  if (!last_piece.empty() && !co_await writeBuffers(last_piece, {}, {}, {})) co_return false;
  if (close_delimited_) {
    ErrorCode ignored;
    socket_.shutdown(net::Socket::shutdown_send, ignored);
  }
  co_return ok_;
}

void ClientWriter::breakConnection() {
  ok_ = false;
  keep_alive_ = false;
  ErrorCode ignored;
  socket_.shutdown(net::Socket::shutdown_both, ignored);
  socket_.close(ignored);
}

}  // namespace llmux::http

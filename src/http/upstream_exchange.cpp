#include "http/upstream_exchange.h"

#include <algorithm>

#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

namespace llmux::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;

namespace {

// A body of known size gets a read buffer of up to 16 KiB so a large answer takes few reads;
// streams keep the small initial one (their events are small).
constexpr std::size_t kMaxReadBuffer = 16 * 1024;

template <class Stream>
Task<ErrorCode> writeAll(Stream& stream, std::array<asio::const_buffer, UpstreamExchange::kMaxPieces> const& buffers) {
  auto [ec, n] = co_await asio::async_write(stream, buffers, kUseTuple);
  co_return ec;
}

template <class Stream>
Task<ErrorCode> readHead(Stream& stream, beast::flat_buffer& buffer, ResponseParser& parser) {
  auto [ec, n] = co_await bhttp::async_read_header(stream, buffer, parser, kUseTuple);
  co_return ec;
}

template <class Stream>
Task<ErrorCode> readSome(Stream& stream, beast::flat_buffer& buffer, ResponseParser& parser) {
  auto [ec, n] = co_await bhttp::async_read_some(stream, buffer, parser, kUseTuple);
  co_return ec;
}

bool isPeerClose(ErrorCode ec) {
  return ec == bhttp::error::end_of_stream || ec == asio::error::eof ||
         ec == asio::error::connection_reset || ec == asio::error::broken_pipe ||
         ec == bhttp::error::partial_message;
}

}  // namespace

UpstreamExchange::UpstreamExchange(UpstreamPool& pool, std::unique_ptr<UpstreamConnection> connection)
    : pool_(pool), connection_(std::move(connection)) {
  parser_.body_limit(boost::none);  // upstream answers are relayed, not held
}

UpstreamExchange::~UpstreamExchange() {
  if (connection_) connection_->close();
}

Task<Result<void>> UpstreamExchange::start(std::array<std::string_view, kMaxPieces> const& pieces,
                                           MonoTime head_deadline) {
  std::array<asio::const_buffer, kMaxPieces> buffers;
  for (std::size_t i = 0; i < kMaxPieces; ++i) buffers[i] = asio::buffer(pieces[i]);

  auto& conn = *connection_;
  conn.deadline().expireAt(head_deadline);
  // (No co_await inside conditional expressions: GCC 12 miscompiles some of them.)
  ErrorCode ec;
  if (conn.secure()) {
    ec = co_await writeAll(*conn.secure(), buffers);
    if (!ec) ec = co_await readHead(*conn.secure(), conn.buffer(), parser_);
  } else {
    ec = co_await writeAll(*conn.plain(), buffers);
    if (!ec) ec = co_await readHead(*conn.plain(), conn.buffer(), parser_);
  }
  conn.deadline().clear();
  if (ec) {
    if (aborted_) co_return makeError(ErrorKind::Cancelled, "upstream request cancelled");
    if (conn.deadline().expired()) {
      co_return makeError(ErrorKind::Timeout, "no response head from the upstream in time");
    }
    stale_ = conn.reused && isPeerClose(ec) && parser_.got_some() == false;
    co_return makeError(ErrorKind::Connect, "upstream connection failed: " + ec.message());
  }
  head_at_ = MonoClock::now();
  co_return Result<void>{};
}

std::optional<std::uint64_t> UpstreamExchange::contentLength() const {
  if (parser_.chunked()) return std::nullopt;
  auto length = parser_.content_length();
  if (!length) return std::nullopt;
  return *length;
}

bool UpstreamExchange::done() const { return parser_.is_done(); }

std::string_view UpstreamExchange::bufferedBody() const {
  if (!connection_) return {};
  auto data = connection_->buffer().data();
  return {static_cast<char const*>(data.data()), data.size()};
}

Task<Result<std::string_view>> UpstreamExchange::readBody(MonoTime piece_deadline) {
  auto& body = parser_.body();
  body.clear();  // the previous piece was handed out already
  if (parser_.is_done()) co_return std::string_view();
  auto& conn = *connection_;
  if (auto length = contentLength(); length && *length > conn.buffer().capacity()) {
    conn.buffer().reserve(static_cast<std::size_t>(std::min<std::uint64_t>(*length, kMaxReadBuffer)));
  }
  while (body.empty() && !parser_.is_done()) {
    conn.deadline().expireAt(piece_deadline);
    ErrorCode ec;
    if (conn.secure()) {
      ec = co_await readSome(*conn.secure(), conn.buffer(), parser_);
    } else {
      ec = co_await readSome(*conn.plain(), conn.buffer(), parser_);
    }
    conn.deadline().clear();
    if (ec) {
      if (aborted_) co_return makeError(ErrorKind::Cancelled, "upstream request cancelled");
      if (conn.deadline().expired()) {
        co_return makeError(ErrorKind::Timeout, "the upstream stopped sending (idle timeout)");
      }
      co_return makeError(ErrorKind::UpstreamProtocol,
                          "upstream connection broke mid-response: " + ec.message());
    }
  }
  co_return std::string_view(body);
}

void UpstreamExchange::abort() {
  aborted_ = true;
  if (connection_) connection_->close();
}

void UpstreamExchange::finish() {
  if (!connection_) return;
  if (!aborted_ && parser_.is_done() && parser_.keep_alive()) {
    pool_.release(std::move(connection_));
  } else {
    connection_->close();
    connection_.reset();
  }
}

}  // namespace llmux::http

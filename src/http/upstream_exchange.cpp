#include "http/upstream_exchange.h"

#include <utility>

#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>

namespace llmux::http {

namespace asio = boost::asio;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;

namespace {

constexpr std::string_view kHeadTimeout = "no response head from the upstream in time";
constexpr std::string_view kBodyTimeout = "the upstream stopped sending (idle timeout)";

// Plain functions returning the operation's awaitable, not coroutines: a coroutine here would add
// a frame to every open stream for as long as it waits for its next read.
template <class Stream>
auto writeAll(Stream& stream,
              std::array<asio::const_buffer, UpstreamExchange::kMaxPieces> const& buffers) {
  return asio::async_write(stream, buffers, kUseTuple);
}

template <class Stream>
auto readSome(Stream& stream, asio::mutable_buffer space) {
  return stream.async_read_some(space, kUseTuple);
}

}  // namespace

UpstreamExchange::UpstreamExchange(UpstreamPool& pool,
                                   std::unique_ptr<UpstreamConnection> connection)
    : pool_(pool), connection_(std::move(connection)), reader_(connection_->buffer()) {}

UpstreamExchange::~UpstreamExchange() {
  if (connection_) connection_->close();
}

std::optional<Error> UpstreamExchange::interrupted(std::string_view timeout_message) const {
  if (aborted_) return makeError(ErrorKind::Cancelled, "upstream request cancelled");
  if (connection_->deadline().expired()) {
    return makeError(ErrorKind::Timeout, std::string(timeout_message));
  }
  return std::nullopt;
}

Task<Result<void>> UpstreamExchange::start(Pieces pieces, MonoTime head_deadline) {
  // One deadline for the write and every head, interim ones included: a peer sending endless
  // 103s cannot hold the attempt past it.
  connection_->deadline().expireAt(head_deadline);
  Result<void> outcome = co_await writeRequest(pieces);
  if (outcome) outcome = co_await readFinalHead();
  connection_->deadline().clear();
  if (!outcome) co_return outcome.error();
  head_at_ = MonoClock::now();
  co_return Result<void>{};
}

Task<Result<void>> UpstreamExchange::writeRequest(Pieces pieces) {
  std::array<asio::const_buffer, kMaxPieces> buffers;
  for (std::size_t i = 0; i < kMaxPieces; ++i) buffers[i] = asio::buffer(pieces[i]);
  auto& conn = *connection_;
  // (No co_await inside conditional expressions: GCC 12 miscompiles some of them.)
  std::tuple<ErrorCode, std::size_t> written;
  if (conn.secure()) {
    written = co_await writeAll(*conn.secure(), buffers);
  } else if (conn.tunneled()) {
    written = co_await writeAll(*conn.tunneled(), buffers);
  } else {
    written = co_await writeAll(*conn.plain(), buffers);
  }
  if (auto stop = interrupted(kHeadTimeout)) co_return *stop;
  auto [ec, n] = written;
  if (ec) {
    stale_ = conn.reused && n == 0;
    co_return makeError(ErrorKind::Connect,
                        "upstream connection failed while sending the request: " +
                            ec.message());
  }
  co_return Result<void>{};
}

Task<Result<void>> UpstreamExchange::readFinalHead() {
  for (;;) {
    auto head = reader_.parseHead();
    if (!head) co_return head.error();
    if (*head) co_return Result<void>{};
    auto more = co_await readMore(kHeadTimeout);
    if (!more) co_return more.error();
  }
}

Task<Result<void>> UpstreamExchange::readMore(std::string_view timeout_message) {
  auto& conn = *connection_;
  auto space = reader_.readSpace();
  if (!space) co_return space.error();
  std::tuple<ErrorCode, std::size_t> read;
  if (conn.secure()) {
    read = co_await readSome(*conn.secure(), *space);
  } else if (conn.tunneled()) {
    read = co_await readSome(*conn.tunneled(), *space);
  } else {
    read = co_await readSome(*conn.plain(), *space);
  }
  auto [ec, n] = read;
  reader_.received(n);
  if (auto stop = interrupted(timeout_message)) co_return *stop;
  if (ec == asio::error::eof) co_return reader_.receivedEof();
  if (ec) {
    // A reset, or a TLS stream cut without close_notify: never a clean end of a body.
    if (!reader_.gotSome()) {
      co_return makeError(ErrorKind::Connect, "upstream connection failed: " + ec.message());
    }
    co_return makeError(ErrorKind::UpstreamProtocol,
                        "upstream connection broke mid-response: " + ec.message());
  }
  co_return Result<void>{};
}

bool UpstreamExchange::done() const { return reader_.done(); }

std::string_view UpstreamExchange::bufferedBody() const {
  if (!connection_) return {};
  auto data = connection_->buffer().data();
  return {static_cast<char const*>(data.data()), data.size()};
}

Task<Result<std::string_view>> UpstreamExchange::readBody(MonoTime piece_deadline) {
  auto& body = reader_.body();
  body.clear();  // the previous piece was handed out already
  auto& conn = *connection_;
  for (;;) {
    auto piece = reader_.parseBody();
    if (!piece) co_return piece.error();
    if (*piece) break;
    conn.deadline().expireAt(piece_deadline);
    auto more = co_await readMore(kBodyTimeout);
    conn.deadline().clear();
    if (!more) co_return more.error();
  }
  if (tap_ != nullptr) tap_->append(body);
  co_return std::string_view(body);
}

void UpstreamExchange::abort() {
  aborted_ = true;
  if (connection_) connection_->close();
}

void UpstreamExchange::finish() {
  if (!connection_) return;
  if (!aborted_ && reader_.done() && reader_.keepAlive()) {
    pool_.release(std::move(connection_));
  } else {
    connection_->close();
    connection_.reset();
  }
}

}  // namespace llmux::http

#include "shared_state/redis_client.h"

#include <array>
#include <deque>
#include <optional>

#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>

#include "net/asio_types.h"
#include "net/deadline.h"
#include "net/resolver.h"

namespace llmux::shared_state {

namespace asio = boost::asio;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;

namespace {

// Replies we expect are a few dozen bytes; one read takes a burst of pipelined ones.
constexpr std::size_t kReadChunk = 4096;

/// One command whose reply is awaited: a caller's, or an AUTH / SELECT of the connection setup.
struct PendingCall {
  PendingCall(asio::io_context& io, MonoTime deadline, bool setup)
      : wake(io), deadline(deadline), setup(setup) {
    wake.expires_at(MonoTime::max());
  }

  net::Timer wake;  ///< never expires by itself: cancelled once `result` is set, to resume the caller
  MonoTime deadline;
  bool setup;  ///< nobody waits on it; an error reply makes the whole connection unusable
  std::optional<Result<RedisReply>> result;

  void complete(Result<RedisReply> outcome) {
    if (result) return;
    result.emplace(std::move(outcome));
    wake.cancel();
  }
};

}  // namespace

/// One connection: the commands written in order and the calls waiting for their replies in the
/// same order. Owned jointly by the client and the coroutines running on it, so a client that
/// drops it never pulls it from under a pending read.
struct RedisClient::Link : std::enable_shared_from_this<Link> {
  Link(asio::io_context& io, RedisConnectOptions const& options)
      : io(io), options(options), socket(io), watchdog(io, [this] { expire(); }) {}

  asio::io_context& io;
  RedisConnectOptions options;
  net::Socket socket;
  net::CachingResolver resolver;
  /// Armed for the oldest pending call: that call has the earliest deadline, every call sharing
  /// one timeout and waiting in order.
  net::Deadline watchdog;
  bool open = false;  ///< connected: the outbox may be written
  bool dead = false;
  bool writing = false;
  std::string outbox;  ///< encoded commands not yet handed to the socket
  std::deque<std::shared_ptr<PendingCall>> pending;
  RespParser parser;

  std::shared_ptr<PendingCall> enqueue(std::vector<std::string> const& args, MonoTime deadline,
                                       bool setup) {
    auto call = std::make_shared<PendingCall>(io, deadline, setup);
    outbox += encodeCommand(args);
    pending.push_back(call);
    if (pending.size() == 1) watchdog.expireAt(deadline);
    startWriting();
    return call;
  }

  /// Fails every pending call with `error` and closes the socket; the link is never used again.
  void kill(Error const& error) {
    if (dead) return;
    dead = true;
    open = false;
    watchdog.clear();  // not stop(): this may run inside the watchdog's own callback
    ErrorCode ignored;
    socket.close(ignored);
    auto calls = std::move(pending);
    pending.clear();
    for (auto& call : calls) call->complete(error);
  }

  void expire() {
    kill(makeError(ErrorKind::Timeout, "redis " + options.host + ":" + std::to_string(options.port) +
                                           " did not answer within " +
                                           std::to_string(options.timeout.count()) + " ms"));
  }

  Error lost(ErrorCode ec) const {
    std::string where = options.host + ":" + std::to_string(options.port);
    if (ec == asio::error::eof) return makeError(ErrorKind::Connect, "redis " + where + " closed the connection");
    return makeError(ErrorKind::Connect, "redis connection to " + where + " lost: " + ec.message());
  }

  void startWriting() {
    if (!open || dead || writing || outbox.empty()) return;
    writing = true;
    asio::co_spawn(io, flush(shared_from_this()), asio::detached);
  }

  /// Gives the oldest pending call its reply.
  void deliver(RedisReply reply) {
    if (pending.empty()) {
      kill(makeError(ErrorKind::Internal, "redis sent a reply nobody asked for"));
      return;
    }
    auto call = std::move(pending.front());
    pending.pop_front();
    if (pending.empty()) {
      watchdog.clear();
    } else {
      watchdog.expireAt(pending.front()->deadline);
    }
    if (call->setup && reply.isError()) {
      // AUTH or SELECT refused: nothing sent on this connection can be trusted to its database.
      kill(makeError(ErrorKind::Connect, "redis refused the connection setup: " + reply.text));
      return;
    }
    call->complete(std::move(reply));
  }

  static Task<void> flush(std::shared_ptr<Link> self) {
    while (!self->dead && !self->outbox.empty()) {
      std::string chunk;
      chunk.swap(self->outbox);
      auto [ec, n] = co_await asio::async_write(self->socket, asio::buffer(chunk), kUseTuple);
      if (self->dead) break;
      if (ec) self->kill(self->lost(ec));
    }
    self->writing = false;
  }

  static Task<void> read(std::shared_ptr<Link> self) {
    std::array<char, kReadChunk> chunk;
    while (!self->dead) {
      auto [ec, n] = co_await self->socket.async_read_some(asio::buffer(chunk), kUseTuple);
      if (self->dead) co_return;
      if (ec) {
        self->kill(self->lost(ec));
        co_return;
      }
      self->parser.feed(std::string_view(chunk.data(), n));
      while (!self->dead) {
        auto reply = self->parser.next();
        if (!reply) {
          self->kill(reply.error());
          co_return;
        }
        if (!*reply) break;
        self->deliver(std::move(**reply));
      }
    }
  }

  /// Resolves, connects, then reads replies until the link dies. The watchdog bounds every step:
  /// when it fires the link is killed, and each step below notices `dead` when it resumes.
  static Task<void> run(std::shared_ptr<Link> self) {
    auto endpoints = co_await self->resolver.resolve(self->options.host, self->options.port);
    if (self->dead) co_return;
    if (!endpoints) {
      self->kill(makeError(ErrorKind::Connect, endpoints.error().message));
      co_return;
    }
    auto [ec, endpoint] = co_await asio::async_connect(self->socket, *endpoints, kUseTuple);
    if (self->dead) co_return;
    if (ec) {
      self->kill(makeError(ErrorKind::Connect, "cannot connect to redis " + self->options.host + ":" +
                                                   std::to_string(self->options.port) + ": " +
                                                   ec.message()));
      co_return;
    }
    ErrorCode ignored;
    self->socket.set_option(net::tcp::no_delay(true), ignored);
    self->open = true;
    self->startWriting();
    co_await read(self);
  }
};

RedisClient::RedisClient(asio::io_context& io, RedisConnectOptions options)
    : io_(io), options_(std::move(options)) {}

RedisClient::~RedisClient() {
  if (link_) link_->kill(makeError(ErrorKind::Cancelled, "redis client destroyed"));
}

void RedisClient::close() {
  closed_ = true;
  if (link_) link_->kill(makeError(ErrorKind::Cancelled, "redis client closed"));
  link_.reset();
}

void RedisClient::openLink(MonoTime deadline) {
  link_ = std::make_shared<Link>(io_, options_);
  ++connections_opened_;
  // Pipelined ahead of the first command: Redis runs them first, in order.
  if (!options_.password.empty()) link_->enqueue({"AUTH", options_.password}, deadline, true);
  if (options_.db != 0) link_->enqueue({"SELECT", std::to_string(options_.db)}, deadline, true);
  asio::co_spawn(io_, Link::run(link_), asio::detached);
}

Task<Result<RedisReply>> RedisClient::call(std::vector<std::string> args) {
  if (closed_) co_return makeError(ErrorKind::Cancelled, "redis client closed");
  MonoTime deadline = MonoClock::now() + options_.timeout;
  if (!link_ || link_->dead) openLink(deadline);
  std::shared_ptr<Link> link = link_;
  auto call = link->enqueue(args, deadline, false);
  if (!call->result) co_await call->wake.async_wait(kUseTuple);
  co_return std::move(*call->result);
}

}  // namespace llmux::shared_state

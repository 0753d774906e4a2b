#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "net/task.h"
#include "shared_state/resp.h"

namespace llmux::shared_state {

/// Where a Redis server is and how to talk to it.
struct RedisConnectOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
  std::string password;  ///< AUTH on connect when not empty; never logged
  int db = 0;            ///< SELECT on connect when not 0
  /// A call (connect, AUTH and SELECT included when it opens the connection) that has no reply
  /// by then fails with ErrorKind::Timeout and the connection is dropped.
  Millis timeout{50};
};

/// A small asynchronous Redis client (RESP2, no hiredis) bound to one io_context.
///
/// One connection, opened on the first call and reused; calls made while others are in flight
/// are pipelined on it (Redis answers in order), so a worker needs no pool. A connection that
/// times out, breaks or desynchronises is dropped with every call pending on it; the next call
/// opens a new one. Error replies ("-ERR ...") are answers, not failures: the connection stays.
///
/// Thread safety: the thread running `io` only. Lifetime: destroy it on that thread or after the
/// context stopped running, and before the io_context itself.
class RedisClient {
 public:
  RedisClient(boost::asio::io_context& io, RedisConnectOptions options);
  ~RedisClient();
  RedisClient(RedisClient const&) = delete;
  RedisClient& operator=(RedisClient const&) = delete;

  /// Sends one command (`args[0]` is its name) and waits for its reply, at most `timeout`.
  /// Errors: ErrorKind::Timeout (no reply in time), ErrorKind::Connect (refused, reset, AUTH or
  /// SELECT refused), ErrorKind::Internal (the server sent something that is not RESP2).
  net::Task<Result<RedisReply>> call(std::vector<std::string> args);

  /// Drops the connection (pending calls fail with ErrorKind::Cancelled) and refuses every later
  /// call: shutdown, so that no idle read keeps the io_context busy.
  void close();

  /// Connections opened so far (tests check reuse; metrics).
  std::uint64_t connectionsOpened() const { return connections_opened_; }

 private:
  struct Link;
  /// A new connection (its AUTH and SELECT queued), used from the next command on.
  void openLink(MonoTime deadline);

  boost::asio::io_context& io_;
  RedisConnectOptions options_;
  std::shared_ptr<Link> link_;  ///< the current connection; replaced once dead
  std::uint64_t connections_opened_ = 0;
  bool closed_ = false;
};

}  // namespace llmux::shared_state

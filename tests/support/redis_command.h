#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"

namespace llmux::test_support {

/// One RESP2 reply as a test reads it.
struct RedisValue {
  enum class Kind { Simple, Error, Integer, Bulk, Null, Array };
  Kind kind = Kind::Null;
  std::string text;                  ///< Simple, Error and Bulk
  long long integer = 0;             ///< Integer
  std::vector<RedisValue> elements;  ///< Array
};

/// Sends one command (`args[0]` is its name) to the redis-server on 127.0.0.1:`port` over a new
/// blocking connection and reads its reply, the whole exchange bounded by `timeout`. It shares no
/// code with the gateway's own client, so a test can look at what the gateway wrote in Redis.
/// Errors: ErrorKind::Connect (refused, closed), ErrorKind::Timeout, ErrorKind::UpstreamProtocol
/// (not RESP2). An error reply ("-ERR ...") is a value of Kind::Error, not a failure.
Result<RedisValue> redisCommand(std::uint16_t port, std::vector<std::string> const& args,
                                Millis timeout = Millis(2'000));

}  // namespace llmux::test_support

#pragma once

// RESP2, the Redis wire protocol, without I/O: commands out, replies in.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace llmux::shared_state {

/// One RESP2 reply. A tagged value rather than a std::variant: arrays nest replies, and the
/// callers mostly ask "is it an error / an integer / an array of n".
struct RedisReply {
  enum class Kind {
    SimpleString,  ///< "+OK"      -> text
    Error,         ///< "-ERR ..." -> text (the whole line after '-')
    Integer,       ///< ":42"      -> integer
    Bulk,          ///< "$3 abc"   -> text (binary-safe)
    Nil,           ///< "$-1" or "*-1"
    Array,         ///< "*2 ..."   -> elements
  };

  Kind kind = Kind::Nil;
  std::string text;
  std::int64_t integer = 0;
  std::vector<RedisReply> elements;

  bool isError() const { return kind == Kind::Error; }
  bool isNil() const { return kind == Kind::Nil; }
  /// Whether this is an error reply whose code (first word) is `code`, e.g. "NOSCRIPT".
  bool isErrorCode(std::string_view code) const;

  static RedisReply simple(std::string text);
  static RedisReply error(std::string text);
  static RedisReply number(std::int64_t value);
  static RedisReply bulk(std::string text);
  static RedisReply nil();
  static RedisReply array(std::vector<RedisReply> elements);

  bool operator==(RedisReply const&) const = default;
};

/// A short rendering for logs and test failures: +OK, -ERR x, :1, "bulk", nil, [a, b].
std::string describe(RedisReply const& reply);

/// A command as a RESP2 array of bulk strings (every argument binary-safe).
std::string encodeCommand(std::span<std::string const> args);

/// Limits on what a reply may hold; beyond them the stream is treated as broken (the connection
/// is dropped). Our replies are a few small integers; SCRIPT and INFO answers are kilobytes.
inline constexpr std::size_t kMaxBulkBytes = 16 * 1024 * 1024;
inline constexpr std::int64_t kMaxArrayElements = 1024 * 1024;
inline constexpr int kMaxReplyDepth = 8;

/// Incremental RESP2 parser: feed it what the socket delivered, take complete replies out.
/// A reply split across reads stays buffered until it is whole (it is parsed again from its start
/// when more bytes arrive: our replies are small, so simplicity wins over resumable state).
/// Not thread-safe: one connection's reader.
class RespParser {
 public:
  void feed(std::string_view bytes);
  /// The next complete reply; nullopt while the buffered bytes end inside one; an Error when the
  /// bytes are not RESP2 (the stream cannot be resynchronised after that).
  Result<std::optional<RedisReply>> next();
  /// Bytes received but not yet returned as a reply.
  std::size_t buffered() const { return buffer_.size() - consumed_; }

 private:
  std::string buffer_;
  std::size_t consumed_ = 0;  ///< bytes of buffer_ already returned as replies
};

}  // namespace llmux::shared_state

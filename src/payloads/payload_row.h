#pragma once

#include <cstdint>
#include <string>

namespace llmux::payloads {

/// Which way a captured body went.
enum class BodyKind : unsigned char { Request, Response };

/// One captured body: a row of the ClickHouse table. Attempt 0 is the client's side (what it
/// sent, what it got); 1… are the upstream attempts in the order they started.
struct PayloadRow {
  std::int64_t ts = 0;  ///< the request's start, Unix seconds
  std::string request_id;
  std::uint32_t attempt = 0;
  BodyKind kind = BodyKind::Request;
  std::string headers;  ///< a JSON object (the client's request only), "" otherwise
  std::string body;     ///< redacted, at most max_bytes
  std::uint64_t body_bytes = 0;  ///< the whole body's length
  bool truncated = false;

  /// What the row weighs in the writer's queue.
  std::size_t weight() const { return body.size() + headers.size() + request_id.size() + 64; }
};

}  // namespace llmux::payloads

#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/result.h"
#include "protocol/sse_parser.h"

namespace llmux::test_support {

/// What `http::ResponseReader` made of an upstream's bytes, read the way the upstream exchange
/// reads a socket: heads until the final one, then body pieces until the response is done, each
/// read taking at most what the buffer has room for and what the cut allows; the input running
/// out while more is needed is the upstream closing the connection.
struct FedResponse {
  std::optional<Error> error;  ///< the first error; what came before it is kept
  bool head_done = false;
  int status = 0;
  int interim_heads = 0;
  std::vector<std::pair<std::string, std::string>> headers;
  std::optional<std::uint64_t> content_length;
  std::vector<std::string> pieces;  ///< body pieces in the order handed over (never empty ones)
  bool done = false;
  bool keep_alive = false;
  std::size_t left_over = 0;  ///< bytes read but not parsed once done (the next response's)
  std::vector<protocol::SseEvent> events;  ///< the body's pieces through an SSE parser, finished

  std::string body() const;
};

/// Feeds `wire` in reads of `cuts[i % cuts.size()]` bytes (0, or no cuts: as much as fits).
FedResponse feedResponse(std::string_view wire, std::vector<std::size_t> const& cuts = {});

}  // namespace llmux::test_support

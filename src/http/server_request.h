#pragma once

#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/http_headers.h"

namespace llmux::http {

/// A complete client request as the server read it: head fields and the whole body.
struct ServerRequest {
  std::string method;
  std::string target;  ///< path and query as sent
  HeaderList headers;
  std::string body;
  unsigned version = 11;     ///< 10 or 11
  unsigned listener = 0;     ///< the tag of the HttpServer that read it (which address)
  std::string peer;          ///< the client's IP address
  MonoTime head_received{};  ///< when the request head was complete
  MonoTime body_received{};  ///< when the body was complete
  /// Set by RequestHandler::screenHead when it refuses the request on its head: the body was not
  /// read and the answer is this status and message.
  int refused_status = 0;
  std::string refused_message;
  unsigned refused_retry_after = 0;  ///< seconds, with a 429
  /// Set by screenHead for a route whose body limit is not the server's `max_body_bytes`
  /// (uploads); 0: the server's.
  std::size_t body_limit = 0;

  std::string_view path() const;   ///< target without the query
  std::string_view query() const;  ///< after '?', "" when none
};

}  // namespace llmux::http

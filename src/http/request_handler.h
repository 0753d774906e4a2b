#pragma once

#include <string>
#include <string_view>


#include "net/task.h"
#include "http/response_writer.h"
#include "http/server_request.h"

namespace llmux::http {

/// A body and its content type, for answers the server sends on its own.
struct PlainAnswer {
  std::string content_type;
  std::string body;
};

/// What the server calls for every complete request it reads.
class RequestHandler {
 public:
  virtual ~RequestHandler() = default;

  /// Looks at a request's head before any byte of its body is read or a `100 Continue` is sent:
  /// true lets the body in; false refuses the request (an unknown route, a missing or wrong
  /// credential) with `refused_status` and `refused_message` set on it. A refused request is
  /// still handed to `handle` (so it is answered in its client's shape and accounted), with an
  /// empty body, and its connection closes after the answer. Must not block.
  virtual bool screenHead(ServerRequest& request) = 0;

  /// Answers `request` through `response`. Must answer (or break the connection) before returning.
  virtual net::Task<void> handle(ServerRequest& request, ResponseWriter& response) = 0;

  /// The body of an answer the server sends before a request is complete: 400 (unparseable head),
  /// 413 (body too large), 431 (head too large). `path` is the request path when known, so the
  /// answer can take the shape of the client's protocol.
  virtual PlainAnswer rejection(int status, std::string_view path, std::string_view message) = 0;
};

}  // namespace llmux::http

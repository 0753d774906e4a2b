#include "proxy/error_reply.h"

#include "http/response_writer.h"
#include "protocol/error_shapes.h"

namespace llmux::proxy {

net::Task<void> replyError(RequestContext& ctx, int status, std::string message,
                           HeaderList extra) {
  std::string body = protocol::renderErrorBody(ctx.protocol, status, message, ctx.request_id);
  ctx.record.status = status;
  ctx.record.error = std::move(message);
  HeaderList headers = std::move(extra);
  headers.add("Content-Type", protocol::errorContentType());
  headers.add("X-Request-Id", ctx.request_id);
  co_await ctx.response->send(status, headers, body);
}

}  // namespace llmux::proxy

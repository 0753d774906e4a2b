#pragma once

#include <string>
#include <string_view>

#include "core/http_headers.h"
#include "net/asio_types.h"
#include "proxy/request_context.h"

namespace llmux::proxy {

/// Answers the client with an error in its protocol's shape (status, JSON body, X-Request-Id,
/// plus `extra` headers such as retry-after) and notes it in the request record.
/// `message` is taken by value: callers may pass a view of the record's own fields.
net::Task<void> replyError(RequestContext& ctx, int status, std::string message,
                           HeaderList extra = {});

}  // namespace llmux::proxy

#pragma once

#include <atomic>

#include "net/task.h"
#include "proxy/request_context.h"

namespace llmux::store {
class RequestLogReader;
}

namespace llmux::proxy {

class RequestTail;

/// GET /admin/requests/live: finished requests as Server-Sent Events (text/event-stream). First
/// the newest 50 finished ones the request log holds (`log`, when there is one), oldest first,
/// then each request as it finishes on this replica; every event is `event: request`, `id:` its
/// request id and `data:` its JSON as GET /admin/requests lists it. A comment (`: ping`) every
/// 15 s keeps proxies from closing an idle stream and tells a dead client apart. Ends when the
/// client leaves or the gateway drains.
net::Task<void> serveLiveRequests(RequestContext& ctx, RequestTail& tail,
                                  store::RequestLogReader* log, std::atomic<bool> const& draining);

}  // namespace llmux::proxy

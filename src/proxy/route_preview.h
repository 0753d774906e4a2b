#pragma once

#include <string>
#include <string_view>

#include "proxy/services.h"
#include "routing/catalog.h"

namespace llmux::proxy {

/// An answer of the admin API: status and JSON body.
struct AdminAnswer {
  int status = 200;
  std::string body;
};

/// POST /admin/route-preview: plans a request as the gateway would and shows the ordered
/// candidates with their scores and factor values, without calling any upstream or changing
/// any state. The body describes the request:
///   {"path": "/v1/chat/completions", "headers": {"X-Channel": "…"}, "body": {…} or "…",
///    "gateway_key": "<name>" (its strategy), "strategy": "fast" (overrides)}
/// Bad input → 400 with {"error": {"message", "type"}}.
AdminAnswer previewRoute(GatewayServices& services, routing::Catalog const& catalog,
                         std::string_view request_json);

}  // namespace llmux::proxy

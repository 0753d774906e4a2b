#include "proxy/route_request.h"

#include <mutex>
#include <set>

#include "http/server_request.h"
#include "protocol/request_needs.h"
#include "protocol/session_key.h"
#include "telemetry/log.h"

namespace llmux::proxy {

routing::RouteRequest routeRequestOf(routing::Catalog const& catalog, Protocol protocol,
                                     protocol::RequestProfile const& profile,
                                     HeaderList const& headers, std::string_view body,
                                     config::GatewayKey const* gateway_key) {
  routing::RouteRequest request;
  request.client_protocol = protocol;
  request.model = profile.model;
  if (gateway_key) request.strategy = gateway_key->strategy;
  request.session = protocol::sessionKeyOf(protocol, headers, body);
  request.pinned_channel = std::string(headers.get("x-channel"));
  auto const& settings = catalog.settings();
  if (!settings.fallbacks.empty() || !settings.model_groups.empty()) {
    // One scan of the body, only when a fallback may need the capability gate.
    protocol::RequestNeeds needs = protocol::needsOf(protocol, body);
    request.needs.tools = needs.tools;
    request.needs.vision = needs.vision;
    request.needs.prompt_tokens = needs.prompt_tokens;
  } else {
    // needsOf's size rule without its scan (base64 payloads are then counted too).
    request.needs.prompt_tokens = static_cast<std::int64_t>(body.size() / 4);
  }
  return request;
}

routing::RouteRequest routeRequestFor(RequestContext& ctx) {
  if (ctx.modality) {
    // Media (docs/media.md): only the channels enabling the modality; no session, no capability
    // needs, and no token estimate from an upload's size (an embeddings input is text, though).
    routing::RouteRequest request;
    request.client_protocol = ctx.protocol;
    request.model = ctx.profile.model;
    request.modality = ctx.modality;
    if (ctx.gateway_key) request.strategy = ctx.gateway_key->strategy;
    request.pinned_channel = std::string(ctx.request.headers.get("x-channel"));
    if (ctx.route.kind == protocol::RouteKind::Embeddings) {
      request.needs.prompt_tokens = static_cast<std::int64_t>(ctx.request.body.size() / 4);
    }
    ctx.prompt_tokens = request.needs.prompt_tokens;
    return request;
  }
  routing::RouteRequest request = routeRequestOf(*ctx.catalog, ctx.protocol, ctx.profile,
                                                 ctx.request.headers, ctx.request.body, ctx.gateway_key);
  ctx.session = request.session;
  ctx.prompt_tokens = request.needs.prompt_tokens;
  return request;
}

void warnUnknownCapabilities(routing::RoutePlan const& plan) {
  if (plan.unknown_capabilities.empty()) return;
  static std::mutex mutex;
  static std::set<std::string, std::less<>> warned;
  std::lock_guard lock(mutex);
  for (auto const& model : plan.unknown_capabilities) {
    if (warned.size() < 10'000 && warned.insert(model).second) {
      telemetry::logWarn("capability gate: model '{}' is not in the capability table; allowed as a "
                         "fallback unchecked (set capabilities: for it in its channel)",
                         model);
    }
  }
}

}  // namespace llmux::proxy

#pragma once

#include "proxy/request_context.h"
#include "routing/planner.h"

namespace llmux::proxy {

/// What the router needs to know about an inspected request: its model, the gateway key's
/// strategy, its session (also kept in `ctx.session`), an `X-Channel` pin and, when the catalog
/// has fallback chains, what the request needs of a fallback model (tools, images, prompt size).
/// Sets `ctx.session` and `ctx.prompt_tokens`.
routing::RouteRequest routeRequestFor(RequestContext& ctx);

/// The same from the parts of a request (the route preview has no live request).
routing::RouteRequest routeRequestOf(routing::Catalog const& catalog, Protocol protocol,
                                     protocol::RequestProfile const& profile,
                                     HeaderList const& headers, std::string_view body,
                                     config::GatewayKey const* gateway_key);

/// Logs, once per model for the process, a warning for each fallback model whose capabilities
/// the gate could not check (it was allowed).
void warnUnknownCapabilities(routing::RoutePlan const& plan);

}  // namespace llmux::proxy

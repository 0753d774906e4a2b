#include "proxy/route_preview.h"

#include <boost/json.hpp>

#include "protocol/inspect.h"
#include "protocol/routes.h"
#include "proxy/route_request.h"
#include "routing/breakers.h"
#include "routing/freezes.h"
#include "routing/planner.h"
#include "routing/rng.h"
#include "routing/router_state.h"

namespace llmux::proxy {
namespace json = boost::json;

namespace {

AdminAnswer badRequest(std::string message) {
  json::object error{{"message", std::move(message)}, {"type", "invalid_request_error"}};
  return {400, json::serialize(json::object{{"error", std::move(error)}})};
}

std::string_view statusName(routing::RouteStatus status) {
  switch (status) {
    case routing::RouteStatus::Ready: return "ready";
    case routing::RouteStatus::UnknownModel: return "unknown_model";
    case routing::RouteStatus::UnknownChannel: return "unknown_channel";
    case routing::RouteStatus::AllPaused: return "all_paused";
    case routing::RouteStatus::CapabilityVetoed: return "capability_vetoed";
  }
  return "unknown";
}

json::object factorsOf(routing::Factors const& f) {
  return {{"headroom", f.headroom}, {"failures", f.failures},   {"cooldown", f.cooldown},
          {"affinity", f.affinity}, {"billing", f.billing},     {"yield", f.yield},
          {"performance", f.performance}, {"latency", f.latency}};
}

}  // namespace

AdminAnswer previewRoute(GatewayServices& services, routing::Catalog const& catalog,
                         std::string_view request_json) {
  json::error_code ec;
  json::value parsed = json::parse(request_json, ec);
  if (ec || !parsed.is_object()) return badRequest("the body must be a JSON object");
  auto const& doc = parsed.as_object();

  auto const* path = doc.if_contains("path");
  if (!path || !path->is_string()) return badRequest("'path' must be a string, e.g. \"/v1/chat/completions\"");
  auto lookup = protocol::matchRoute("POST", path->as_string());
  if (lookup.match != protocol::RouteMatch::Found || !lookup.route.protocol) {
    return badRequest("'path' is not a model route of the gateway: " + std::string(path->as_string()));
  }

  HeaderList headers;
  if (auto const* given = doc.if_contains("headers")) {
    if (!given->is_object()) return badRequest("'headers' must be an object of strings");
    for (auto const& [name, value] : given->as_object()) {
      if (!value.is_string()) return badRequest("header '" + std::string(name) + "' must be a string");
      headers.add(name, value.as_string());
    }
  }

  std::string body;
  if (auto const* given = doc.if_contains("body")) {
    body = given->is_string() ? std::string(given->as_string()) : json::serialize(*given);
  } else {
    return badRequest("'body' is required: the client's request body");
  }
  auto profile = protocol::inspectRequest(lookup.route, body);
  if (!profile) return badRequest(profile.error().message);

  config::GatewayKey const* gateway_key = nullptr;
  if (auto const* name = doc.if_contains("gateway_key")) {
    if (!name->is_string()) return badRequest("'gateway_key' must be a gateway key's name");
    for (auto const& key : catalog.settings().gateway_keys) {
      if (key.name == name->as_string()) gateway_key = &key;
    }
    if (!gateway_key) return badRequest("no gateway key is named '" + std::string(name->as_string()) + "'");
  }
  routing::RouteRequest request =
      routeRequestOf(catalog, *lookup.route.protocol, *profile, headers, body, gateway_key);
  if (auto const* strategy = doc.if_contains("strategy")) {
    auto parsed_strategy = strategy->is_string() ? config::parseStrategy(strategy->as_string()) : std::nullopt;
    if (!parsed_strategy) return badRequest("unknown 'strategy'");
    request.strategy = *parsed_strategy;
  }

  // A fixed seed: a preview shows one possible order of the random strategies.
  routing::Rng rng(0x5eed);
  routing::RoutePlan plan = routing::planRoute(catalog, services.router_state, services.key_health,
                                               services.freezes, request, rng);  // no rotation: nothing moves
  json::array candidates;
  auto const& channels = catalog.settings().channels;
  bool scoring = request.strategy == config::Strategy::Intelligent || request.strategy == config::Strategy::Fast;
  for (auto const& c : plan.candidates) {
    auto const& channel = channels[c.channel];
    Protocol upstream = channel.rows[c.row].protocol;
    json::object entry{{"channel", channel.name},
                       {"key", channel.keys[c.key].label},
                       {"model", c.model},
                       {"upstream_model", c.upstream_model},
                       {"protocol", protocolName(upstream)},
                       {"translated", upstream != *lookup.route.protocol},
                       {"depth", c.depth}};
    // An open breaker skips the candidate when the request is served (no attempt, no cost).
    entry["breaker_refuses"] = services.breakers.refusing(channel.name, c.upstream_model, channel.breaker,
                                                          services.clock.now());
    if (scoring) {
      entry["score"] = c.factors.score;
      entry["factors"] = factorsOf(c.factors);
    }
    candidates.push_back(std::move(entry));
  }
  json::array skipped;
  for (auto const& note : plan.gate_skipped) skipped.push_back(json::string(note));
  json::object answer{{"model", profile->model},
                      {"strategy", config::strategyName(request.strategy)},
                      {"status", statusName(plan.status)},
                      {"session", request.session.empty() ? json::value(nullptr) : json::value(request.session)},
                      {"candidates", std::move(candidates)},
                      {"gate_skipped", std::move(skipped)}};
  return {200, json::serialize(answer)};
}

}  // namespace llmux::proxy

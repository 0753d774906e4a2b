#include "proxy/race_arming.h"

#include "http/server_request.h"
#include "protocol/request_needs.h"
#include "proxy/attempt_clock.h"
#include "racing/racing_state.h"

namespace llmux::proxy {

std::optional<RaceArming> armRace(racing::RacingState& racing, RequestContext const& ctx) {
  auto const& settings = ctx.catalog->settings();
  if (!racing.enabled(settings.racing)) return std::nullopt;
  switch (ctx.route.kind) {
    case protocol::RouteKind::ChatCompletions:
    case protocol::RouteKind::Responses:
    case protocol::RouteKind::Messages:
    case protocol::RouteKind::GeminiGenerate: break;
    default: return std::nullopt;
  }
  // A pinned channel is the user's choice; a shadow would go elsewhere.
  if (!ctx.request.headers.get("x-channel").empty()) return std::nullopt;
  if (ctx.catalog->splitChannelModel(ctx.profile.model)) return std::nullopt;
  protocol::RequestNeeds const needs = protocol::needsOf(ctx.protocol, ctx.request.body);
  if (needs.vision) return std::nullopt;  // a shadow would upload the images again

  RaceArming arming;
  std::optional<std::string_view> header;
  if (auto value = ctx.request.headers.get("x-cost-preference"); !value.empty()) header = value;
  arming.preference = racing::effectivePreference(
      header, ctx.gateway_key ? ctx.gateway_key->cost_preference : std::nullopt,
      racing.preference(settings.racing));
  arming.policy = racing::policyFor(arming.preference);
  arming.tools = needs.tools;
  if (needs.tools) {
    arming.task_class = "tools";
  } else if (forwarding::reasoningTierOf(ctx.profile.reasoning) != protocol::ReasoningTier::None) {
    arming.task_class = "reasoning";
  } else {
    arming.task_class = "chat";
  }
  racing.counters.armed.fetch_add(1, std::memory_order_relaxed);
  racing.budget.noteRequest(MonoClock::now());
  return arming;
}

}  // namespace llmux::proxy

#include "proxy/racing_admin.h"

#include <boost/json.hpp>

#include "proxy/admin_handler.h"
#include "proxy/runtime_admin.h"
#include "racing/racing_state.h"

namespace llmux::proxy {
namespace json = boost::json;

namespace {

std::string_view sourceOf(bool overridden) {
  return overridden ? "admin" : "config";
}

json::object countersJson(racing::RaceCounters const& c) {
  auto n = [](std::atomic<std::uint64_t> const& counter) {
    return counter.load(std::memory_order_relaxed);
  };
  return {{"armed", n(c.armed)},
          {"triggered", n(c.triggered)},
          {"won_by_shadow", n(c.won_by_shadow)},
          {"won_by_primary", n(c.won_by_primary)},
          {"blocked_by_budget", n(c.blocked_by_budget)},
          {"blocked_by_cap", n(c.blocked_by_cap)},
          {"no_candidate", n(c.no_candidate)},
          {"shadows_sent", n(c.shadows_sent)},
          {"loser_tokens", n(c.loser_tokens)}};
}

json::array thresholdsJson(racing::ThresholdRegistry& thresholds, MonoTime now) {
  json::array out;
  for (int f = 0; f < racing::kModelFamilies; ++f) {
    for (int s = 0; s < racing::kStages; ++s) {
      auto family = static_cast<racing::ModelFamily>(f);
      auto stage = static_cast<racing::Stage>(s);
      json::value p90 = nullptr;
      if (auto ms = thresholds.p90(family, stage, now)) p90 = ms->count();
      out.push_back(json::object{{"family", racing::familyName(family)},
                                 {"stage", racing::stageName(stage)},
                                 {"samples", thresholds.sampleCount(family, stage, now)},
                                 {"p90_ms", std::move(p90)}});
    }
  }
  return out;
}

Error badMember(std::string message) {
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

}  // namespace

std::string racingJson(racing::RacingState& state, config::RacingSettings const& settings,
                       MonoTime now) {
  auto usage = state.budget.usage(now);
  json::object out{
      {"enabled", state.enabled(settings)},
      {"enabled_source", sourceOf(state.enabledOverride().has_value())},
      {"cost_preference", config::costPreferenceName(state.preference(settings))},
      {"cost_preference_source", sourceOf(state.preferenceOverride().has_value())},
      {"max_shadows_in_flight", settings.max_shadows_in_flight},
      {"hedge_budget", settings.hedge_budget},
      {"budget", json::object{{"requests_last_minute", usage.requests},
                              {"shadows_last_minute", usage.shadows}}},
      {"shadows_in_flight", state.slots.inFlight()},
      {"counters", countersJson(state.counters)},
      {"thresholds", thresholdsJson(state.thresholds, now)},
  };
  return json::serialize(out);
}

Result<RacingChange> parseRacingChange(std::string_view body) {
  json::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) {
    return badMember(R"(the body must be a JSON object, e.g. {"enabled": true})");
  }
  RacingChange change;
  for (auto const& [name, value] : parsed.as_object()) {
    if (name == "enabled") {
      if (!value.is_null() && !value.is_bool()) {
        return badMember("'enabled' must be true, false or null (the configuration's)");
      }
      change.enabled = value.is_bool() ? std::optional<bool>(value.as_bool()) : std::nullopt;
    } else if (name == "cost_preference") {
      std::optional<config::CostPreference> preference;
      if (value.is_string()) preference = config::parseCostPreference(value.as_string());
      if (!value.is_null() && !preference) {
        return badMember("'cost_preference' must be \"quality_first\", \"balanced\", "
                         "\"cost_first\" or null (the configuration's)");
      }
      change.cost_preference = preference;
    } else {
      // A typo must not pass for a change that was made.
      return badMember("unknown member '" + std::string(name) +
                       "': only 'enabled' and 'cost_preference' can be set");
    }
  }
  return change;
}

void applyRacingChange(racing::RacingState& state, RacingChange const& change) {
  state.changeSwitches(change.enabled, change.cost_preference);
}

std::string latencyPenaltiesJson(std::vector<racing::LatencyMemory::Entry> const& entries,
                                 config::Settings const& settings) {
  json::array list;
  for (auto const& entry : entries) {
    list.push_back(json::object{{"id", entry.id},
                                {"key", keyNameOf(settings, entry.combination.key_id).label},
                                {"model", entry.combination.upstream_model},
                                {"task_class", entry.combination.task_class},
                                {"slow_streak", entry.slow_streak},
                                {"degraded", entry.degraded},
                                {"updated", rfc3339Utc(entry.updated_at)}});
  }
  return json::serialize(json::object{{"latency_penalties", std::move(list)}});
}

}  // namespace llmux::proxy

#include "proxy/alert_observation.h"

#include <algorithm>
#include <set>

#include "payloads/payload_writer.h"
#include "routing/breakers.h"
#include "routing/catalog.h"
#include "routing/freezes.h"
#include "routing/key_health.h"
#include "shared_state/shared_limits.h"
#include "store/request_log.h"
#include "telemetry/access_log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {

alerts::Observation observeGateway(GatewayServices& services) {
  using telemetry::MetricId;
  alerts::Observation out;
  auto& registry = services.metrics_registry;
  alerts::Counts& counts = out.counts;

  auto& outcomes = registry.counter(MetricId::ClientRequestsTotal);
  counts.success = outcomes.labels({"success"}).value();
  counts.failed = outcomes.labels({"failed"}).value();
  for (auto const& entry : registry.counter(MetricId::RequestsTotal).snapshot()) {
    auto const& values = *entry.values;                    // route, protocol, status, channel
    if (values.size() < 3 || values[1].empty()) continue;  // model routes only
    counts.answers += entry.child->value();
    if (values[2] == "429") counts.answers_429 += entry.child->value();
  }
  auto& first_token = registry.histogram(MetricId::ClientFirstTokenSeconds).get();
  counts.first_token.resize(first_token.bounds().size() + 1);
  for (std::size_t i = 0; i < counts.first_token.size(); ++i) {
    counts.first_token[i] = first_token.bucketCount(i);
  }
  counts.records_lost = services.access_log.droppedLines();
  // Payload bodies ClickHouse did not take are records lost too (a side write, but a loss).
  if (services.payloads) counts.records_lost += services.payloads->stats().dropped;
  if (services.request_log) {
    store::RequestLogStats const log = services.request_log->stats();
    counts.records_lost += log.dropped;
    out.database_configured = services.config.current()->settings().database.has_value();
    out.database_active = log.connected;
  }

  std::set<std::string, std::less<>> not_closed;
  for (auto const& view : services.breakers.list(services.clock.now())) {
    if (view.failure_state != routing::BreakerState::Closed ||
        view.storm_state != routing::BreakerState::Closed) {
      not_closed.insert(view.channel + "/" + view.model);
    }
  }
  out.breakers_not_closed.assign(not_closed.begin(), not_closed.end());

  auto catalog = services.config.current();
  auto const& channels = catalog->settings().channels;
  for (auto const& model : catalog->modelNames()) {
    routing::ModelPlan const* plan = catalog->modelPlan(model);
    if (plan == nullptr || plan->channels.empty()) continue;  // a group: its members are judged
    // Down: no candidate left that a request could use — each one's breaker is not closed, or
    // every key of its channel is frozen or paused for that model.
    auto usable = [&](auto const& candidate) {
      auto const& channel = channels[candidate.channel];
      std::string const& upstream = *candidate.upstream;
      if (not_closed.contains(channel.name + "/" + upstream)) return false;
      return std::any_of(channel.keys.begin(), channel.keys.end(), [&](auto const& key) {
        return !services.freezes.frozen(channel.name, key.id, upstream) &&
               !services.key_health.pausedUntil(key.id, upstream);
      });
    };
    if (std::none_of(plan->channels.begin(), plan->channels.end(), usable)) {
      out.models_down.push_back(model);
    }
  }

  // Budgets: this process's windows, or Redis's (read by the loop, which may wait for it).
  WallTime const wall = services.clock.wallNow();
  bool const in_redis = services.limits.sharesHedgeBudget();
  std::vector<alerts::BudgetUse> budgets;
  for (auto const& key : catalog->settings().gateway_keys) {
    auto const& l = key.limits;
    routing::ClientSpending spent;
    if (!in_redis) spent = services.limits.localSpending(key.name, wall);
    auto add = [&](std::string_view budget, double limit, double used) {
      if (limit > 0) budgets.push_back({key.name, std::string(budget), used, limit});
    };
    add("daily_tokens", static_cast<double>(l.daily_tokens),
        static_cast<double>(spent.tokens_today));
    add("monthly_tokens", static_cast<double>(l.monthly_tokens),
        static_cast<double>(spent.tokens_this_month));
    add("daily_cost_usd", l.daily_cost_usd, spent.cost_today);
    add("monthly_cost_usd", l.monthly_cost_usd, spent.cost_this_month);
  }
  if (in_redis) {
    out.budgets_in_redis = std::move(budgets);
  } else {
    out.budgets = std::move(budgets);
  }

  auto limits = services.limits.stats();
  out.redis_configured = services.limits.sharesHedgeBudget();  // Redis configured at start
  out.redis_active = limits.redis_active;
  return out;
}

}  // namespace llmux::proxy

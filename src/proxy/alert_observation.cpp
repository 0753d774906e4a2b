#include "proxy/alert_observation.h"

#include <set>

#include "routing/breakers.h"
#include "routing/catalog.h"
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
    auto const& values = *entry.values;  // route, protocol, status, channel
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
  if (services.request_log) counts.records_lost += services.request_log->stats().dropped;

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
    bool down = true;
    for (auto const& candidate : plan->channels) {
      std::string pair = channels[candidate.channel].name + "/" + *candidate.upstream;
      if (!not_closed.contains(pair)) {
        down = false;
        break;
      }
    }
    if (down) out.models_down.push_back(model);
  }

  auto limits = services.limits.stats();
  out.redis_configured = services.limits.sharesHedgeBudget();  // Redis configured at start
  out.redis_active = limits.redis_active;
  return out;
}

}  // namespace llmux::proxy

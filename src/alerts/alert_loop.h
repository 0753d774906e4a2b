#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "alerts/evaluator.h"
#include "config/settings.h"
#include "core/clock.h"

namespace llmux::telemetry {
class MetricsRegistry;
}

namespace llmux::alerts {

/// The SLO targets as gauges (llmux_slo_target); at start and after each reload.
void publishSloTargets(telemetry::MetricsRegistry& registry, config::SloSettings const& slo);

/// The built-in alert loop (docs/operations.md, SLOs and alerts), on a thread and an io_context
/// of its own: nothing of it runs on a request's thread. Every `interval` it reads an
/// Observation, feeds the Evaluator, publishes the burn rate and the active alerts as gauges,
/// and delivers the messages: to every webhook (one POST each, 10 s at most), or as an error
/// log line when there is none.
///
/// Several replicas: with `redis`, the replicas share a lease (`<prefix>alerts:lease`, renewed
/// every interval, lasting two intervals and a second); only its holder delivers, so one alert
/// is sent, not one per replica. The others evaluate all the same (their gauges stay right, and
/// a new holder knows what was already told). A replica that cannot reach Redis delivers on its
/// own: a duplicate is better than a silent outage (redis_fallback is one of the alerts).
/// Without Redis but with `database:`, a PostgreSQL advisory lock is the lease instead
/// (store/postgres_lease.h), with the same fallback.
class AlertLoop {
 public:
  /// Called on the loop's thread once per evaluation; it must be thread-safe with the request
  /// path (it reads counters, breakers, stats).
  using Observe = std::function<Observation()>;

  struct Options {
    config::SloSettings slo;
    config::AlertSettings alerts;
    std::optional<config::RedisSettings> redis;  ///< the lease; none: this replica alone
    std::string replica;                         ///< this replica's id in the lease
    std::string instance;                        ///< names the sender in messages (host name)
    /// Without `redis`: whether this replica holds the database's lease (nullopt: cannot tell).
    /// Called on the loop's thread; it may block briefly. None: this replica alone.
    std::function<std::optional<bool>()> database_lease;
  };

  AlertLoop(TimeSource const& clock, telemetry::MetricsRegistry& registry, Observe observe,
            Options options);
  ~AlertLoop();  ///< stops it
  AlertLoop(AlertLoop const&) = delete;
  AlertLoop& operator=(AlertLoop const&) = delete;

  /// Starts the thread; the first evaluation is one interval later. Throws at start-up when the
  /// TLS context cannot be made.
  void start();
  /// A reload's targets, thresholds and webhooks (the lease's Redis stays until a restart).
  void reconfigure(config::SloSettings slo, config::AlertSettings alerts);
  /// Stops the loop and joins its thread (a delivery under way is abandoned).
  void stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace llmux::alerts

#pragma once

#include <atomic>
#include <string>

#include "core/clock.h"
#include "proxy/auth_failures.h"
#include "proxy/config_holder.h"
#include "proxy/listeners.h"
#include "routing/candidates.h"
#include "routing/key_health.h"
#include "routing/video_jobs.h"

namespace llmux::routing {
class RouterState;
class FreezeTable;
class BreakerBoard;
}  // namespace llmux::routing

namespace llmux::shared_state {
class SharedLimits;
}

namespace llmux::telemetry {
class MetricsRegistry;
class RequestMetrics;
class AccessLog;
}  // namespace llmux::telemetry

namespace llmux::store {
class RequestLogSink;
class RequestLogReader;
}
namespace llmux::payloads {
class PayloadWriter;
}
namespace llmux::racing {
class RacingState;
}

namespace llmux::proxy {

struct InspectionShared;
class ConsoleSessions;
class ManagedConfig;
class RequestTail;
class ProbeBook;

/// The long-lived services every request uses, shared by all worker threads (each is
/// thread-safe). Built by the composition root in app/.
struct GatewayServices {
  ConfigHolder& config;
  routing::KeyHealth& key_health;
  routing::Rotation& rotation;
  routing::RouterState& router_state;  ///< what the router learned from every attempt
  routing::FreezeTable& freezes;       ///< frozen keys and channels (persisted)
  routing::BreakerBoard& breakers;     ///< failure and 429-storm breakers per (channel, model)
  shared_state::SharedLimits& limits;  ///< token buckets and gateway-key windows (local or Redis)
  telemetry::MetricsRegistry& metrics_registry;
  telemetry::RequestMetrics& metrics;
  telemetry::AccessLog& access_log;
  store::RequestLogSink* request_log;  ///< nullptr: no persistent request log
  TimeSource const& clock;
  std::atomic<bool> const& draining;   ///< /readyz answers 503 while set
  AuthFailureLimiter& auth_failures;   ///< failed admin / metrics token attempts per address
  ListenerPlan listeners;              ///< which address serves /admin/* and /metrics
  racing::RacingState& racing;         ///< thresholds, latency learning, hedge limits (docs/racing.md)
  routing::VideoJobTable& video_jobs;  ///< the channel and key of each video job (persisted)
  /// Model-list refreshes and balance probes (docs/operations.md); nullptr: none.
  InspectionShared* inspection = nullptr;
  payloads::PayloadWriter* payloads = nullptr;  ///< bodies to ClickHouse; nullptr: not captured
  ProbeBook* probes = nullptr;         ///< the health probes' results and caps (nullptr: none)
  /// The configuration's objects for the admin API (nullptr: the embedded default, no file).
  ManagedConfig* managed = nullptr;
  /// The request log read back for the admin API (the configured store's); nullptr: none.
  store::RequestLogReader* request_log_reader = nullptr;
  /// The web console's sessions (nullptr: the console cannot sign in).
  ConsoleSessions* console_sessions = nullptr;
  /// Finished requests for the admin API's live tail (nullptr: none).
  RequestTail* request_tail = nullptr;
  /// Where the console's files are read from instead of the binary (LLMUX_CONSOLE_DIR; "": the
  /// built-in ones).
  std::string console_dir;
};

}  // namespace llmux::proxy

#pragma once

// The health probes' shared books (docs/operations.md#health-probes): the latest result per
// (channel, key, model, scenario), the admission of a probe under the global caps, and what
// every finished probe leaves behind (metrics, a log line). Thread-safe; no I/O.

#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "core/clock.h"

namespace llmux::telemetry {
class MetricsRegistry;
}

namespace llmux::proxy {

/// What one probe found, and what a pass lifted.
struct ProbeResult {
  std::string channel;
  std::string key_label;  ///< never the secret
  std::string model;      ///< as clients name it
  std::string scenario;
  bool pass = false;
  std::string reason;  ///< why it failed ("" on a pass): status and a short message, no secrets
  int status = 0;      ///< the upstream's status, 0 when no answer came
  double latency_ms = 0;
  WallTime at{};
  bool scheduled = false;  ///< run by the scheduler, not asked through the admin API
  // What a pass lifted (nothing on a failure).
  bool pause_cleared = false;                ///< the key (or the key for this model) was paused
  std::vector<std::string> freezes_lifted;   ///< ids of the freezes lifted
  std::size_t freezes_kept = 0;              ///< `forever` freezes left for an operator
  bool breaker_reset = false;                ///< the (channel, model) breakers were reset to closed
};

/// Why a probe may not start now.
enum class ProbeAdmission {
  Admitted,
  Busy,        ///< `max_concurrent` probes are running
  HourlyCap,   ///< `max_per_hour` probes started within the last hour
};

class ProbeBook {
 public:
  ProbeBook(telemetry::MetricsRegistry& metrics, TimeSource const& clock)
      : metrics_(metrics), clock_(clock) {}

  /// Takes a running slot when both caps allow (the caller then calls `finish`).
  ProbeAdmission tryStart(unsigned max_concurrent, unsigned max_per_hour);
  /// Gives back the slot of an admitted probe.
  void finish();
  /// Probes running now.
  unsigned running() const;

  /// Keeps `result` as the latest of its (channel, key, model, scenario), counts it, sets the
  /// last-result gauge and logs one line.
  void record(ProbeResult const& result);
  /// The latest results, sorted by channel, key, model and scenario.
  std::vector<ProbeResult> latest() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string, std::string>;
  telemetry::MetricsRegistry& metrics_;
  TimeSource const& clock_;
  mutable std::mutex mutex_;
  unsigned running_ = 0;
  std::deque<MonoTime> started_;  ///< start times within the last hour, oldest first
  std::map<Key, ProbeResult> latest_;
};

/// `{"probes":[...]}` of GET /admin/probes: each result as probeResultJson.
std::string probeResultsJson(std::vector<ProbeResult> const& results);
/// One result: {"channel","key","model","scenario","pass","reason","status","latency_ms","at",
/// "scheduled","lifted":{"pause","freezes","freezes_kept","breakers"}}.
std::string probeResultJson(ProbeResult const& result);

}  // namespace llmux::proxy

#include "proxy/exit_failures.h"

#include <mutex>
#include <set>
#include <string>

#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {

void noteExitFailure(telemetry::MetricsRegistry& metrics, Egress const& via, Error const& error) {
  bool const rejected = isProxyAuthRejection(error);
  metrics.counter(telemetry::MetricId::ProxyFailuresTotal)
      .labels({via.name, rejected ? "auth_rejected" : "connect"})
      .inc();
  if (!rejected) return;
  static std::mutex mutex;
  static std::set<std::string, std::less<>> warned;  // identities: a changed login warns again
  std::lock_guard lock(mutex);
  if (warned.size() < 10'000 && warned.insert(via.identity).second) {
    telemetry::logError("egress: {} (attempts through it fail over to other channels until the "
                        "configuration is fixed; logged once)",
                        error.message);
  }
}

Error proxyAuthRejectedAnswer(Egress const& via) {
  return makeError(ErrorKind::Connect,
                   "proxy " + via.name + " refused the gateway's credentials (407 Proxy "
                   "Authentication Required): check its username and password",
                   kProxyAuthRejected);
}

}  // namespace llmux::proxy

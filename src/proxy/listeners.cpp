#include "proxy/listeners.h"

namespace llmux::proxy {

bool listenerServes(Listener listener, protocol::RouteKind kind, ListenerPlan const& plan) {
  using protocol::RouteKind;
  bool admin_here = listener == Listener::Admin || listener == Listener::AdminAndMetrics;
  bool metrics_here = listener == Listener::Metrics || listener == Listener::AdminAndMetrics;
  if (kind == RouteKind::Healthz || kind == RouteKind::Readyz) return true;
  if (kind == RouteKind::Metrics) return plan.metrics_separate ? metrics_here : listener == Listener::Client;
  // The console is served where the admin API is: its pages call it on their own origin.
  if (protocol::isAdminRoute(kind) || protocol::isConsoleRoute(kind)) {
    return plan.admin_separate ? admin_here : listener == Listener::Client;
  }
  return listener == Listener::Client;
}

}  // namespace llmux::proxy

#pragma once

#include "protocol/routes.h"

namespace llmux::proxy {

/// The addresses llmux listens on, as tags of their HttpServer (ServerRequest::listener).
enum class Listener : unsigned {
  Client = 0,           ///< `listen`: the API clients use
  Admin = 1,            ///< `admin_listen`
  Metrics = 2,          ///< `metrics_listen`
  AdminAndMetrics = 3,  ///< `admin_listen` and `metrics_listen` on one address
};

/// Where the operator's routes are served: on their own address when one is configured (then
/// never on the client port), else on the client port.
struct ListenerPlan {
  bool admin_separate = false;
  bool metrics_separate = false;
};

/// Whether `listener` serves `kind`: health probes everywhere; /metrics and /admin/* where the
/// plan puts them; everything else on the client port only.
bool listenerServes(Listener listener, protocol::RouteKind kind, ListenerPlan const& plan);

}  // namespace llmux::proxy

#pragma once

// What stands between a candidate and its attempt (internal to the proxy module): the breaker
// signal an outcome gives, the token buckets an attempt takes, and the refusals a request met.

#include <optional>
#include <string>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "routing/breakers.h"
#include "routing/outcome.h"
#include "routing/rate_limits.h"
#include "shared_state/shared_limits.h"

namespace llmux::proxy {

/// What the (channel, upstream model) breakers learn from an outcome: successes close them, 429s
/// feed the storm window (and are neutral for the failure breaker), the upstream's breakage
/// counts (outcome.h's `trips_breaker`), everything else is ignored.
routing::AttemptSignal breakerSignal(routing::Outcome outcome);

/// The ids of an upstream bucket pair: a key's (`limits:`) and a channel model's (`model_limits:`).
std::string keyBucketId(config::ChannelKey const& key);
std::string modelBucketId(std::string_view channel, std::string_view upstream_model);

/// The buckets one attempt takes: its key's (`rpm`/`tpm` of the key) and its upstream model's
/// on the channel (`model_limits`). Empty when neither is limited.
std::vector<shared_state::OwnedBucketDemand> bucketDemandsFor(config::Channel const& channel,
                                                              config::ChannelKey const& key,
                                                              std::string_view upstream_model);

/// The candidates a request skipped because their breaker refused: for the 503 when nothing
/// else was tried.
struct BreakerRefusals {
  std::vector<std::string> held;       ///< "channel (breaker_open)", first few
  std::size_t count = 0;
  std::optional<MonoTime> retry_at;   ///< the earliest probe

  void note(std::string_view channel, routing::BreakerDecision const& decision);
  bool any() const { return count > 0; }
  std::string describe() const;
};

}  // namespace llmux::proxy

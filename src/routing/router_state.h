#pragma once

// Contract for the router's learned state (implementation: router_state.cpp). The planner reads
// it, the forwarder reports every attempt to it.

#include <cstdint>
#include <optional>
#include <string_view>

#include "config/settings.h"
#include "core/clock.h"
#include "core/http_headers.h"
#include "routing/outcome.h"

namespace llmux::routing {

/// One finished upstream attempt, as the forwarder reports it.
struct AttemptReport {
  std::string_view channel;
  std::string_view key_id;          ///< ChannelKey::id
  std::string_view upstream_model;
  std::string_view session;         ///< "" when the request has no session
  Outcome outcome = Outcome::Success;
  std::optional<Millis> first_token;  ///< response head (non-stream) or first content (stream)
  std::int64_t tokens = 0;            ///< total tokens the answer used (0 when unknown)
  HeaderList const* headers = nullptr;  ///< the upstream's response head (rate-limit headers)
};

}  // namespace llmux::routing

#pragma once

// Which candidates of a plan may run as shadows of its primary (docs/racing.md, "Shadows").
// Pure: the caller describes each candidate, with its own checks (pauses, freezes, breakers,
// buckets, latency learning) already made.

#include <cstddef>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "racing/policy.h"

namespace llmux::racing {

/// One candidate of the plan, in the router's order.
struct ShadowCandidate {
  std::string_view channel;
  /// The channel key's id, `<channel>/<hash of the secret>`: the hash names the account, so one
  /// secret configured in two channels is the same key.
  std::string_view key_id;
  std::string_view upstream_model;
  bool racing_enabled = true;  ///< the channel's `racing.enabled`, else the global switch
  /// Not paused, frozen, refused by its breaker or short of bucket tokens (try-acquire only).
  bool available = true;
  bool slow = false;         ///< degraded by latency learning
  bool fails_tools = false;  ///< known to fail at tool calls
  /// USD per million input + output tokens (`prices:`), when priced.
  std::optional<double> price;
};

struct ShadowChoice {
  std::vector<std::size_t> shadows;  ///< indexes into the candidates, in the router's order
  /// Why there are none, for the log and the metrics ("" when there are shadows).
  std::string_view none_because;
};

/// Up to `policy.max_shadows` shadows for the candidate at `primary`, in the router's order,
/// excluding: the primary's channel; its key (in any channel); candidates not available, slow,
/// switched off for racing, or (for a request with tools) known to fail at tools; with
/// `cheaper_shadows_only`, anything not priced at most half the primary's price (an unpriced
/// primary: no race). Each (channel, key, upstream model) once, and every shadow on a key of its
/// own.
ShadowChoice chooseShadows(std::span<ShadowCandidate const> candidates, std::size_t primary,
                           RacePolicy const& policy, bool has_tools);

/// The account part of a key id (`<channel>/<hash>` -> `<hash>`).
std::string_view keyAccount(std::string_view key_id);

}  // namespace llmux::racing

#pragma once

// The router's planner (implementation: planner.cpp). Pure: no I/O; state, clock and randomness
// are passed in.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "core/wire_protocol.h"
#include "routing/candidates.h"
#include "routing/catalog.h"
#include "routing/capabilities.h"

namespace llmux::routing {

class RouterState;
class FreezeTable;
class KeyHealth;
class Rng;

/// What the planner needs to know about a request.
struct RouteRequest {
  Protocol client_protocol = Protocol::OpenAiChat;
  std::string model;                  ///< as the client named it (a model, a group, "channel/model")
  config::Strategy strategy = config::Strategy::Intelligent;
  std::string session;                ///< "" when the request has no session
  std::string pinned_channel;         ///< X-Channel: only this channel ("" = any)
  RequestNeeds needs;                 ///< for the billing factor and the capability gate
  /// A media request (docs/media.md): only channels whose `media:` enables it, spoken to in their
  /// media row as they are (passthrough).
  std::optional<config::Modality> modality;
};

/// The factor values behind a score (intelligent / fast); 1 is neutral. `weight` is the base the
/// factors multiply (channel weight × key weight); score = weight × every factor.
struct Factors {
  double headroom = 1, failures = 1, cooldown = 1, affinity = 1, billing = 1, yield = 1,
         performance = 1, latency = 1;
  double weight = 1;
  double score = 0;
};

/// "score=0.512 weight=1 headroom=1 failures=0.8 ..." (route preview, debug logs).
std::string formatFactors(Factors const& factors);

/// A model name the planner hands out without copying it: a view of the string the Catalog's
/// Settings own. It is valid as long as that Settings lives, that is while the request holds its
/// shared_ptr<const Catalog> (it always does, for as long as it uses its plan). Converts to
/// std::string (a copy) where an API takes one.
struct ModelName : std::string_view {
  ModelName() = default;
  explicit ModelName(std::string const& owned) : std::string_view(owned) {}
  operator std::string() const { return std::string(*this); }
};

/// One candidate in the order it will be tried. The names view the Catalog's Settings (see
/// ModelName): keep the Catalog alive while using them.
struct PlannedCandidate : Candidate {
  ModelName model;           ///< the client-side model name of this hop (a fallback's name)
  ModelName upstream_model;  ///< the name sent upstream
  int depth = 0;               ///< 0: the requested model; n: the n-th fallback hop
  bool passthrough = false;    ///< the row speaks the client's protocol (no translation)
  Factors factors;             ///< filled for every strategy; orders intelligent and fast
};

enum class RouteStatus {
  Ready,          ///< `candidates` is not empty
  UnknownModel,   ///< nothing serves the model
  UnknownChannel, ///< X-Channel names no enabled channel serving the model
  AllPaused,      ///< every candidate is paused, frozen or exhausted (`resume_at` when known)
  /// Every candidate that serves the chain was ruled out by the capability gate (the model asked
  /// for had none: a group's disabled first member, an X-Channel pin): `gate_skipped` says why.
  CapabilityVetoed,
};

struct RoutePlan {
  RouteStatus status = RouteStatus::UnknownModel;
  std::vector<PlannedCandidate> candidates;
  std::optional<MonoTime> resume_at;
  /// Fallback hops the capability gate skipped ("claude-x (channel): no tools", "... context
  /// window of 8000 tokens < a prompt of about 12000") and models whose needed capabilities are
  /// unknown (the caller logs a warning once per model).
  std::vector<std::string> gate_skipped;
  std::vector<std::string> unknown_capabilities;
};

/// The ordered candidates of a request. Expands the model (a `channel/model` name, a model
/// group's members, `fallbacks:` chains, each model once), honours the X-Channel pin, leaves out
/// disabled keys and keys paused by KeyHealth, frozen by FreezeTable or without headroom
/// (collecting when they come back), gates fallback hops by capability, orders each hop's
/// candidates by the request's strategy (hops stay in order) and never lists a (channel, key,
/// upstream model) twice. Reads RouterState through one snapshot. `rotation` holds sequential's
/// round-robin counters (without it, sequential keeps configuration order among equals).
RoutePlan planRoute(Catalog const& catalog, RouterState const& state, KeyHealth const& health,
                    FreezeTable const& freezes, RouteRequest const& request, Rng& rng,
                    Rotation* rotation = nullptr);

}  // namespace llmux::routing

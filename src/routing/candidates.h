#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"
#include "core/wire_protocol.h"
#include "routing/catalog.h"
#include "routing/key_health.h"

namespace llmux::routing {

/// One way to serve a request: a channel, the protocol row to speak to it, and one of its keys.
struct Candidate {
  std::size_t channel = 0;  ///< index into Settings::channels
  std::size_t row = 0;      ///< index into Channel::rows
  std::size_t key = 0;      ///< index into Channel::keys
};

/// Round-robin counters that survive reloads (keyed by names). Thread-safe.
class Rotation {
 public:
  /// The counter's current value, then increments it.
  std::uint64_t next(std::string const& counter);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::uint64_t> counters_;
};

enum class PlanStatus {
  Ready,         ///< `candidates` is not empty
  UnknownModel,  ///< no enabled channel serves the model
  AllPaused,     ///< every key that could serve it is paused (`resume_at`)
};

struct Plan {
  PlanStatus status = PlanStatus::UnknownModel;
  std::vector<Candidate> candidates;
  std::optional<MonoTime> resume_at;  ///< AllPaused: when the first key comes back
};

/// The ordered candidates for a request: the channels serving the model, highest priority first;
/// among equal priorities, channels that speak the client's protocol (byte passthrough) before
/// those needing translation, and within each of those a weighted rotation picks who leads (a
/// channel of weight 3 leads three times as often as one of weight 1). A channel is spoken to in
/// the row Channel::rowIndexFor picks: its client preset's protocol when one applies to the
/// model, else the client's protocol when it has that row, else its first row. Each channel's keys
/// rotate; keys paused by KeyHealth are left out.
Plan planCandidates(Catalog const& catalog, Protocol client_protocol, std::string_view model,
                    KeyHealth const& health, Rotation& rotation);

}  // namespace llmux::routing

#pragma once

// Helpers of the resilience scenarios (circuit breakers, the 429-storm breaker, first-token
// timeouts, gateway-key limits): the admin view of the breakers, paced concurrent load, and a
// replay of the storm breaker's rule over a mock journal.
#include <boost/json.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/clock.h"
#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/scenarios/routing_support.h"

namespace llmux::e2e::resilience {

/// The storm breaker's settings as docs/resilience.md gives them (and the scenarios configure):
/// a 10 s window, open when more than 15 % of more than 20 answers are 429, for 3 s.
struct StormRule {
  double window_ms = 10'000;
  double ratio = 0.15;
  std::size_t min_samples = 20;
  double open_ms = 3'000;
  /// Leeway for the two clocks and the loopback hops: a request already on its way when the
  /// breaker opened, a probe a moment early. Far below open_ms, so a breaker that lets traffic
  /// through while open is still caught.
  double slack_ms = 150;
};

/// What replaying the rule over a journal found.
struct StormReplay {
  std::vector<std::string> violations;  ///< requests that reached the upstream while it was open
  std::size_t opens = 0;                ///< times the rule opened the breaker
  std::size_t probes = 0;               ///< requests let through as the one probe after open_ms
  std::size_t skipped_in_flight = 0;    ///< requests that started within slack of an opening
};

/// Replays the storm breaker over `entries` (one upstream's journal): answers enter the window
/// when they finish; once more than `min_samples` answers with more than `ratio` 429s are in it,
/// the breaker is open and no request may start until `open_ms` later, when exactly one probe may;
/// a 429 probe opens it again, another answer closes it with an empty window. Every request that
/// breaks this is reported with its time.
StormReplay replayStormRule(std::vector<JournalEntry> const& entries, StormRule const& rule);

/// One line per entry, "seq status +start..+finish ms" from the first start: the timeline a
/// failed storm assertion prints.
std::string timeline(std::vector<JournalEntry> const& entries);

/// GET /admin/breakers → the "breakers" array (a test failure and an empty array on error).
boost::json::array breakers(std::uint16_t gateway_port);
/// The entry of (channel, model) in `list`, if any.
std::optional<boost::json::object> breakerOf(boost::json::array const& list,
                                             std::string_view channel, std::string_view model);
/// `entry[half]["state"]` ("failure" or "storm"), "" when absent.
std::string stateOf(boost::json::object const& entry, std::string_view half);

/// Runs `call(i)` for i in [0, count) on `concurrency` threads, call i starting no earlier than
/// `i * interval` after the start (paced load: a steady rate, not a burst). Returns the number of
/// calls that returned true.
std::size_t runPaced(std::size_t count, std::size_t concurrency, Millis interval,
                     std::function<bool(std::size_t)> const& call);

/// The whole seconds of a `retry-after` header; nullopt when absent or not a number.
std::optional<long long> retryAfterSeconds(Response const& response);

}  // namespace llmux::e2e::resilience

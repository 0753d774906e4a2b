#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/result.h"

namespace llmux::mock {

/// The kinds of misbehaviour a test can ask for (docs/mock-provider.md has the spellings).
enum class FaultKind {
  Status,           ///< answer with an error status (429 adds retry-after)
  SlowFirstByte,    ///< delay the status line
  SlowFirstToken,   ///< send the stream head at once, delay the first content event
  Stall,            ///< send the head and one content event, then go silent
  Cut,              ///< send the head and one content event, then drop the connection
  ContextOverflow,  ///< the provider's "context window exceeded" 400
  FailNth,          ///< fail exactly the N-th request carrying this spec
  FailEvery,        ///< fail every N-th request carrying this spec (a steady error ratio)
  KeepAlive,        ///< while a slow first token waits, send a keep-alive event every N ms
};

/// One parsed fault spec.
struct Fault {
  FaultKind kind = FaultKind::Status;
  int status = 500;                       ///< Status, FailNth and FailEvery
  int retry_after_s = 1;                  ///< 429 only
  std::chrono::milliseconds duration{0};  ///< SlowFirstByte, SlowFirstToken, Stall; KeepAlive's interval
  std::int64_t nth = 0;                   ///< FailNth: which request; FailEvery: the period
  std::string counter_key;                ///< FailNth, FailEvery: the spec text, which keys the counter
};

/// Every fault asked for by one request, plus the stream pacing.
struct FaultPlan {
  std::vector<Fault> faults;
  std::chrono::milliseconds chunk_delay{0};  ///< x-mock-chunk-delay

  bool empty() const { return faults.empty() && chunk_delay.count() == 0; }
  Fault const* find(FaultKind kind) const;
};

inline constexpr std::string_view kFaultHeader = "x-mock-fault";
inline constexpr std::string_view kChunkDelayHeader = "x-mock-chunk-delay";
inline constexpr std::string_view kFaultModelPrefix = "fault-";
/// On a video job's creation: how many GETs of the job it takes to complete (default 3).
inline constexpr std::string_view kVideoPollsHeader = "x-mock-video-polls";
inline constexpr std::int64_t kDefaultVideoPolls = 3;

/// Parses one spec ("429=7", "slow-first-token=1500", "fail-nth=3:503@a", "fail-every=4:429=0",
/// "keep-alive=100", ...).
Result<Fault> parseFault(std::string_view spec);

/// Adds the comma-separated specs of an x-mock-fault header value to `plan`.
Result<void> addHeaderFaults(std::string_view header_value, FaultPlan& plan);

/// Adds the fault named by a model ("fault-<spec>"); models without the prefix add nothing.
Result<void> addModelFault(std::string_view model, FaultPlan& plan);

/// Parses an x-mock-chunk-delay value (milliseconds).
Result<void> setChunkDelay(std::string_view header_value, FaultPlan& plan);

/// Parses an x-mock-video-polls value (1 to 1000).
Result<std::int64_t> parseVideoPolls(std::string_view header_value);

/// Per-spec request counters for the fail-nth and fail-every faults. Thread-safe.
class FaultCounters {
 public:
  /// Counts one more request carrying `key` and returns the new count (1 for the first).
  std::int64_t increment(std::string const& key);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::int64_t> counts_;
};

}  // namespace llmux::mock

#pragma once

// When a race starts: the p90 of recent samples of the model's family at that stage, clamped to
// the policy's floor and the channel's ceiling. Thread-safe: every armed request reads a threshold
// and writes a sample, so the read is a lock-free load of the published p90 while it stands, and
// a sample is taken under a try-lock (one arriving while another thread holds the lock is dropped:
// the window is a sample of the traffic anyway, and no request waits for it).

#include <array>
#include <atomic>
#include <cstdint>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string_view>

#include "core/clock.h"
#include "racing/model_family.h"
#include "racing/policy.h"

namespace llmux::racing {

enum class Stage {
  StreamFirstContent,   ///< a stream's time to its first content event
  NonStreamCompletion,  ///< a whole answer's time to its last byte
};
inline constexpr int kStages = 2;
std::string_view stageName(Stage stage);

class ThresholdRegistry {
 public:
  /// Samples older than this are forgotten.
  static constexpr Millis kWindow = std::chrono::minutes(15);
  /// Fewer samples than this in the window: the floor is the threshold.
  static constexpr std::size_t kMinSamples = 20;

  /// `capacity`: samples kept per (family, stage); the oldest go first.
  explicit ThresholdRegistry(std::size_t capacity = 512);

  /// A branch reached the stage `elapsed` after it started (streams: every branch that
  /// delivered its first content, losers included; whole answers: winners only). Dropped when
  /// another thread is taking a sample or computing the p90 at that moment.
  void record(ModelFamily family, Stage stage, Millis elapsed, MonoTime now);

  /// The p90 of the window clamped to `bounds`, or the floor when the window has too few samples.
  Millis threshold(ModelFamily family, Stage stage, ThresholdBounds bounds, MonoTime now);

  /// What the window holds now (for the admin API and tests).
  std::size_t sampleCount(ModelFamily family, Stage stage, MonoTime now);
  /// The p90 of the window, when it has enough samples.
  std::optional<Millis> p90(ModelFamily family, Stage stage, MonoTime now);

 private:
  struct Sample {
    MonoTime at;
    Millis elapsed;
  };
  struct Window {
    std::deque<Sample> samples;  // oldest first
    std::optional<Millis> cached_p90;
    std::size_t changes = 0;  ///< samples added or dropped since the cached p90 was computed
    MonoTime computed_at{};
    /// What `threshold` reads without the lock: the cached p90 in ms (-1: too few samples), which
    /// stands while `now` is before `stands_until` (ns since the clock's epoch). A sample that
    /// makes the cache fall sets `stands_until` back to the minimum.
    std::atomic<std::int64_t> published_p90_ms{-1};
    std::atomic<std::int64_t> stands_until{INT64_MIN};
  };
  /// Whether the cached p90 still stands: it is computed again once a quarter of the window
  /// (at least one sample) changed, or a second passed. Every armed request records a sample;
  /// computing the p90 (a copy and nth_element) for each would cost a busy gateway more than
  /// the figure gains.
  static bool cacheStands(Window const& window, MonoTime now);

  Window& windowFor(ModelFamily family, Stage stage);
  void prune(Window& window, MonoTime now);
  std::optional<Millis> p90Locked(Window& window, MonoTime now);
  /// The p90 from what is published when it stands, else computed under the lock.
  std::optional<Millis> currentP90(Window& window, MonoTime now);

  std::size_t const capacity_;
  std::mutex mutex_;
  std::array<Window, kModelFamilies * kStages> windows_;
};

}  // namespace llmux::racing

#include "racing/threshold_registry.h"

#include <algorithm>
#include <vector>

namespace llmux::racing {

std::string_view stageName(Stage stage) {
  return stage == Stage::StreamFirstContent ? "stream_first_content" : "non_stream_completion";
}

ThresholdRegistry::ThresholdRegistry(std::size_t capacity)
    : capacity_(std::max(capacity, kMinSamples)) {}

ThresholdRegistry::Window& ThresholdRegistry::windowFor(ModelFamily family, Stage stage) {
  return windows_[static_cast<std::size_t>(family) * kStages + static_cast<std::size_t>(stage)];
}

void ThresholdRegistry::prune(Window& window, MonoTime now) {
  MonoTime const oldest = now - kWindow;
  while (!window.samples.empty() && window.samples.front().at < oldest) {
    window.samples.pop_front();
    ++window.changes;
  }
}

bool ThresholdRegistry::cacheStands(Window const& window, MonoTime now) {
  if (!window.cached_p90) return false;
  std::size_t const allowed = std::max<std::size_t>(1, window.samples.size() / 4);
  return window.changes < allowed && now - window.computed_at < std::chrono::seconds(1);
}

void ThresholdRegistry::record(ModelFamily family, Stage stage, Millis elapsed, MonoTime now) {
  std::unique_lock lock(mutex_, std::try_to_lock);
  if (!lock) return;  // another thread is at the windows: this sample is dropped, no one waits
  Window& window = windowFor(family, stage);
  prune(window, now);
  if (window.samples.size() >= capacity_) window.samples.pop_front();
  window.samples.push_back({now, std::max(elapsed, Millis(0))});
  ++window.changes;
  if (!cacheStands(window, now)) window.stands_until.store(INT64_MIN, std::memory_order_release);
}

std::optional<Millis> ThresholdRegistry::p90Locked(Window& window, MonoTime now) {
  prune(window, now);
  std::optional<Millis> p90;
  MonoTime stands_until = now + std::chrono::seconds(1);  // "too few": until a sample, or a second
  if (window.samples.size() >= kMinSamples) {
    if (!cacheStands(window, now)) {
      std::vector<Millis> values;
      values.reserve(window.samples.size());
      for (auto const& sample : window.samples) values.push_back(sample.elapsed);
      // Nearest rank: the smallest sample with at least 90 % of the samples at or below it.
      std::size_t const rank = (values.size() * 9 + 9) / 10;
      auto nth = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
      std::nth_element(values.begin(), nth, values.end());
      window.cached_p90 = *nth;
      window.changes = 0;
      window.computed_at = now;
    }
    p90 = window.cached_p90;
    stands_until = window.computed_at + std::chrono::seconds(1);
  }
  // Published for lock-free readers until the cache falls by age (a sample may end it sooner).
  window.published_p90_ms.store(p90 ? p90->count() : -1, std::memory_order_relaxed);
  window.stands_until.store(stands_until.time_since_epoch().count(), std::memory_order_release);
  return p90;
}

std::optional<Millis> ThresholdRegistry::currentP90(Window& window, MonoTime now) {
  if (now.time_since_epoch().count() < window.stands_until.load(std::memory_order_acquire)) {
    std::int64_t const ms = window.published_p90_ms.load(std::memory_order_relaxed);
    if (ms < 0) return std::nullopt;
    return Millis(ms);
  }
  std::lock_guard lock(mutex_);
  return p90Locked(window, now);
}

Millis ThresholdRegistry::threshold(ModelFamily family, Stage stage, ThresholdBounds bounds,
                                    MonoTime now) {
  std::optional<Millis> const p90 = currentP90(windowFor(family, stage), now);
  if (!p90) return bounds.floor;
  return std::clamp(*p90, bounds.floor, std::max(bounds.floor, bounds.ceiling));
}

std::size_t ThresholdRegistry::sampleCount(ModelFamily family, Stage stage, MonoTime now) {
  std::lock_guard lock(mutex_);
  Window& window = windowFor(family, stage);
  prune(window, now);
  return window.samples.size();
}

std::optional<Millis> ThresholdRegistry::p90(ModelFamily family, Stage stage, MonoTime now) {
  return currentP90(windowFor(family, stage), now);
}

}  // namespace llmux::racing

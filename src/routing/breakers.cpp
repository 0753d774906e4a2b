#include "routing/breakers.h"

#include <algorithm>
#include <functional>
#include <tuple>
#include <utility>

namespace llmux::routing {
namespace {

using Kind = BreakerGate::Kind;

constexpr char kSeparator = '\0';  // cannot occur in a channel name or a model id

std::string pairKey(std::string_view channel, std::string_view model) {
  std::string key;
  key.reserve(channel.size() + 1 + model.size());
  key.append(channel);
  key.push_back(kSeparator);
  key.append(model);
  return key;
}

std::pair<std::string_view, std::string_view> splitKey(std::string_view key) {
  auto cut = key.find(kSeparator);
  if (cut == std::string_view::npos) return {key, {}};
  return {key.substr(0, cut), key.substr(cut + 1)};
}

std::size_t hashPair(std::string_view channel, std::string_view model) {
  std::size_t h = std::hash<std::string_view>{}(channel);
  // boost::hash_combine's mix: the two parts must not commute ("a","b" vs "b","a").
  h ^= std::hash<std::string_view>{}(model) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

/// Floor division: the slot of an instant before the clock's epoch stays below slot 0.
std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

}  // namespace

std::string_view breakerStateName(BreakerState state) {
  switch (state) {
    case BreakerState::Closed:
      return "closed";
    case BreakerState::Open:
      return "open";
    case BreakerState::HalfOpen:
      return "half_open";
  }
  return "closed";
}

// --- TripCycle ----------------------------------------------------------------------------------

BreakerState TripCycle::state(Millis open_for, MonoTime now) const {
  if (!opened_at_) return BreakerState::Closed;
  return now < *opened_at_ + open_for ? BreakerState::Open : BreakerState::HalfOpen;
}

BreakerGate TripCycle::gate(Millis open_for, Millis probe_timeout, MonoTime now) const {
  if (!opened_at_) return {};
  MonoTime due = *opened_at_ + open_for;
  if (now < due) return {Kind::OpenWait, due};
  // A probe that never reports must not hold the breaker half-open forever.
  if (probe_sent_at_ && now < *probe_sent_at_ + probe_timeout) {
    return {Kind::ProbeWait, *probe_sent_at_ + probe_timeout};
  }
  return {Kind::ProbeReady, now};
}

bool TripCycle::takeProbe(MonoTime now) {
  probe_sent_at_ = now;
  return !std::exchange(probed_, true);
}

void TripCycle::open(MonoTime now) {
  opened_at_ = now;
  probe_sent_at_.reset();
  probed_ = false;
}

void TripCycle::close() {
  opened_at_.reset();
  probe_sent_at_.reset();
  probed_ = false;
}

// --- FailureBreaker -----------------------------------------------------------------------------

BreakerGate FailureBreaker::gate(BreakerSettings const& settings, MonoTime now) const {
  if (!settings.enabled) return {};
  return trip_.gate(settings.open_for, settings.probe_timeout, now);
}

std::optional<BreakerState> FailureBreaker::record(BreakerSettings const& settings,
                                                   AttemptSignal signal, bool was_probe,
                                                   MonoTime now) {
  if (!settings.enabled) return std::nullopt;
  if (trip_.tripped()) {
    // Only the probe decides: an attempt admitted before the open that ends late says nothing.
    if (!was_probe || !trip_.probeOut()) return std::nullopt;
    switch (signal) {
      case AttemptSignal::Success:
        consecutive_ = 0;
        trip_.close();
        return BreakerState::Closed;
      case AttemptSignal::CountedFailure:
        ++consecutive_;
        trip_.open(now);
        ++opens_;
        return BreakerState::Open;
      case AttemptSignal::RateLimited:
      case AttemptSignal::Ignored:
        // Neutral: neither proof of health nor of failure. The timer is not refreshed, so the
        // next caller probes again at once, and the failures before are not washed away.
        trip_.releaseProbe();
        return std::nullopt;
    }
    return std::nullopt;
  }
  switch (signal) {
    case AttemptSignal::Success:
      consecutive_ = 0;
      break;
    case AttemptSignal::CountedFailure:
      if (++consecutive_ >= std::max(1, settings.failure_threshold)) {
        trip_.open(now);
        ++opens_;
        return BreakerState::Open;
      }
      break;
    case AttemptSignal::RateLimited:  // the storm breaker's business: no count, no reset
    case AttemptSignal::Ignored:
      break;
  }
  return std::nullopt;
}

BreakerState FailureBreaker::state(BreakerSettings const& settings, MonoTime now) const {
  if (!settings.enabled) return BreakerState::Closed;
  return trip_.state(settings.open_for, now);
}

bool FailureBreaker::reset() {
  bool was_tripped = trip_.tripped();
  trip_.close();
  consecutive_ = 0;
  return was_tripped;
}

// --- StormWindow --------------------------------------------------------------------------------

MonoClock::duration StormWindow::slotWidth(Millis window) {
  auto width = std::chrono::duration_cast<MonoClock::duration>(window) / kSlots;
  return std::max<MonoClock::duration>(width, Millis(1));
}

std::int64_t StormWindow::slotIndex(MonoTime now) const {
  return floorDiv(now.time_since_epoch().count(), width_.count());
}

std::size_t StormWindow::ringPosition(std::int64_t index) {
  auto n = static_cast<std::int64_t>(kSlots);
  return static_cast<std::size_t>(((index % n) + n) % n);
}

void StormWindow::advanceTo(std::int64_t index) {
  if (index - head_ >= static_cast<std::int64_t>(kSlots)) {
    slots_.fill({});
    total_ = {};
  } else {
    for (std::int64_t i = head_ + 1; i <= index; ++i) {
      Slot& gone = slots_[ringPosition(i)];
      total_.responses -= gone.responses;
      total_.rate_limited -= gone.rate_limited;
      gone = {};
    }
  }
  head_ = index;
}

void StormWindow::add(bool rate_limited, MonoTime now, Millis window) {
  auto width = slotWidth(window);
  if (width != width_) {
    clear();
    width_ = width;
    head_ = slotIndex(now);
  }
  std::int64_t index = slotIndex(now);
  if (index > head_) {
    advanceTo(index);
  } else if (index <= head_ - static_cast<std::int64_t>(kSlots)) {
    return;  // reported so late (another thread's older `now`) that its slot already slid out
  }
  Slot& slot = slots_[ringPosition(index)];
  ++slot.responses;
  ++total_.responses;
  if (rate_limited) {
    ++slot.rate_limited;
    ++total_.rate_limited;
  }
}

StormWindow::Counts StormWindow::counts(MonoTime now) const {
  if (width_.count() == 0) return {};
  std::int64_t index = slotIndex(now);
  if (index <= head_) return total_;
  if (index - head_ >= static_cast<std::int64_t>(kSlots)) return {};
  Counts live = total_;
  for (std::int64_t i = head_ + 1; i <= index; ++i) {
    Slot const& gone = slots_[ringPosition(i)];
    live.responses -= gone.responses;
    live.rate_limited -= gone.rate_limited;
  }
  return live;
}

void StormWindow::clear() {
  slots_.fill({});
  total_ = {};
  width_ = MonoClock::duration(0);
  head_ = 0;
}

// --- StormBreaker -------------------------------------------------------------------------------

BreakerGate StormBreaker::gate(BreakerSettings const& settings, MonoTime now) const {
  if (!settings.storm_enabled) return {};
  return trip_.gate(settings.storm_open_for, settings.probe_timeout, now);
}

std::optional<BreakerState> StormBreaker::record(BreakerSettings const& settings,
                                                 AttemptSignal signal, bool was_probe,
                                                 MonoTime now) {
  if (!settings.storm_enabled) return std::nullopt;
  if (trip_.tripped()) {
    if (!was_probe || !trip_.probeOut()) return std::nullopt;  // only the probe decides
    switch (signal) {
      case AttemptSignal::Success:
      case AttemptSignal::CountedFailure:
        // Not a 429: the storm is over. The window is emptied, or the old 429s would reopen it
        // on the next answer.
        trip_.close();
        window_.clear();
        return BreakerState::Closed;
      case AttemptSignal::RateLimited:
        trip_.open(now);
        ++opens_;
        return BreakerState::Open;
      case AttemptSignal::Ignored:
        trip_.releaseProbe();  // neutral: back to open, timer untouched, next caller probes
        return std::nullopt;
    }
    return std::nullopt;
  }
  if (signal == AttemptSignal::Ignored) return std::nullopt;  // not an upstream answer
  window_.add(signal == AttemptSignal::RateLimited, now, settings.storm_window);
  auto counts = window_.counts(now);
  if (counts.responses > settings.storm_min_samples &&
      static_cast<double>(counts.rate_limited) / counts.responses > settings.storm_ratio) {
    trip_.open(now);
    ++opens_;
    return BreakerState::Open;
  }
  return std::nullopt;
}

BreakerState StormBreaker::state(BreakerSettings const& settings, MonoTime now) const {
  if (!settings.storm_enabled) return BreakerState::Closed;
  return trip_.state(settings.storm_open_for, now);
}

bool StormBreaker::reset() {
  bool was_tripped = trip_.tripped();
  trip_.close();
  window_.clear();
  return was_tripped;
}

// --- BreakerBoard -------------------------------------------------------------------------------

std::size_t BreakerBoard::PairHash::operator()(std::string_view key) const {
  auto [channel, model] = splitKey(key);
  return hashPair(channel, model);
}

std::size_t BreakerBoard::PairHash::operator()(PairRef ref) const {
  return hashPair(ref.channel, ref.model);
}

bool BreakerBoard::PairEqual::operator()(PairRef a, std::string_view key) const {
  return key.size() == a.channel.size() + 1 + a.model.size() && key.starts_with(a.channel) &&
         key[a.channel.size()] == kSeparator && key.ends_with(a.model);
}

BreakerBoard::PairMap::iterator BreakerBoard::findOrCreateLocked(std::string_view channel,
                                                                 std::string_view model) {
  auto it = pairs_.find(PairRef{channel, model});
  if (it != pairs_.end()) return it;
  return pairs_.try_emplace(pairKey(channel, model)).first;
}

void BreakerBoard::adoptLocked(std::string_view key, Pair& pair, BreakerSettings const& settings,
                               MonoTime now) {
  pair.settings = settings;
  // A breaker turned off forgets what it held: turned on again, it starts closed and empty.
  if (!settings.enabled && !pair.failure.idle()) {
    if (pair.failure.reset()) noteLocked(key, false, BreakerState::Closed);
  }
  if (!settings.storm_enabled && !pair.storm.idle(now)) {
    if (pair.storm.reset()) noteLocked(key, true, BreakerState::Closed);
  }
}

void BreakerBoard::noteLocked(std::string_view key, bool storm, BreakerState to) {
  if (transitions_.size() >= kMaxPendingTransitions) {
    ++dropped_transitions_;
    return;
  }
  auto [channel, model] = splitKey(key);
  transitions_.push_back({std::string(channel), std::string(model), storm, to});
  has_transitions_.store(true, std::memory_order_release);
}

BreakerDecision BreakerBoard::admit(std::string_view channel, std::string_view model,
                                    BreakerSettings const& settings, MonoTime now) {
  std::lock_guard lock(mutex_);
  auto it = findOrCreateLocked(channel, model);
  Pair& pair = it->second;
  adoptLocked(it->first, pair, settings, now);

  BreakerGate failure = pair.failure.gate(settings, now);
  BreakerGate storm = pair.storm.gate(settings, now);
  auto waits = [](BreakerGate const& g) {
    return g.kind == Kind::OpenWait || g.kind == Kind::ProbeWait;
  };
  if (waits(failure) || waits(storm)) {
    BreakerDecision refused{Admission::Refused, "probe_in_flight", std::nullopt};
    if (failure.kind == Kind::OpenWait) {
      refused.reason = "breaker_open";
    } else if (storm.kind == Kind::OpenWait) {
      refused.reason = "storm_open";
    }
    // Both must let a probe through before the pair does: the later of the two.
    for (BreakerGate const* g : {&failure, &storm}) {
      if (waits(*g) && (!refused.retry_at || g->until > *refused.retry_at))
        refused.retry_at = g->until;
    }
    return refused;
  }
  bool probe = false;
  if (failure.kind == Kind::ProbeReady) {
    probe = true;
    if (pair.failure.takeProbe(now)) noteLocked(it->first, false, BreakerState::HalfOpen);
  }
  if (storm.kind == Kind::ProbeReady) {
    probe = true;
    if (pair.storm.takeProbe(now)) noteLocked(it->first, true, BreakerState::HalfOpen);
  }
  return {probe ? Admission::Probe : Admission::Allowed, "", std::nullopt};
}

bool BreakerBoard::refusing(std::string_view channel, std::string_view model,
                            BreakerSettings const& settings, MonoTime now) const {
  std::lock_guard lock(mutex_);
  auto it = pairs_.find(PairRef{channel, model});
  if (it == pairs_.end()) return false;
  for (BreakerGate const& g :
       {it->second.failure.gate(settings, now), it->second.storm.gate(settings, now)}) {
    if (g.kind == Kind::OpenWait || g.kind == Kind::ProbeWait) return true;
  }
  return false;
}

void BreakerBoard::record(std::string_view channel, std::string_view model,
                          BreakerSettings const& settings, AttemptSignal signal, bool was_probe,
                          MonoTime now) {
  std::lock_guard lock(mutex_);
  PairMap::iterator it = pairs_.find(PairRef{channel, model});
  if (it == pairs_.end()) {
    if (!settings.enabled && !settings.storm_enabled) return;  // nothing would be kept
    it = pairs_.try_emplace(pairKey(channel, model)).first;
  }
  Pair& pair = it->second;
  adoptLocked(it->first, pair, settings, now);
  if (auto to = pair.failure.record(settings, signal, was_probe, now))
    noteLocked(it->first, false, *to);
  if (auto to = pair.storm.record(settings, signal, was_probe, now))
    noteLocked(it->first, true, *to);
}

std::vector<BreakerView> BreakerBoard::list(MonoTime now) const {
  std::vector<BreakerView> out;
  {
    std::lock_guard lock(mutex_);
    out.reserve(pairs_.size());
    for (auto const& [key, pair] : pairs_) {
      auto [channel, model] = splitKey(key);
      BreakerView view;
      view.channel = std::string(channel);
      view.model = std::string(model);
      view.failure_state = pair.failure.state(pair.settings, now);
      view.storm_state = pair.storm.state(pair.settings, now);
      view.consecutive_failures = pair.failure.consecutiveFailures();
      auto counts = pair.storm.windowCounts(now);
      view.window_responses = counts.responses;
      view.window_429s = counts.rate_limited;
      if (view.failure_state != BreakerState::Closed)
        view.failure_opened_at = pair.failure.openedAt();
      if (view.storm_state != BreakerState::Closed) view.storm_opened_at = pair.storm.openedAt();
      view.opens = pair.failure.opens();
      view.storm_opens = pair.storm.opens();
      out.push_back(std::move(view));
    }
  }
  std::sort(out.begin(), out.end(), [](BreakerView const& a, BreakerView const& b) {
    return std::tie(a.channel, a.model) < std::tie(b.channel, b.model);
  });
  return out;
}

bool BreakerBoard::reset(std::string_view channel, std::string_view model) {
  std::lock_guard lock(mutex_);
  auto it = pairs_.find(PairRef{channel, model});
  if (it == pairs_.end()) return false;
  if (it->second.failure.reset()) noteLocked(it->first, false, BreakerState::Closed);
  if (it->second.storm.reset()) noteLocked(it->first, true, BreakerState::Closed);
  return true;
}

std::size_t BreakerBoard::resetChannel(std::string_view channel) {
  std::lock_guard lock(mutex_);
  std::size_t pairs = 0;
  for (auto& [key, pair] : pairs_) {
    if (splitKey(key).first != channel) continue;
    ++pairs;
    if (pair.failure.reset()) noteLocked(key, false, BreakerState::Closed);
    if (pair.storm.reset()) noteLocked(key, true, BreakerState::Closed);
  }
  return pairs;
}

std::vector<BreakerTransition> BreakerBoard::takeTransitions() {
  if (!has_transitions_.load(std::memory_order_acquire)) return {};
  std::lock_guard lock(mutex_);
  has_transitions_.store(false, std::memory_order_relaxed);
  return std::exchange(transitions_, {});
}

std::uint64_t BreakerBoard::droppedTransitions() const {
  std::lock_guard lock(mutex_);
  return dropped_transitions_;
}

}  // namespace llmux::routing

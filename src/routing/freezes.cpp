#include "routing/freezes.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <utility>

#include "core/ids.h"
#include "routing/rate_limits.h"
#include "core/retry_after.h"
#include "core/strings.h"

namespace llmux::routing {
namespace {

using namespace std::chrono;

WallTime after(WallTime now, Millis wait) {
  return now + duration_cast<WallClock::duration>(wait);
}

void keepLatest(std::optional<WallTime>& latest, std::optional<WallTime> candidate) {
  if (candidate && (!latest || *candidate > *latest)) latest = candidate;
}

// --- periods ------------------------------------------------------------------------------------

WallTime endOfToday(WallTime now) { return nextUtcMidnight(now); }

WallTime endOfWeek(WallTime now) {
  sys_days today = floor<days>(now);
  days left = Monday - weekday{today};  // 0..6 days to the next Monday
  if (left == days{0}) left = days{7};
  return time_point_cast<WallClock::duration>(today + left);
}

WallTime endOfMonth(WallTime now) { return nextUtcMonthStart(now); }

// --- the table ----------------------------------------------------------------------------------

bool isKeyObject(config::FreezeObject object) {
  return object == config::FreezeObject::Key || object == config::FreezeObject::KeyModel;
}

bool hasModel(config::FreezeObject object) {
  return object == config::FreezeObject::KeyModel || object == config::FreezeObject::ChannelModel;
}

bool sameObject(Freeze const& a, Freeze const& b) {
  return a.object == b.object && a.channel == b.channel && a.key_id == b.key_id &&
         a.model == b.model;
}

bool covers(Freeze const& f, std::string_view channel, std::string_view key_id,
            std::string_view model) {
  switch (f.object) {
    case config::FreezeObject::Key:
      return !f.key_id.empty() && f.key_id == key_id;
    case config::FreezeObject::KeyModel:
      return !f.key_id.empty() && f.key_id == key_id && f.model == model;
    case config::FreezeObject::Channel:
      return f.channel == channel;
    case config::FreezeObject::ChannelModel:
      return f.channel == channel && f.model == model;
  }
  return false;
}

bool expired(Freeze const& f, WallTime now) {
  return f.until && *f.until <= now;
}

}  // namespace

// --- free functions -----------------------------------------------------------------------------

config::FreezeRule const* matchFreezeRule(std::vector<config::FreezeRule> const& rules, int status,
                                          HeaderList const& headers, std::string_view body) {
  for (auto const& rule : rules) {
    if (rule.status != status) continue;
    if (!rule.body_contains.empty() && body.find(rule.body_contains) == std::string_view::npos) {
      continue;
    }
    if (!rule.header.empty()) {
      auto value = headers.find(rule.header);  // names are case-insensitive
      if (!value) continue;
      if (!rule.header_value.empty() && value->find(rule.header_value) == std::string_view::npos) {
        continue;
      }
    }
    return &rule;
  }
  return nullptr;
}

bool freezeRulesNeedBody(std::vector<config::FreezeRule> const& rules, int status) {
  return std::any_of(rules.begin(), rules.end(), [status](config::FreezeRule const& rule) {
    return rule.status == status && !rule.body_contains.empty();
  });
}

std::optional<WallTime> upstreamResetTime(HeaderList const& headers, std::string_view body,
                                          WallTime now) {
  // An explicit "retry after" always counts; among the per-limit resets, the exhausted limits'
  // (remaining 0) when the upstream says which, else the latest of all (never too early).
  std::optional<WallTime> explicit_wait;
  if (auto wait = parseRetryAfter(headers, now)) keepLatest(explicit_wait, after(now, *wait));
  if (auto delay = parseGoogleRetryDelay(body)) keepLatest(explicit_wait, after(now, *delay));

  std::optional<WallTime> exhausted, any;
  for (auto const& limit : announcedLimits(headers, now)) {
    keepLatest(any, limit.reset);
    if (limit.remaining == 0) keepLatest(exhausted, limit.reset);
  }
  std::optional<WallTime> latest = explicit_wait;
  keepLatest(latest, exhausted ? exhausted : any);
  return latest;
}

std::optional<WallTime> freezeEnd(config::FreezePeriod period, WallTime now, Millis duration,
                                  std::optional<WallTime> reset) {
  switch (period) {
    case config::FreezePeriod::Fixed:
      return after(now, duration);
    case config::FreezePeriod::Today:
      return endOfToday(now);
    case config::FreezePeriod::Week:
      return endOfWeek(now);
    case config::FreezePeriod::Month:
      return endOfMonth(now);
    case config::FreezePeriod::Forever:
      return std::nullopt;
    case config::FreezePeriod::UpstreamReset:
      // A reset already past (clock skew, a stale header) must not unfreeze at once.
      return reset && *reset > now ? *reset : endOfToday(now);
  }
  return endOfToday(now);
}

// --- FreezeTable --------------------------------------------------------------------------------

FreezeTable::FreezeTable(TimeSource const& clock, FreezePersistence* persistence)
    : clock_(clock), persistence_(persistence) {}

void FreezeTable::load() {
  if (persistence_ == nullptr) return;
  std::vector<Freeze> loaded = persistence_->loadFreezes();  // start-up: failures propagate
  std::stable_sort(loaded.begin(), loaded.end(),
                   [](Freeze const& a, Freeze const& b) { return a.created < b.created; });
  std::lock_guard lock(mutex_);
  freezes_ = std::move(loaded);
  count_.store(freezes_.size(), std::memory_order_release);
  dropExpiredLocked(clock_.wallNow());
}

std::optional<Freeze> FreezeTable::frozen(std::string_view channel, std::string_view key_id,
                                          std::string_view model) const {
  // The common case, nothing frozen, costs one load and no lock.
  if (count_.load(std::memory_order_acquire) == 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  dropExpiredLocked(clock_.wallNow());
  for (auto const& f : freezes_) {
    if (covers(f, channel, key_id, model)) return f;
  }
  return std::nullopt;
}

Freeze FreezeTable::apply(config::FreezeRule const& rule, FreezeTarget const& target,
                          std::optional<WallTime> upstream_reset, std::string reason) {
  WallTime now = clock_.wallNow();
  Freeze wanted;
  wanted.object = rule.object;
  wanted.period = rule.period;
  wanted.channel = target.channel;
  if (isKeyObject(rule.object)) {
    wanted.key_id = target.key_id;
    wanted.key_label = target.key_label;
  }
  if (hasModel(rule.object)) wanted.model = target.model;
  wanted.created = now;
  wanted.until = freezeEnd(rule.period, now, rule.duration, upstream_reset);
  wanted.rule = rule.name;
  wanted.reason = std::move(reason);

  std::lock_guard lock(mutex_);
  dropExpiredLocked(now);
  auto existing = std::find_if(freezes_.begin(), freezes_.end(),
                               [&](Freeze const& f) { return sameObject(f, wanted); });
  if (existing != freezes_.end()) {
    // Extend, never shorten: the later end (forever beats any instant) and what caused it.
    bool longer = existing->until && (!wanted.until || *wanted.until > *existing->until);
    if (longer) {
      existing->until = wanted.until;
      existing->period = wanted.period;
      existing->rule = wanted.rule;
      existing->reason = wanted.reason;
      if (persistence_ != nullptr) persistence_->saveFreeze(*existing);
    }
    return *existing;
  }
  wanted.id = "frz_" + randomHex(8);
  if (expired(wanted, now)) return wanted;  // a zero-length freeze: nothing to keep
  freezes_.push_back(wanted);
  count_.store(freezes_.size(), std::memory_order_release);
  if (persistence_ != nullptr) persistence_->saveFreeze(wanted);
  return wanted;
}

bool FreezeTable::lift(std::string const& id) {
  std::lock_guard lock(mutex_);
  dropExpiredLocked(clock_.wallNow());
  auto it =
      std::find_if(freezes_.begin(), freezes_.end(), [&](Freeze const& f) { return f.id == id; });
  if (it == freezes_.end()) return false;
  Freeze const lifted = *it;
  auto keep = std::stable_partition(freezes_.begin(), freezes_.end(),
                                    [&](Freeze const& f) { return !sameObject(f, lifted); });
  for (auto gone = keep; gone != freezes_.end(); ++gone) forgetLocked(gone->id);
  freezes_.erase(keep, freezes_.end());
  count_.store(freezes_.size(), std::memory_order_release);
  return true;
}

void FreezeTable::noteStored(std::string const& id) {
  std::lock_guard lock(mutex_);
  stored_ids_.noteStored(id);
}

std::uint64_t FreezeTable::storeMark() const {
  std::lock_guard lock(mutex_);
  return stored_ids_.mark();
}

std::size_t FreezeTable::adopt(std::vector<Freeze> const& stored, std::uint64_t read_mark) {
  std::lock_guard lock(mutex_);
  adopting_ = true;
  WallTime const now = clock_.wallNow();
  dropExpiredLocked(now);
  std::unordered_set<std::string> stored_now;
  for (Freeze const& f : stored) stored_now.insert(f.id);
  std::size_t changed = 0;
  // Gone from the store since the last look: lifted (or expired) by another replica. A save
  // noted after the read began is not gone: the read could not see it.
  changed += std::erase_if(freezes_, [&](Freeze const& f) {
    return stored_ids_.goneUnless(f.id, read_mark) && !stored_now.contains(f.id);
  });
  for (Freeze const& f : stored) {
    if (removed_ids_.contains(f.id) || expired(f, now)) continue;
    auto local = std::find_if(freezes_.begin(), freezes_.end(),
                              [&](Freeze const& mine) { return mine.id == f.id; });
    if (local == freezes_.end()) {
      freezes_.push_back(f);
      ++changed;
    } else if (local->until && (!f.until || *f.until > *local->until)) {
      *local = f;  // extended elsewhere (never shortened)
      ++changed;
    }
  }
  // A removal the store shows is done: its id is forgotten.
  std::erase_if(removed_ids_, [&](std::string const& id) { return !stored_now.contains(id); });
  stored_ids_.replace(stored_now, read_mark);
  if (changed > 0) {
    std::stable_sort(freezes_.begin(), freezes_.end(),
                     [](Freeze const& a, Freeze const& b) { return a.created < b.created; });
  }
  count_.store(freezes_.size(), std::memory_order_release);
  return changed;
}

template <class Pred>
std::vector<Freeze> FreezeTable::liftKeyWhere(std::string const& key_id, Pred lifts) {
  std::vector<Freeze> lifted;
  if (key_id.empty()) return lifted;
  std::lock_guard lock(mutex_);
  dropExpiredLocked(clock_.wallNow());
  auto keep = std::stable_partition(freezes_.begin(), freezes_.end(), [&](Freeze const& f) {
    return f.key_id != key_id || !lifts(f);
  });
  for (auto it = keep; it != freezes_.end(); ++it) {
    forgetLocked(it->id);
    lifted.push_back(std::move(*it));
  }
  freezes_.erase(keep, freezes_.end());
  count_.store(freezes_.size(), std::memory_order_release);
  return lifted;
}

std::size_t FreezeTable::liftKey(std::string const& key_id) {
  return liftKeyWhere(key_id, [](Freeze const&) { return true; }).size();
}

std::vector<Freeze> FreezeTable::liftKeyUnlessForever(std::string const& key_id, std::size_t& kept) {
  kept = 0;
  return liftKeyWhere(key_id, [&](Freeze const& f) {
    bool forever = f.period == config::FreezePeriod::Forever;
    if (forever) ++kept;
    return !forever;
  });
}

std::vector<Freeze> FreezeTable::list() const {
  std::lock_guard lock(mutex_);
  dropExpiredLocked(clock_.wallNow());
  return freezes_;
}

std::uint64_t FreezeTable::persistenceFailures() const {
  return persistence_ != nullptr ? persistence_->failedWrites() : 0;
}

void FreezeTable::dropExpiredLocked(WallTime now) const {
  auto keep = std::stable_partition(freezes_.begin(), freezes_.end(),
                                    [now](Freeze const& f) { return !expired(f, now); });
  if (keep == freezes_.end()) return;
  for (auto it = keep; it != freezes_.end(); ++it) forgetLocked(it->id);
  freezes_.erase(keep, freezes_.end());
  count_.store(freezes_.size(), std::memory_order_release);
}

void FreezeTable::forgetLocked(std::string const& id) const {
  if (adopting_) removed_ids_.insert(id);
  if (persistence_ != nullptr) persistence_->removeFreeze(id);
}

}  // namespace llmux::routing

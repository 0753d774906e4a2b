#include "routing/rate_limits.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

namespace llmux::routing {
namespace {

using namespace std::chrono;
using Bucket = LocalBuckets::Bucket;

constexpr double kWindowSeconds = static_cast<double>(kRateWindow.count());

std::int64_t nonNegative(std::int64_t amount) { return std::max<std::int64_t>(amount, 0); }

// --- token buckets ------------------------------------------------------------------------------

/// The level of `bucket` refilled to `now` at limit / 60 per second, capped at capacity; an absent
/// bucket is full.
double refilledLevel(std::optional<Bucket> const& bucket, std::int64_t limit, MonoTime now) {
  double capacity = static_cast<double>(limit);
  if (!bucket) return capacity;
  double elapsed = now > bucket->updated ? duration<double>(now - bucket->updated).count() : 0.0;
  return std::min(capacity, bucket->level + elapsed * capacity / kWindowSeconds);
}

/// Stores the refill to `now` (a time older than the bucket's refills nothing and is not kept).
void refill(std::optional<Bucket>& bucket, std::int64_t limit, MonoTime now) {
  double level = refilledLevel(bucket, limit, now);
  MonoTime updated = bucket ? std::max(bucket->updated, now) : now;
  bucket = Bucket{level, updated};
}

bool hasEnough(double level, double need) { return level >= need - kBucketSlack; }

/// How long until `level` reaches `need` at limit / 60 per second (>= 1 ms, rounded up).
Millis bucketWait(double level, double need, std::int64_t limit) {
  double ms = (need - level - kBucketSlack) * kWindowSeconds * 1000.0 / static_cast<double>(limit);
  ms = std::clamp(std::ceil(ms), 1.0, static_cast<double>(kMaxBucketWait.count()));
  return Millis(static_cast<Millis::rep>(ms));
}

/// What a take needs from a TPM bucket: the estimate, capped at capacity.
double tokenNeed(std::int64_t tokens, std::int64_t limit) {
  return static_cast<double>(std::min(nonNegative(tokens), limit));
}

/// Settles a TPM bucket: gives back what was taken beyond `used` (or charges the excess).
void settleBucket(std::optional<Bucket>& bucket, std::int64_t limit, std::int64_t reserved,
                  std::int64_t used, MonoTime now) {
  refill(bucket, limit, now);
  double level = bucket->level + tokenNeed(reserved, limit) - static_cast<double>(nonNegative(used));
  bucket->level = std::min(level, static_cast<double>(limit));
}

/// Whether demands[i]'s id already appeared before i (a repeated id counts once).
bool repeated(std::span<BucketDemand const> demands, std::size_t i) {
  for (std::size_t j = 0; j < i; ++j) {
    if (demands[j].id == demands[i].id) return true;
  }
  return false;
}

// --- waits on the clocks ------------------------------------------------------------------------

Millis atLeastOneMs(Millis wait) { return std::max(wait, Millis(1)); }

Millis untilMono(MonoTime now, MonoTime then) { return atLeastOneMs(ceil<Millis>(then - now)); }

Millis untilWall(WallTime now, WallTime then) { return atLeastOneMs(ceil<Millis>(then - now)); }

// --- UTC periods --------------------------------------------------------------------------------

std::int64_t utcDayIndex(WallTime t) { return floor<days>(t).time_since_epoch().count(); }

std::int64_t utcMonthIndex(WallTime t) {
  year_month_day ymd{floor<days>(t)};
  return static_cast<std::int64_t>(static_cast<int>(ymd.year())) * 12 +
         (static_cast<unsigned>(ymd.month()) - 1);
}

template <typename T>
T sumIn(T sum, std::int64_t stored_period, std::int64_t period) {
  return stored_period == period ? sum : T{};
}

}  // namespace

// --- LocalBuckets -------------------------------------------------------------------------------

BucketTake LocalBuckets::tryTake(std::span<BucketDemand const> demands, std::int64_t tokens,
                                 MonoTime now) {
  struct Need {
    std::optional<Bucket>* bucket;
    double need;
  };
  std::vector<Need> needs;
  needs.reserve(demands.size() * 2);

  std::lock_guard lock(mutex_);
  Millis wait{0};
  bool enough = true;
  auto check = [&](std::optional<Bucket>& bucket, std::int64_t limit, double need) {
    refill(bucket, limit, now);
    if (!hasEnough(bucket->level, need)) {
      enough = false;
      wait = std::max(wait, bucketWait(bucket->level, need, limit));
    }
    needs.push_back(Need{&bucket, need});
  };
  for (std::size_t i = 0; i < demands.size(); ++i) {
    BucketDemand const& demand = demands[i];
    if (!demand.limits.any() || repeated(demands, i)) continue;
    auto it = pairs_.find(demand.id);
    if (it == pairs_.end()) it = pairs_.emplace(std::string(demand.id), Pair{}).first;
    if (demand.limits.rpm > 0) check(it->second.rpm, demand.limits.rpm, 1.0);
    if (demand.limits.tpm > 0) {
      check(it->second.tpm, demand.limits.tpm, tokenNeed(tokens, demand.limits.tpm));
    }
  }
  // All or nothing: deducting only after every bucket said yes never strands a partial take.
  if (!enough) return BucketTake{false, wait};
  for (Need const& n : needs) (*n.bucket)->level -= n.need;
  return BucketTake{true, Millis(0)};
}

void LocalBuckets::settle(std::span<BucketDemand const> demands, std::int64_t reserved,
                          std::int64_t used, MonoTime now) {
  std::lock_guard lock(mutex_);
  for (std::size_t i = 0; i < demands.size(); ++i) {
    BucketDemand const& demand = demands[i];
    if (demand.limits.tpm <= 0 || repeated(demands, i)) continue;
    auto it = pairs_.find(demand.id);
    if (it == pairs_.end()) it = pairs_.emplace(std::string(demand.id), Pair{}).first;
    settleBucket(it->second.tpm, demand.limits.tpm, reserved, used, now);
  }
}

std::optional<std::pair<double, double>> LocalBuckets::levels(std::string_view id,
                                                              BucketLimits const& limits,
                                                              MonoTime now) const {
  std::lock_guard lock(mutex_);
  auto it = pairs_.find(id);
  if (it == pairs_.end()) return std::nullopt;
  constexpr double kUnlimited = std::numeric_limits<double>::infinity();
  double rpm = limits.rpm > 0 ? refilledLevel(it->second.rpm, limits.rpm, now) : kUnlimited;
  double tpm = limits.tpm > 0 ? refilledLevel(it->second.tpm, limits.tpm, now) : kUnlimited;
  return std::pair{rpm, tpm};
}

// --- ClientWindows ------------------------------------------------------------------------------

ClientSpending ClientWindows::spending(std::string_view key, WallTime wall) const {
  std::int64_t const today = utcDayIndex(wall);
  std::int64_t const this_month = utcMonthIndex(wall);
  std::lock_guard lock(mutex_);
  auto it = keys_.find(key);
  if (it == keys_.end()) return {};
  KeyState const& s = it->second;
  return {sumIn(s.tokens_today.sum, s.tokens_today.period, today),
          sumIn(s.tokens_this_month.sum, s.tokens_this_month.period, this_month),
          sumIn(s.cost_today.sum, s.cost_today.period, today),
          sumIn(s.cost_this_month.sum, s.cost_this_month.period, this_month)};
}

ClientAdmission ClientWindows::admit(std::string_view key, ClientLimits const& limits,
                                     std::int64_t estimated_tokens, MonoTime mono, WallTime wall) {
  auto refuse = [](std::string_view limit, Millis retry_after) {
    return ClientAdmission{false, limit, retry_after};
  };
  std::int64_t const today = utcDayIndex(wall);
  std::int64_t const this_month = utcMonthIndex(wall);

  std::lock_guard lock(mutex_);
  auto it = keys_.find(key);
  if (it == keys_.end()) it = keys_.emplace(std::string(key), KeyState{}).first;
  KeyState& s = it->second;

  // Every check below only reads (or brings state up to date: expired times dropped, a refill),
  // so a refusal records nothing.
  if (limits.concurrency > 0 && s.in_flight >= limits.concurrency) {
    return refuse("concurrency", kConcurrencyRetryAfter);
  }
  if (limits.rpm > 0) {
    while (!s.admissions.empty() && s.admissions.front() + kRateWindow <= mono) {
      s.admissions.pop_front();
    }
    // The newest rpm times decide exactly: the oldest of them must leave before another fits.
    while (s.admissions.size() > static_cast<std::size_t>(limits.rpm)) s.admissions.pop_front();
    if (s.admissions.size() >= static_cast<std::size_t>(limits.rpm)) {
      return refuse("rpm", untilMono(mono, s.admissions.front() + kRateWindow));
    }
  }
  if (limits.rpd > 0 &&
      sumIn(s.requests_today.sum, s.requests_today.period, today) >= limits.rpd) {
    return refuse("rpd", untilWall(wall, nextUtcMidnight(wall)));
  }
  double const token_need = limits.tpm > 0 ? tokenNeed(estimated_tokens, limits.tpm) : 0.0;
  if (limits.tpm > 0) {
    refill(s.tpm, limits.tpm, mono);
    if (!hasEnough(s.tpm->level, token_need)) {
      return refuse("tpm", bucketWait(s.tpm->level, token_need, limits.tpm));
    }
  }
  if (limits.daily_tokens > 0 &&
      sumIn(s.tokens_today.sum, s.tokens_today.period, today) >= limits.daily_tokens) {
    return refuse("daily_tokens", untilWall(wall, nextUtcMidnight(wall)));
  }
  if (limits.monthly_tokens > 0 &&
      sumIn(s.tokens_this_month.sum, s.tokens_this_month.period, this_month) >=
          limits.monthly_tokens) {
    return refuse("monthly_tokens", untilWall(wall, nextUtcMonthStart(wall)));
  }
  if (limits.daily_cost_usd > 0 &&
      sumIn(s.cost_today.sum, s.cost_today.period, today) >= limits.daily_cost_usd) {
    return refuse("daily_cost_usd", untilWall(wall, nextUtcMidnight(wall)));
  }
  if (limits.monthly_cost_usd > 0 &&
      sumIn(s.cost_this_month.sum, s.cost_this_month.period, this_month) >=
          limits.monthly_cost_usd) {
    return refuse("monthly_cost_usd", untilWall(wall, nextUtcMonthStart(wall)));
  }

  ++s.in_flight;
  if (limits.rpm > 0) {
    // Kept in order even when a thread that read the clock earlier gets here later.
    s.admissions.push_back(s.admissions.empty() ? mono : std::max(mono, s.admissions.back()));
  }
  if (limits.rpd > 0) {
    s.requests_today = {today, sumIn(s.requests_today.sum, s.requests_today.period, today) + 1};
  }
  if (limits.tpm > 0) s.tpm->level -= token_need;
  return ClientAdmission{};
}

void ClientWindows::finish(std::string_view key, ClientLimits const& limits,
                           std::int64_t estimated_tokens, std::int64_t used_tokens,
                           double cost_usd, MonoTime mono, WallTime wall) {
  std::int64_t const today = utcDayIndex(wall);
  std::int64_t const this_month = utcMonthIndex(wall);
  std::int64_t const used = nonNegative(used_tokens);
  double const cost = std::max(cost_usd, 0.0);

  std::lock_guard lock(mutex_);
  auto it = keys_.find(key);
  if (it == keys_.end()) it = keys_.emplace(std::string(key), KeyState{}).first;
  KeyState& s = it->second;

  s.in_flight = std::max<std::int64_t>(s.in_flight - 1, 0);
  if (limits.tpm > 0) settleBucket(s.tpm, limits.tpm, estimated_tokens, used, mono);
  auto add = [](auto& period_sum, std::int64_t period, auto amount) {
    period_sum = {period, sumIn(period_sum.sum, period_sum.period, period) + amount};
  };
  if (limits.daily_tokens > 0) add(s.tokens_today, today, used);
  if (limits.monthly_tokens > 0) add(s.tokens_this_month, this_month, used);
  if (limits.daily_cost_usd > 0) add(s.cost_today, today, cost);
  if (limits.monthly_cost_usd > 0) add(s.cost_this_month, this_month, cost);
}

std::int64_t ClientWindows::inFlight(std::string_view key) const {
  std::lock_guard lock(mutex_);
  auto it = keys_.find(key);
  return it == keys_.end() ? 0 : it->second.in_flight;
}

// --- UTC calendar -------------------------------------------------------------------------------

WallTime nextUtcMidnight(WallTime t) {
  return time_point_cast<WallClock::duration>(floor<days>(t) + days{1});
}

WallTime nextUtcMonthStart(WallTime t) {
  year_month_day today{floor<days>(t)};
  year_month next = year_month{today.year(), today.month()} + months{1};
  return time_point_cast<WallClock::duration>(sys_days{next / 1});
}

std::string utcDayStamp(WallTime t) {
  year_month_day ymd{floor<days>(t)};
  char out[16];
  std::snprintf(out, sizeof out, "%04d-%02u-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()));
  return out;
}

std::string utcMonthStamp(WallTime t) {
  year_month_day ymd{floor<days>(t)};
  char out[16];
  std::snprintf(out, sizeof out, "%04d-%02u", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()));
  return out;
}

}  // namespace llmux::routing

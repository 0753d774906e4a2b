#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "config/settings.h"
#include "core/clock.h"

// The gateway's own rate limits, in process. A Redis version (several replicas sharing the
// limits) implements the same semantics; the comments below are its specification, so every rule
// is written out, including the edge cases.
//
// Common rules
// - A limit <= 0 is no limit (that dimension is not tracked at all).
// - Waits and retry-afters are rounded up to whole milliseconds and are at least 1 ms.
// - Token amounts (`tokens`, `reserved`, `used`, estimates) and costs below 0 count as 0.
// - A time older than the one a state was last updated with (two threads that read the clock in
//   one order and take the lock in the other) refills nothing and does not move the state's time
//   back.
//
// Token buckets (both the upstream pairs and the gateway key's TPM)
// - capacity = the per-minute limit; refill continuous at limit / 60 per second (double); an
//   unknown bucket starts full; the level never exceeds capacity after a refill or a settle.
// - Refill uses the limit of the current call, so a changed limit applies at once; a level above
//   a lowered capacity is cut to it at the next refill.
// - "Has enough" means level >= need - kBucketSlack (double rounding of many small refills must
//   not refuse a request that waited exactly the announced wait).
// - Wait of one bucket = ceil_ms((need - level - kBucketSlack) * 60 s / limit), at least 1 ms
//   (and at most kMaxBucketWait, a guard against overflow after a huge overdraft).

namespace llmux::routing {

/// Per-minute windows and refills: the limits are "per minute" (rpm, tpm).
inline constexpr std::chrono::seconds kRateWindow{60};
/// Tolerance in tokens when comparing a bucket's level with a need (see above).
inline constexpr double kBucketSlack = 1e-9;
/// The longest bucket wait reported (~31 years): only a level driven far below zero by a wildly
/// wrong estimate gets near it; it keeps the double-to-integer conversion defined.
inline constexpr Millis kMaxBucketWait{1'000'000'000'000};
/// Retry-after of a refusal for concurrency: a slot frees when some request ends, which no clock
/// predicts; 1 s is the product's documented answer.
inline constexpr Millis kConcurrencyRetryAfter{1000};

/// The limits of one bucket pair (config: a key's `rpm`/`tpm`, a channel's `model_limits`).
/// 0 = that dimension unlimited.
using BucketLimits = config::BucketLimits;

/// One bucket pair an attempt needs. `id` e.g. "key:<channel key id>" or
/// "model:<channel>/<model>". Pairs of the same id are one pair whatever the caller says: within
/// one call, a repeated id counts once (its first occurrence).
struct BucketDemand {
  std::string_view id;
  BucketLimits limits;
};

/// The answer of LocalBuckets::tryTake.
struct BucketTake {
  bool taken = false;  ///< true: every bucket of every demand was deducted
  Millis wait{0};      ///< when not taken: until every bucket involved has enough (>= 1 ms)
};

/// Thread-safe table of upstream bucket pairs by id (one mutex; pairs are created lazily, full).
///
/// Semantics of a take (`tokens` = the request's estimated tokens):
/// - Each limited demand needs 1 from its RPM bucket and min(tokens, tpm) from its TPM bucket
///   (a demand above capacity needs a full bucket; otherwise it could never pass).
/// - All or nothing, across both buckets of a pair and across all pairs of the call: every
///   bucket is refilled to `now`; if any lacks, nothing is deducted and `wait` is the largest
///   wait of the lacking buckets; else all are deducted.
/// - Refilling to `now` is stored even on a refusal (it changes no later answer).
///
/// Semantics of a settle (after an answer; a failed attempt is simply not settled):
/// - Each TPM bucket of the demands: refill to `now`, then level += min(reserved, tpm) - used,
///   then cap at capacity. `reserved` is the `tokens` of the take and is capped as the take
///   capped it, so exactly what was taken is accounted. The level may go negative (used above
///   the estimate); it then refills normally.
/// - RPM buckets are never touched. An unknown pair starts full (as in a take).
///
/// The table keeps one entry per id ever seen; ids come from the configuration (keys, models),
/// so it stays small.
class LocalBuckets {
 public:
  /// Takes 1 request and `tokens` tokens from every pair of `demands`, or nothing.
  BucketTake tryTake(std::span<BucketDemand const> demands, std::int64_t tokens, MonoTime now);
  /// Returns (or charges) the difference between `reserved` and `used` to the TPM buckets.
  void settle(std::span<BucketDemand const> demands, std::int64_t reserved, std::int64_t used,
              MonoTime now);
  /// Current levels (tests, admin): rpm level, tpm level of one id after refilling to now
  /// (nothing stored); nullopt when the id is unknown. An unlimited dimension reads as +infinity;
  /// a limited dimension never used yet reads as its capacity.
  std::optional<std::pair<double, double>> levels(std::string_view id, BucketLimits const& limits,
                                                  MonoTime now) const;

  /// One bucket: level and the time it was refilled to. Absent (nullopt) = full.
  struct Bucket {
    double level = 0;
    MonoTime updated{};
  };

 private:
  struct Pair {
    std::optional<Bucket> rpm;
    std::optional<Bucket> tpm;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  mutable std::mutex mutex_;
  std::unordered_map<std::string, Pair, Hash, std::equal_to<>> pairs_;
};

/// A gateway key's `limits:` (config). 0 = no limit.
using ClientLimits = config::ClientLimits;

/// The answer of ClientWindows::admit.
struct ClientAdmission {
  bool admitted = true;
  /// "" when admitted, else the first limit that refused: "concurrency" | "rpm" | "rpd" | "tpm" |
  /// "daily_tokens" | "monthly_tokens" | "daily_cost_usd" | "monthly_cost_usd" (static strings).
  std::string_view limit;
  Millis retry_after{0};  ///< when refused: >= 1 ms
};

/// A gateway key's spending against its budgets (the alert loop's `budget` alert).
struct ClientSpending {
  std::int64_t tokens_today = 0;
  std::int64_t tokens_this_month = 0;
  double cost_today = 0;
  double cost_this_month = 0;
};

/// Thread-safe per gateway key windows (one mutex; a key's state is created by its first admit or
/// finish and kept: keys come from the configuration). Semantics, for each configured limit:
/// - concurrency: requests in flight < concurrency. Every admission takes a slot and every finish
///   releases one (counted even without a concurrency limit, so a limit added by a reload never
///   sees a release without its take; never below 0). Retry-after kConcurrencyRetryAfter.
/// - rpm: sliding window over the monotonic clock, exact: admitted when fewer than rpm admissions
///   happened in (mono - 60 s, mono] (an admission exactly 60 s old has left). Only the newest
///   rpm admission times are kept (enough to decide exactly, also after a lowered limit).
///   Retry-after = until the oldest kept time leaves the window (time + 60 s - mono).
/// - rpd: admissions per UTC calendar day of `wall` (day = utcDayStamp). Admitted when the day's
///   count < rpd. Retry-after = until nextUtcMidnight(wall).
/// - tpm: a token bucket (rules above) of capacity tpm; admission needs min(estimate, tpm) and
///   deducts it; finish settles it with level += min(estimate, tpm) - used (capped at capacity).
/// - daily_tokens / monthly_tokens: used tokens summed per UTC day / UTC month (utcMonthStamp);
///   daily_cost_usd / monthly_cost_usd: cost summed likewise. Refused while spent >= budget.
///   Retry-after = until nextUtcMidnight / nextUtcMonthStart of `wall`. Spending is added at
///   finish, to the day and month of the finish's `wall`.
/// - Admission checks every limit in the order above (concurrency, rpm, rpd, tpm, daily_tokens,
///   monthly_tokens, daily_cost_usd, monthly_cost_usd) and refuses with the first that fails; a
///   refusal records nothing (no slot, no rpm time, no rpd count, no tokens).
/// - An admission records: a slot; if rpm, the time; if rpd, +1 on the day; if tpm, the deduction.
///   A counter is kept only while its limit is set (a limit added later starts from zero).
class ClientWindows {
 public:
  /// Admits a request of gateway key `key` (estimated `estimated_tokens`) or says which limit
  /// refused and when to retry.
  ClientAdmission admit(std::string_view key, ClientLimits const& limits,
                        std::int64_t estimated_tokens, MonoTime mono, WallTime wall);
  /// After an admitted request ends (answered, failed or abandoned): releases its slot, settles
  /// TPM (estimate vs used), adds used tokens and cost to the budgets.
  void finish(std::string_view key, ClientLimits const& limits, std::int64_t estimated_tokens,
              std::int64_t used_tokens, double cost_usd, MonoTime mono, WallTime wall);
  /// In-flight count of a key (tests, metrics); 0 for an unknown key.
  std::int64_t inFlight(std::string_view key) const;
  /// What a key spent in `wall`'s UTC day and month, as its budgets count it (a sum is kept only
  /// while its budget is set); zeros for an unknown key.
  ClientSpending spending(std::string_view key, WallTime wall) const;

 private:
  /// A sum over one UTC day or month: `period` is the day (days since the epoch) or month
  /// (months since year 0) it belongs to; another period reads as zero.
  template <typename T>
  struct PeriodSum {
    std::int64_t period = 0;
    T sum{};
  };
  struct KeyState {
    std::int64_t in_flight = 0;
    std::deque<MonoTime> admissions;  ///< rpm window, oldest first
    PeriodSum<std::int64_t> requests_today;
    std::optional<LocalBuckets::Bucket> tpm;
    PeriodSum<std::int64_t> tokens_today, tokens_this_month;
    PeriodSum<double> cost_today, cost_this_month;
  };
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  mutable std::mutex mutex_;
  std::unordered_map<std::string, KeyState, Hash, std::equal_to<>> keys_;
};

// --- UTC calendar (shared with the Redis version, which needs the same window boundaries) -------

/// The next 00:00 UTC strictly after `t` (at midnight exactly: the following one).
WallTime nextUtcMidnight(WallTime t);
/// 00:00 UTC on the 1st of the month after `t`'s UTC month.
WallTime nextUtcMonthStart(WallTime t);
/// `t`'s UTC day, "2026-12-02".
std::string utcDayStamp(WallTime t);
/// `t`'s UTC month, "2026-12".
std::string utcMonthStamp(WallTime t);

}  // namespace llmux::routing

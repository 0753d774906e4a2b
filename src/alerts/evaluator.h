#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"

namespace llmux::alerts {

/// Counts that only grow, as the process has them when an evaluation starts. Rates and the p95
/// come from their differences over the window, as Prometheus's `increase()` would.
struct Counts {
  std::uint64_t success = 0;  ///< client outcome success (telemetry/client_outcome.h)
  std::uint64_t failed = 0;   ///< client outcome failed
  std::uint64_t answers =
      0;  ///< client answers on model routes (llmux_requests_total{protocol!=""})
  std::uint64_t answers_429 = 0;  ///< of which 429
  /// llmux_client_first_token_seconds: observations per bucket (not cumulative), the last one the
  /// overflow; successes only, so a fast failure never looks like a recovery.
  std::vector<std::uint64_t> first_token;
  /// Request-log and access-log records, and captured payload bodies, dropped or not written.
  std::uint64_t records_lost = 0;
};

/// A gateway key's spending against one of its budgets.
struct BudgetUse {
  std::string key;     ///< the gateway key's name
  std::string budget;  ///< "daily_tokens", "monthly_tokens", "daily_cost_usd", "monthly_cost_usd"
  double used = 0;
  double limit = 0;
};

/// What one evaluation looks at.
struct Observation {
  Counts counts;
  std::vector<std::string>
      breakers_not_closed;               ///< "<channel>/<model>" of breakers open or half-open
  /// Models no candidate of which could serve: each one's breaker is not closed, or every key of
  /// its channel is frozen or paused for the model.
  std::vector<std::string> models_down;
  bool redis_configured = false;
  bool redis_active = false;
  /// `database:` is configured, and whether the request log's writer reaches it.
  bool database_configured = false;
  bool database_active = false;
  /// Budgets to judge; nullopt when this replica cannot read them (then the alert is left as it
  /// was, not resolved).
  std::optional<std::vector<BudgetUse>> budgets;
  /// With Redis, the budgets whose spending is kept there (`used` not known yet): the alert loop
  /// reads them and fills `budgets`.
  std::vector<BudgetUse> budgets_in_redis;
};

/// The built-in alerts (docs/operations.md, SLOs and alerts).
enum class AlertName : unsigned char {
  FirstTokenP95,      ///< first_token_p95: over the target (enough samples) or the ceiling
  ErrorBudgetBurn,    ///< error_budget_burn: failed share / (1 - target) over the window
  BreakerOpen,        ///< breaker_open: not closed for breaker_open_ms (per channel/model)
  ModelDown,          ///< model_down: every candidate of a model down (per model)
  RateLimitedShare,   ///< rate_limited_share: 429 answers' share over the window
  RedisFallback,      ///< redis_fallback: shared limits degraded to this process's own
  DatabaseUnreachable,  ///< database_unreachable: PostgreSQL does not answer (rows queue, freezes unshared)
  RecordsLost,        ///< records_lost: request-log or access-log records lost in the window
  BudgetNearlySpent,  ///< budget: a gateway key at budget_share of a budget (per key/budget)
};
inline constexpr AlertName kAllAlerts[] = {
    AlertName::FirstTokenP95, AlertName::ErrorBudgetBurn,  AlertName::BreakerOpen,
    AlertName::ModelDown,     AlertName::RateLimitedShare, AlertName::RedisFallback,
    AlertName::DatabaseUnreachable, AlertName::RecordsLost, AlertName::BudgetNearlySpent};
std::string_view alertNameText(AlertName name);

/// One message to send: an alert firing (first time, or again after its cooldown) or resolved.
struct AlertMessage {
  AlertName alert = AlertName::FirstTokenP95;
  std::string
      subject;  ///< what it is about ("" for process-wide alerts, "c/m", a model, "key/budget")
  bool firing = true;   ///< false: resolved
  std::string summary;  ///< one line for humans
  double value = 0;     ///< the measured value (seconds, ratio, burn rate, ...)
  double threshold = 0;
  WallTime at{};
};

/// The measurements of the last evaluation, for the gauges.
struct Measurements {
  double burn_rate = 0;                   ///< 0 without a sample
  std::optional<double> first_token_p95;  ///< seconds; nullopt without a sample
  std::uint64_t first_token_samples = 0;
  std::map<AlertName, int> active;  ///< subjects whose condition holds, by alert
};

/// The alert loop's logic without I/O: fed one Observation per interval on a clock the caller
/// owns (tests: a manual one), it says which messages to send. Per alert and subject, a firing
/// message when the condition starts to hold (and again every `cooldown` while it holds), at
/// most one per cooldown; a resolved message when it stops holding after a firing message.
/// A condition that cannot be judged (fewer than min_samples in the window, budgets not read)
/// keeps its state: too few samples is no news, and never a recovery.
///
/// Thread safety: one thread (the alert loop).
class Evaluator {
 public:
  /// `bounds` are the first-token histogram's upper bounds (seconds), as Counts::first_token is
  /// bucketed. `start` is when the counts were all zero (the process's start).
  Evaluator(config::SloSettings slo, config::AlertSettings settings, std::span<double const> bounds,
            MonoTime start);

  /// A reload's targets and thresholds; the window's history and the alerts' states stay.
  void reconfigure(config::SloSettings slo, config::AlertSettings settings);

  std::vector<AlertMessage> evaluate(MonoTime now, WallTime wall, Observation const& observation);

  Measurements const& measurements() const { return measurements_; }

  /// The p95 of a bucketed distribution as Prometheus's histogram_quantile computes it (linear
  /// inside the bucket; the overflow bucket gives the highest bound). nullopt when empty.
  static std::optional<double> quantile(double q, std::span<std::uint64_t const> buckets,
                                        std::span<double const> bounds);

 private:
  struct State {
    bool holds = false;
    bool notified = false;  ///< a firing message went out and no resolve since
    std::optional<MonoTime> last_fired;
  };
  struct Condition {
    AlertName alert;
    std::string subject;
    std::string summary;
    double value = 0;
    double threshold = 0;
  };

  /// The counts `window` ago (the newest kept at or before then; the oldest when younger).
  Counts const& baseline(MonoTime now) const;
  void judge(MonoTime now, WallTime wall, std::vector<Condition> const& holding,
             std::vector<AlertName> const& unknown, std::vector<AlertMessage>& out);

  config::SloSettings slo_;
  config::AlertSettings settings_;
  std::span<double const> bounds_;
  std::deque<std::pair<MonoTime, Counts>> history_;
  std::map<std::string, MonoTime> not_closed_since_;  ///< breakers seen not closed, since when
  std::map<std::pair<AlertName, std::string>, State> states_;
  Measurements measurements_;
};

}  // namespace llmux::alerts

#include "alerts/evaluator.h"

#include <fmt/format.h>

#include <algorithm>

namespace llmux::alerts {
namespace {

std::uint64_t minus(std::uint64_t now, std::uint64_t then) {
  return now > then ? now - then : 0;
}

double seconds(Millis ms) {
  return std::chrono::duration<double>(ms).count();
}

std::string percent(double ratio) {
  return fmt::format("{:.3g} %", ratio * 100);
}

}  // namespace

std::string_view alertNameText(AlertName name) {
  switch (name) {
    case AlertName::FirstTokenP95:
      return "first_token_p95";
    case AlertName::ErrorBudgetBurn:
      return "error_budget_burn";
    case AlertName::BreakerOpen:
      return "breaker_open";
    case AlertName::ModelDown:
      return "model_down";
    case AlertName::RateLimitedShare:
      return "rate_limited_share";
    case AlertName::RedisFallback:
      return "redis_fallback";
    case AlertName::DatabaseUnreachable:
      return "database_unreachable";
    case AlertName::RecordsLost:
      return "records_lost";
    case AlertName::BudgetNearlySpent:
      return "budget";
  }
  return "unknown";
}

Evaluator::Evaluator(config::SloSettings slo, config::AlertSettings settings,
                     std::span<double const> bounds, MonoTime start)
    : slo_(slo), settings_(std::move(settings)), bounds_(bounds) {
  history_.emplace_back(start, Counts{});
}

void Evaluator::reconfigure(config::SloSettings slo, config::AlertSettings settings) {
  slo_ = slo;
  settings_ = std::move(settings);
}

std::optional<double> Evaluator::quantile(double q, std::span<std::uint64_t const> buckets,
                                          std::span<double const> bounds) {
  std::uint64_t total = 0;
  for (auto n : buckets) total += n;
  if (total == 0 || bounds.empty()) return std::nullopt;
  double const rank = q * static_cast<double>(total);
  std::uint64_t below = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    if (static_cast<double>(below + buckets[i]) >= rank && buckets[i] > 0) {
      if (i >= bounds.size()) return bounds.back();  // the overflow bucket
      double lower = i == 0 ? 0 : bounds[i - 1];
      double upper = bounds[i];
      return lower + (upper - lower) * (rank - static_cast<double>(below)) /
                         static_cast<double>(buckets[i]);
    }
    below += buckets[i];
  }
  return bounds.back();
}

Counts const& Evaluator::baseline(MonoTime now) const {
  MonoTime const since = now - settings_.window;
  Counts const* found = &history_.front().second;
  for (auto const& [at, counts] : history_) {
    if (at > since) break;
    found = &counts;
  }
  return *found;
}

std::vector<AlertMessage> Evaluator::evaluate(MonoTime now, WallTime wall,
                                              Observation const& observation) {
  Counts const& current = observation.counts;
  // Keep one entry at or before the window's start: it is the baseline.
  while (history_.size() > 1 && history_[1].first <= now - settings_.window) history_.pop_front();
  Counts const& base = baseline(now);
  double const window_s = seconds(settings_.window);
  std::vector<Condition> holding;
  std::vector<AlertName> unknown;

  // First token: successes only (Counts::first_token never holds a failure).
  std::vector<std::uint64_t> buckets(current.first_token.size());
  std::uint64_t samples = 0;
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    buckets[i] =
        minus(current.first_token[i], i < base.first_token.size() ? base.first_token[i] : 0);
    samples += buckets[i];
  }
  measurements_.first_token_samples = samples;
  measurements_.first_token_p95 = quantile(0.95, buckets, bounds_);
  if (auto p95 = measurements_.first_token_p95) {
    double const target = seconds(slo_.first_token_p95);
    double const ceiling = seconds(settings_.first_token_ceiling);
    if (*p95 > ceiling) {
      holding.push_back({AlertName::FirstTokenP95, "",
                         fmt::format("first-token p95 {:.3g} s over the last {:g} s ({} successful "
                                     "streams) is above the ceiling {:g} s",
                                     *p95, window_s, samples, ceiling),
                         *p95, ceiling});
    } else if (samples < static_cast<std::uint64_t>(settings_.min_samples)) {
      unknown.push_back(AlertName::FirstTokenP95);
    } else if (*p95 > target) {
      holding.push_back({AlertName::FirstTokenP95, "",
                         fmt::format("first-token p95 {:.3g} s over the last {:g} s ({} successful "
                                     "streams) is above the target {:g} s",
                                     *p95, window_s, samples, target),
                         *p95, target});
    }
  } else {
    // No success in the window (an outage fails fast): no news, certainly not a recovery.
    unknown.push_back(AlertName::FirstTokenP95);
  }

  // Error budget: only success and failed are in the denominator.
  std::uint64_t const success = minus(current.success, base.success);
  std::uint64_t const failed = minus(current.failed, base.failed);
  std::uint64_t const counted = success + failed;
  double const budget = 1 - slo_.success_rate;
  measurements_.burn_rate =
      counted == 0 ? 0 : static_cast<double>(failed) / static_cast<double>(counted) / budget;
  if (counted < static_cast<std::uint64_t>(settings_.min_samples)) {
    unknown.push_back(AlertName::ErrorBudgetBurn);
  } else if (measurements_.burn_rate >= settings_.burn_rate) {
    holding.push_back(
        {AlertName::ErrorBudgetBurn, "",
         fmt::format("error budget burning {:.3g}x: {} of {} requests failed over the last {:g} s "
                     "(success rate target {})",
                     measurements_.burn_rate, failed, counted, window_s,
                     percent(slo_.success_rate)),
         measurements_.burn_rate, settings_.burn_rate});
  }

  // Breakers: how long each has not been closed, as seen by the evaluations.
  std::map<std::string, MonoTime> still_open;
  for (auto const& pair : observation.breakers_not_closed) {
    auto it = not_closed_since_.find(pair);
    MonoTime since = it == not_closed_since_.end() ? now : it->second;
    still_open.emplace(pair, since);
    if (now - since >= settings_.breaker_open) {
      double open_s = std::chrono::duration<double>(now - since).count();
      holding.push_back({AlertName::BreakerOpen, pair,
                         fmt::format("the breaker of {} has not closed for {:.0f} s", pair, open_s),
                         open_s, seconds(settings_.breaker_open)});
    }
  }
  not_closed_since_ = std::move(still_open);

  for (auto const& model : observation.models_down) {
    holding.push_back({AlertName::ModelDown, model,
                       fmt::format("every candidate of model {} is down: each channel serving it "
                                   "has a breaker open or half-open",
                                   model),
                       1, 1});
  }

  std::uint64_t const answers = minus(current.answers, base.answers);
  std::uint64_t const limited = minus(current.answers_429, base.answers_429);
  if (answers < static_cast<std::uint64_t>(settings_.min_samples)) {
    unknown.push_back(AlertName::RateLimitedShare);
  } else {
    double share = static_cast<double>(limited) / static_cast<double>(answers);
    if (share > settings_.rate_limited_share) {
      holding.push_back({AlertName::RateLimitedShare, "",
                         fmt::format("{} of {} answers over the last {:g} s were 429 ({}; "
                                     "threshold {})",
                                     limited, answers, window_s, percent(share),
                                     percent(settings_.rate_limited_share)),
                         share, settings_.rate_limited_share});
    }
  }

  if (observation.redis_configured && !observation.redis_active) {
    holding.push_back({AlertName::RedisFallback, "",
                       "shared limits fell back to this replica's own: Redis does not answer "
                       "(each replica now grants the full limits)",
                       1, 1});
  }

  if (observation.database_configured && !observation.database_active) {
    holding.push_back({AlertName::DatabaseUnreachable, "",
                       "PostgreSQL does not answer: request-log rows queue (and drop once the "
                       "queue is full) and freezes are not shared between replicas",
                       1, 1});
  }

  std::uint64_t const lost = minus(current.records_lost, base.records_lost);
  if (lost > 0) {
    holding.push_back({AlertName::RecordsLost, "",
                       fmt::format("{} request-log, access-log or payload records lost over the last {:g} s",
                                   lost, window_s),
                       static_cast<double>(lost), 0});
  }

  if (observation.budgets) {
    for (BudgetUse const& use : *observation.budgets) {
      if (use.limit <= 0) continue;
      double share = use.used / use.limit;
      if (share >= settings_.budget_share) {
        holding.push_back({AlertName::BudgetNearlySpent, use.key + "/" + use.budget,
                           fmt::format("gateway key {} has used {} of its {} budget ({:g} of {:g})",
                                       use.key, percent(share), use.budget, use.used, use.limit),
                           share, settings_.budget_share});
      }
    }
  } else {
    unknown.push_back(AlertName::BudgetNearlySpent);
  }

  history_.emplace_back(now, current);
  std::vector<AlertMessage> out;
  judge(now, wall, holding, unknown, out);
  return out;
}

void Evaluator::judge(MonoTime now, WallTime wall, std::vector<Condition> const& holding,
                      std::vector<AlertName> const& unknown, std::vector<AlertMessage>& out) {
  measurements_.active.clear();
  for (auto& [key, state] : states_) state.holds = false;
  for (Condition const& condition : holding) {
    ++measurements_.active[condition.alert];
    State& state = states_[{condition.alert, condition.subject}];
    state.holds = true;
    bool due = !state.last_fired || now - *state.last_fired >= settings_.cooldown;
    if (!due) continue;  // within the cooldown: a flapping condition is told once
    state.notified = true;
    state.last_fired = now;
    out.push_back({condition.alert, condition.subject, true, condition.summary, condition.value,
                   condition.threshold, wall});
  }
  for (auto it = states_.begin(); it != states_.end();) {
    auto& [key, state] = *it;
    bool const unknowable = std::find(unknown.begin(), unknown.end(), key.first) != unknown.end();
    if (!state.holds && unknowable) {
      state.holds = state.notified;  // not measured this time: left as it was
      if (state.notified) ++measurements_.active[key.first];
    }
    if (!state.holds && state.notified) {
      std::string what = std::string(alertNameText(key.first));
      if (!key.second.empty()) what += " (" + key.second + ")";
      out.push_back({key.first, key.second, false, what + " has cleared", 0, 0, wall});
      state.notified = false;
    }
    // A state that neither holds nor waits for a cooldown to pass is forgotten.
    if (!state.holds && !state.notified &&
        (!state.last_fired || now - *state.last_fired >= settings_.cooldown)) {
      it = states_.erase(it);
    } else {
      ++it;
    }
  }
}

}  // namespace llmux::alerts

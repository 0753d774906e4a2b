#pragma once

// The factors of the intelligent and fast strategies, as pure functions of plain numbers, and
// the one place their constants live. The planner multiplies them into a candidate's score.

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <optional>

#include "config/settings.h"

namespace llmux::routing {

/// Every routing constant, with the reason for its value. Unless said otherwise the numbers are
/// the product specification's (the routing issue, sections 2 and 3); the others are ours.
namespace scoring_constants {

// Factor 2, consecutive failures: weight × base^n. Spec: 0.8 for intelligent; fast forgives less
// (0.7) because a failing candidate is also a slow one for the client.
inline constexpr double kIntelligentFailureBase = 0.8;
inline constexpr double kFastFailureBase = 0.7;

// Factor 3, window cooldown. Spec: 2 failures (not necessarily consecutive) within 5 minutes put
// the (key, model) on cooldown for 15 s, 15 s more per repeat, at most 120 s.
inline constexpr int kWindowFailures = 2;
inline constexpr std::chrono::milliseconds kFailureWindow{300'000};
inline constexpr std::chrono::milliseconds kCooldownStep{15'000};
inline constexpr std::chrono::milliseconds kCooldownMax{120'000};
// Ours: a cooling candidate is not dropped (it may be the last one left) but ranked after every
// other; a zero factor does that.
inline constexpr double kCooldownFactor = 0.0;

// Factor 4, session affinity. Ours: ×4 keeps a session on its key (its prompt cache) against the
// usual spread of the other factors (a 2 s key against a 0.2 s one is ×0.55, the model boost of the
// other keys ×1.5); a key that failed for the session loses every boost and gets ×0.3, so one
// failure moves the session; 2 consecutive failures for the session exclude the key for it
// (spec: affinity never pins a session to a dead key). The session's key never yields (factor 7):
// its prompt cache is worth more than spreading the load.
inline constexpr double kSessionAffinityBoost = 4.0;
inline constexpr double kSessionFailurePenalty = 0.3;
inline constexpr int kSessionExcludeAfter = 2;
// Factor 5, upstream-model affinity. Ours: weaker than key affinity (another key of the same
// model may share a provider-side cache; another model never does).
inline constexpr double kModelAffinityBoost = 1.5;
// Ours: sessions kept at most, and forgotten after this idle time (bounded memory).
inline constexpr std::size_t kMaxSessions = 100'000;
inline constexpr std::chrono::milliseconds kSessionIdleTtl{3'600'000};

// Factor 6, billing. Spec: per_request accounts win for long prompts, crossing over at about
// 2,000 prompt tokens; the factor is prompt/2000 clamped (ours) to [0.25, 4] so billing alone never
// outweighs the health factors. A daily quota below 20 % remaining multiplies by 0.3 (spec).
inline constexpr double kBillingCrossoverTokens = 2000;
inline constexpr double kBillingMinFactor = 0.25;
inline constexpr double kBillingMaxFactor = 4.0;
inline constexpr double kLowQuotaFraction = 0.2;
inline constexpr double kLowQuotaFactor = 0.3;

// Factor 7, success yield. Ours: after 10 successes in a row a key gives up 15 % of its score, so
// an equal neighbour takes the lead and no key is hammered; once every key of the pool has such a
// run the factor is the same for all and cancels out.
inline constexpr int kYieldAfterSuccesses = 10;
inline constexpr double kYieldFactor = 0.85;

// Factor 9, latency learning (docs/racing.md): a (key, model) that kept losing races or passing
// its family's first-token threshold gives up 15 % of its score. Soft: slowness is not a missing
// capability, so it never excludes.
inline constexpr double kSlowLatencyFactor = 0.85;

// Factor 8, performance. Ours: an EWMA weight of 0.1 per attempt remembers about the last 10
// attempts; the latency scale is where the factor halves (2 s first token for intelligent, 0.5 s
// for fast, whose factor is also squared so that speed dominates its score).
inline constexpr double kSuccessEwmaAlpha = 0.1;
inline constexpr double kLatencyEwmaAlpha = 0.2;
inline constexpr double kIntelligentLatencyScaleMs = 2000;
inline constexpr double kFastLatencyScaleMs = 500;
// Spec: fast explores with a small share; ours: 5 % of plans promote a random other candidate.
inline constexpr double kFastExploration = 0.05;

// Factor 1, headroom: an upstream that says "0 remaining" without a reset time is left alone this
// long (ours: OpenAI's and Anthropic's windows are one minute).
inline constexpr std::chrono::milliseconds kDefaultUpstreamReset{60'000};
// Ours: the RPM/TPM windows of a key's own limits.
inline constexpr std::chrono::milliseconds kRateWindow{60'000};

}  // namespace scoring_constants

// The factors are inline: the planner computes them for every candidate of every request.

namespace scoring_detail {

/// base^n for the small n that matter, without calling pow on the planning path.
template <int N>
constexpr std::array<double, N> powers(double base) {
  std::array<double, N> table{};
  double value = 1;
  for (auto& entry : table) {
    entry = value;
    value *= base;
  }
  return table;
}

inline constexpr auto kIntelligentPowers = powers<32>(scoring_constants::kIntelligentFailureBase);
inline constexpr auto kFastPowers = powers<32>(scoring_constants::kFastFailureBase);

}  // namespace scoring_detail

/// Factor 2: base^n after n consecutive failures of the (key, model) (1 when n = 0).
inline double failureFactor(int consecutive_failures, config::Strategy strategy) {
  namespace sc = scoring_constants;
  if (consecutive_failures <= 0) return 1;
  bool fast = strategy == config::Strategy::Fast;
  auto const& table = fast ? scoring_detail::kFastPowers : scoring_detail::kIntelligentPowers;
  if (consecutive_failures < static_cast<int>(table.size())) return table[consecutive_failures];
  return std::pow(fast ? sc::kFastFailureBase : sc::kIntelligentFailureBase, consecutive_failures);
}

/// Factor 3: kCooldownFactor while on cooldown, else 1.
inline double cooldownFactor(bool cooling) { return cooling ? scoring_constants::kCooldownFactor : 1.0; }

/// The cooldown a window failure trigger starts: 15 s × (repeat + 1), at most 120 s (repeat 0 is
/// the first cooldown).
std::chrono::milliseconds cooldownDuration(int repeat);

/// Factors 4 and 5 combined: the larger of the key boost (this key served the session last) and
/// the model boost (the session's last upstream model); kSessionFailurePenalty instead once the
/// key failed for the session, 0 once excluded.
inline double affinityFactor(bool session_last_key, bool session_last_model, int session_failures) {
  namespace sc = scoring_constants;
  if (session_failures >= sc::kSessionExcludeAfter) return 0;
  if (session_failures > 0) return sc::kSessionFailurePenalty;
  return std::max(session_last_key ? sc::kSessionAffinityBoost : 1.0,
                  session_last_model ? sc::kModelAffinityBoost : 1.0);
}

/// Factor 6: the billing preference for the prompt size, times the low-quota penalty.
/// `quota_remaining` is the remaining fraction of the daily quota (nullopt: no quota).
inline double billingFactor(config::Billing billing, std::int64_t prompt_tokens,
                            std::optional<double> quota_remaining) {
  namespace sc = scoring_constants;
  double factor = 1;
  if (billing == config::Billing::PerRequest) {
    factor = std::clamp(static_cast<double>(prompt_tokens) / sc::kBillingCrossoverTokens,
                        sc::kBillingMinFactor, sc::kBillingMaxFactor);
  }
  if (quota_remaining && *quota_remaining < sc::kLowQuotaFraction) factor *= sc::kLowQuotaFactor;
  return factor;
}

/// Factor 7: kYieldFactor after a run of kYieldAfterSuccesses successes, else 1.
inline double yieldFactor(int success_streak) {
  namespace sc = scoring_constants;
  return success_streak >= sc::kYieldAfterSuccesses ? sc::kYieldFactor : 1.0;
}

/// Factor 8: the decayed success rate times a latency factor (unknown latency: neutral 1).
inline double performanceFactor(double success_rate, std::optional<double> first_token_ms,
                                config::Strategy strategy) {
  namespace sc = scoring_constants;
  double rate = std::clamp(success_rate, 0.0, 1.0);
  if (strategy == config::Strategy::Fast) {
    double latency = first_token_ms ? 1 / (1 + *first_token_ms / sc::kFastLatencyScaleMs) : 1;
    return rate * latency * latency;
  }
  double latency = first_token_ms ? 1 / (1 + *first_token_ms / sc::kIntelligentLatencyScaleMs) : 1;
  return rate * latency;
}

/// Factor 9: kSlowLatencyFactor for a (key, model) latency learning marked degraded, else 1.
inline double latencyFactor(bool degraded) {
  return degraded ? scoring_constants::kSlowLatencyFactor : 1.0;
}

}  // namespace llmux::routing

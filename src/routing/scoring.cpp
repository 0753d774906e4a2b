#include "routing/scoring.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace llmux::routing {

namespace sc = scoring_constants;

namespace {

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

constexpr auto kIntelligentPowers = powers<32>(sc::kIntelligentFailureBase);
constexpr auto kFastPowers = powers<32>(sc::kFastFailureBase);

}  // namespace

double failureFactor(int consecutive_failures, config::Strategy strategy) {
  if (consecutive_failures <= 0) return 1;
  bool fast = strategy == config::Strategy::Fast;
  auto const& table = fast ? kFastPowers : kIntelligentPowers;
  if (consecutive_failures < static_cast<int>(table.size())) return table[consecutive_failures];
  return std::pow(fast ? sc::kFastFailureBase : sc::kIntelligentFailureBase, consecutive_failures);
}

double cooldownFactor(bool cooling) { return cooling ? sc::kCooldownFactor : 1.0; }

std::chrono::milliseconds cooldownDuration(int repeat) {
  auto duration = sc::kCooldownStep * (std::max(repeat, 0) + 1);
  return std::min(duration, sc::kCooldownMax);
}

double affinityFactor(bool session_last_key, bool session_last_model, int session_failures) {
  if (session_failures >= sc::kSessionExcludeAfter) return 0;
  if (session_failures > 0) return sc::kSessionFailurePenalty;
  return std::max(session_last_key ? sc::kSessionAffinityBoost : 1.0,
                  session_last_model ? sc::kModelAffinityBoost : 1.0);
}

double billingFactor(config::Billing billing, std::int64_t prompt_tokens,
                     std::optional<double> quota_remaining) {
  double factor = 1;
  if (billing == config::Billing::PerRequest) {
    factor = std::clamp(static_cast<double>(prompt_tokens) / sc::kBillingCrossoverTokens,
                        sc::kBillingMinFactor, sc::kBillingMaxFactor);
  }
  if (quota_remaining && *quota_remaining < sc::kLowQuotaFraction) factor *= sc::kLowQuotaFactor;
  return factor;
}

double yieldFactor(int success_streak) {
  return success_streak >= sc::kYieldAfterSuccesses ? sc::kYieldFactor : 1.0;
}

double performanceFactor(double success_rate, std::optional<double> first_token_ms,
                         config::Strategy strategy) {
  double rate = std::clamp(success_rate, 0.0, 1.0);
  if (strategy == config::Strategy::Fast) {
    double latency = first_token_ms ? 1 / (1 + *first_token_ms / sc::kFastLatencyScaleMs) : 1;
    return rate * latency * latency;
  }
  double latency = first_token_ms ? 1 / (1 + *first_token_ms / sc::kIntelligentLatencyScaleMs) : 1;
  return rate * latency;
}

}  // namespace llmux::routing

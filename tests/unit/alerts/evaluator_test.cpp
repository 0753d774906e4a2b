#include "alerts/evaluator.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "telemetry/metric_catalog.h"

namespace llmux::alerts {
namespace {

using std::chrono::seconds;

std::span<double const> const kBounds = telemetry::kClientSecondsBuckets;

config::AlertSettings settings() {
  config::AlertSettings s;  // the defaults: 60 s interval, 300 s window, 900 s cooldown, 20 samples
  return s;
}

/// A process's counts, grown by the test as requests end.
struct Process {
  Counts counts;
  Process() { counts.first_token.assign(kBounds.size() + 1, 0); }
  void firstTokens(double s, int n) {
    auto it = std::lower_bound(kBounds.begin(), kBounds.end(), s);
    counts.first_token[static_cast<std::size_t>(it - kBounds.begin())] += n;
    counts.success += n;
    counts.answers += n;
  }
  void failures(int n) {
    counts.failed += n;
    counts.answers += n;
  }
};

/// A fake clock and an evaluator that ticks every interval.
struct Loop {
  ManualTimeSource clock;
  Evaluator evaluator;
  Observation observation;
  explicit Loop(config::AlertSettings s = settings(), config::SloSettings slo = {})
      : evaluator(slo, std::move(s), kBounds, clock.now()) {}
  std::vector<AlertMessage> tick(Process const& p, seconds after = seconds(60)) {
    clock.advance(after);
    observation.counts = p.counts;
    return evaluator.evaluate(clock.now(), clock.wallNow(), observation);
  }
};

std::vector<std::string> names(std::vector<AlertMessage> const& messages) {
  std::vector<std::string> out;
  for (auto const& m : messages) {
    std::string n = std::string(alertNameText(m.alert));
    if (!m.subject.empty()) n += "(" + m.subject + ")";
    out.push_back((m.firing ? "firing " : "resolved ") + n);
  }
  return out;
}

using Names = std::vector<std::string>;

TEST(Evaluator, QuantileInterpolatesLikePrometheus) {
  std::vector<std::uint64_t> buckets(kBounds.size() + 1, 0);
  EXPECT_FALSE(Evaluator::quantile(0.95, buckets, kBounds));
  buckets[8] = 100;  // (2.5, 3]
  EXPECT_DOUBLE_EQ(*Evaluator::quantile(0.95, buckets, kBounds), 2.5 + 0.5 * 0.95);
  buckets.back() = 1000;  // overflow: the highest bound
  EXPECT_DOUBLE_EQ(*Evaluator::quantile(0.95, buckets, kBounds), 300);
}

TEST(Evaluator, FirstTokenNeedsMinSamplesInTheWindow) {
  Loop loop;
  Process p;
  p.firstTokens(4.5, 19);
  EXPECT_EQ(names(loop.tick(p)), Names{});
  EXPECT_EQ(loop.evaluator.measurements().first_token_samples, 19u);
  p.firstTokens(4.5, 1);
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing first_token_p95"});
  EXPECT_GT(messages[0].value, 4);
  EXPECT_DOUBLE_EQ(messages[0].threshold, 3);
  EXPECT_EQ(loop.evaluator.measurements().active.at(AlertName::FirstTokenP95), 1);
  // Fast answers arrive, but the slow ones are still in the window: 209th of 220 is slow.
  p.firstTokens(0.4, 200);
  EXPECT_EQ(names(loop.tick(p)), Names{});
  // 300 s later the slow ones have left it (and with no sample at all it would be no news).
  p.firstTokens(0.4, 30);
  EXPECT_EQ(names(loop.tick(p, seconds(300))), Names{"resolved first_token_p95"});
}

TEST(Evaluator, FailuresNeverLookLikeARecovery) {
  Loop loop;
  Process p;
  p.firstTokens(6, 30);
  EXPECT_EQ(names(loop.tick(p)), Names{"firing first_token_p95"});
  // The upstream now fails fast: no success for ten minutes. The slow samples leave the window,
  // and nothing says the first token got faster.
  for (int i = 0; i < 10; ++i) {
    p.failures(50);
    for (auto const& name : names(loop.tick(p))) EXPECT_NE(name, "resolved first_token_p95");
  }
  EXPECT_EQ(loop.evaluator.measurements().first_token_samples, 0u);
  EXPECT_EQ(loop.evaluator.measurements().active.at(AlertName::FirstTokenP95), 1);
  p.firstTokens(0.5, 30);
  auto after = names(loop.tick(p));
  EXPECT_NE(std::find(after.begin(), after.end(), "resolved first_token_p95"), after.end());
}

TEST(Evaluator, CeilingFiresOnFewSamples) {
  Loop loop;
  Process p;
  p.firstTokens(25, 3);  // above the 15 s ceiling
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing first_token_p95"});
  EXPECT_DOUBLE_EQ(messages[0].threshold, 15);
  EXPECT_NE(messages[0].summary.find("ceiling"), std::string::npos);
}

TEST(Evaluator, CooldownAndReminder) {
  Loop loop;
  Process p;
  loop.observation.redis_configured = true;
  loop.observation.redis_active = false;
  EXPECT_EQ(names(loop.tick(p)), Names{"firing redis_fallback"});
  for (int i = 0; i < 14; ++i) EXPECT_EQ(names(loop.tick(p)), Names{}) << i;  // 840 s
  EXPECT_EQ(names(loop.tick(p)), Names{"firing redis_fallback"});             // 900 s: still true
  loop.observation.redis_active = true;
  EXPECT_EQ(names(loop.tick(p)), Names{"resolved redis_fallback"});
  EXPECT_EQ(names(loop.tick(p)), Names{});
}

TEST(Evaluator, AnUnreachableDatabaseFiresAndResolves) {
  Loop loop;
  Process p;
  loop.observation.database_configured = false;  // SQLite: never judged
  loop.observation.database_active = false;
  EXPECT_EQ(names(loop.tick(p)), Names{});
  loop.observation.database_configured = true;
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing database_unreachable"});
  EXPECT_NE(messages[0].summary.find("PostgreSQL does not answer"), std::string::npos);
  loop.observation.database_active = true;
  EXPECT_EQ(names(loop.tick(p)), Names{"resolved database_unreachable"});
}

TEST(Evaluator, FlappingWithinTheCooldownIsToldOnce) {
  Loop loop;
  Process p;
  loop.observation.redis_configured = true;
  loop.observation.redis_active = false;
  EXPECT_EQ(names(loop.tick(p)), Names{"firing redis_fallback"});
  loop.observation.redis_active = true;
  EXPECT_EQ(names(loop.tick(p)), Names{"resolved redis_fallback"});
  loop.observation.redis_active = false;
  EXPECT_EQ(names(loop.tick(p)), Names{});  // 120 s after the first: within the cooldown
  loop.observation.redis_active = true;
  EXPECT_EQ(names(loop.tick(p)), Names{});  // nothing was told, nothing to resolve
  loop.observation.redis_active = false;
  EXPECT_EQ(names(loop.tick(p, seconds(900))), Names{"firing redis_fallback"});
}

TEST(Evaluator, ErrorBudgetBurnCountsOnlySuccessAndFailed) {
  config::SloSettings slo;
  slo.success_rate = 0.99;
  Loop loop(settings(), slo);
  Process p;
  p.firstTokens(0.5, 95);
  p.failures(5);  // 5 % failed: 5x the 1 % budget, under the 10x threshold
  EXPECT_EQ(names(loop.tick(p)), Names{});
  EXPECT_NEAR(loop.evaluator.measurements().burn_rate, 5, 1e-9);
  p.failures(20);  // 25 of 120: 20.8x
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing error_budget_burn"});
  EXPECT_NEAR(messages[0].value, 25.0 / 120 / 0.01, 1e-9);
  // The window moves on: 300 s later only new requests count.
  p.firstTokens(0.5, 100);
  loop.tick(p, seconds(300));
  EXPECT_NEAR(loop.evaluator.measurements().burn_rate, 0, 1e-9);
}

TEST(Evaluator, BreakerOpenLongerThanItsLimit) {
  auto s = settings();
  s.breaker_open = Millis(120'000);
  Loop loop(s);
  Process p;
  loop.observation.breakers_not_closed = {"openai/gpt-4o"};
  EXPECT_EQ(names(loop.tick(p)), Names{});                                      // seen now
  EXPECT_EQ(names(loop.tick(p)), Names{});                                      // 60 s
  EXPECT_EQ(names(loop.tick(p)), Names{"firing breaker_open(openai/gpt-4o)"});  // 120 s
  loop.observation.breakers_not_closed.clear();
  EXPECT_EQ(names(loop.tick(p)), Names{"resolved breaker_open(openai/gpt-4o)"});
  // Open again: its time starts over.
  loop.observation.breakers_not_closed = {"openai/gpt-4o"};
  EXPECT_EQ(names(loop.tick(p)), Names{});
}

TEST(Evaluator, ModelDownPerModel) {
  Loop loop;
  Process p;
  loop.observation.models_down = {"gpt-4o", "claude"};
  EXPECT_EQ(names(loop.tick(p)), (Names{"firing model_down(gpt-4o)", "firing model_down(claude)"}));
  loop.observation.models_down = {"claude"};
  EXPECT_EQ(names(loop.tick(p)), Names{"resolved model_down(gpt-4o)"});
}

TEST(Evaluator, RateLimitedShareNeedsSamples) {
  Loop loop;
  Process p;
  p.counts.answers = 10;
  p.counts.answers_429 = 9;
  EXPECT_EQ(names(loop.tick(p)), Names{});  // 10 answers < 20
  p.counts.answers = 40;
  p.counts.answers_429 = 12;
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing rate_limited_share"});
  EXPECT_DOUBLE_EQ(messages[0].value, 0.3);
}

TEST(Evaluator, RecordsLostInTheWindow) {
  Loop loop;
  Process p;
  p.counts.records_lost = 3;
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing records_lost"});
  EXPECT_DOUBLE_EQ(messages[0].value, 3);
  EXPECT_EQ(names(loop.tick(p, seconds(240))), Names{});  // still in the 300 s window
  EXPECT_EQ(names(loop.tick(p, seconds(60))), Names{"resolved records_lost"});
}

TEST(Evaluator, BudgetsAtTheirShare) {
  Loop loop;
  Process p;
  loop.observation.budgets = std::vector<BudgetUse>{{"team", "daily_tokens", 790, 1000},
                                                    {"team", "monthly_cost_usd", 8.5, 10}};
  auto messages = loop.tick(p);
  ASSERT_EQ(names(messages), Names{"firing budget(team/monthly_cost_usd)"});
  EXPECT_NE(messages[0].summary.find("85 %"), std::string::npos) << messages[0].summary;
  loop.observation.budgets.reset();  // not readable this time: no news
  EXPECT_EQ(names(loop.tick(p)), Names{});
  loop.observation.budgets = std::vector<BudgetUse>{};  // a new month
  EXPECT_EQ(names(loop.tick(p)), Names{"resolved budget(team/monthly_cost_usd)"});
}

}  // namespace
}  // namespace llmux::alerts

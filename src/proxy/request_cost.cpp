#include "proxy/request_cost.h"

#include <algorithm>

namespace llmux::proxy {

namespace {

constexpr double kPerMillion = 1e-6;

double priced(config::ModelPrice const& price, TokenUsage const& usage) {
  return (static_cast<double>(usage.input) * price.input +
          static_cast<double>(usage.output) * price.output) *
         kPerMillion;
}

/// The attempt that answered: a race's winner, else the last one.
AttemptRecord const* answeringAttempt(RequestRecord const& record) {
  if (record.attempts.empty()) return nullptr;
  auto won = std::find_if(record.attempts.begin(), record.attempts.end(), [](auto const& a) {
    return a.outcome.is(AttemptOutcome::Kind::RacingWon);
  });
  return won != record.attempts.end() ? &*won : &record.attempts.back();
}

}  // namespace

double costOf(std::map<std::string, config::ModelPrice> const& prices, RequestRecord const& record,
              TokenUsage const& usage) {
  if (prices.empty()) return 0;
  auto it = prices.end();
  if (auto const* answering = answeringAttempt(record)) it = prices.find(answering->upstream_model);
  if (it == prices.end()) it = prices.find(record.model);
  if (it == prices.end()) return 0;
  return priced(it->second, usage);
}

double requestCostOf(std::map<std::string, config::ModelPrice> const& prices,
                     RequestRecord const& record) {
  double cost = record.usage ? costOf(prices, record, *record.usage) : 0;
  if (!record.racing_overhead || prices.empty()) return cost;
  // Losers, each at its own model's price (the winner's tokens are `usage`).
  for (auto const& attempt : record.attempts) {
    if (!attempt.usage || attempt.outcome.is(AttemptOutcome::Kind::RacingWon)) continue;
    auto it = prices.find(attempt.upstream_model);
    if (it == prices.end()) it = prices.find(record.model);
    if (it != prices.end()) cost += priced(it->second, *attempt.usage);
  }
  return cost;
}

}  // namespace llmux::proxy

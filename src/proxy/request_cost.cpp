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

/// The price of the answering attempt's upstream model, else of the model the client asked for.
config::ModelPrice const* priceOf(std::map<std::string, config::ModelPrice> const& prices,
                                  RequestRecord const& record) {
  if (prices.empty()) return nullptr;
  auto it = prices.end();
  if (auto const* answering = answeringAttempt(record)) it = prices.find(answering->upstream_model);
  if (it == prices.end()) it = prices.find(record.model);
  return it == prices.end() ? nullptr : &it->second;
}

/// A media request's units at their price (its tokens are priced with `usage`).
double mediaPriced(config::ModelPrice const& price, MediaUsage const& media) {
  if (media.unit == "images") return media.quantity * price.per_image;
  if (media.unit == "seconds") return media.quantity * price.per_second;
  if (media.unit == "characters") return media.quantity * price.per_million_characters * kPerMillion;
  return 0;
}

}  // namespace

double costOf(std::map<std::string, config::ModelPrice> const& prices, RequestRecord const& record,
              TokenUsage const& usage) {
  auto const* price = priceOf(prices, record);
  return price ? priced(*price, usage) : 0;
}

double requestCostOf(std::map<std::string, config::ModelPrice> const& prices,
                     RequestRecord const& record) {
  double cost = record.usage ? costOf(prices, record, *record.usage) : 0;
  if (record.media) {
    if (auto const* price = priceOf(prices, record)) cost += mediaPriced(*price, *record.media);
  }
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

std::optional<double> loggedCostOf(std::map<std::string, config::ModelPrice> const& prices,
                                   RequestRecord const& record) {
  if (priceOf(prices, record) == nullptr) return std::nullopt;
  return requestCostOf(prices, record);
}

}  // namespace llmux::proxy

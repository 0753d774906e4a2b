#include "proxy/request_cost.h"

namespace llmux::proxy {

double costOf(std::map<std::string, config::ModelPrice> const& prices, RequestRecord const& record,
              TokenUsage const& usage) {
  if (prices.empty()) return 0;
  auto it = prices.end();
  if (!record.attempts.empty()) it = prices.find(record.attempts.back().upstream_model);
  if (it == prices.end()) it = prices.find(record.model);
  if (it == prices.end()) return 0;
  constexpr double kPerMillion = 1e-6;
  return (static_cast<double>(usage.input) * it->second.input +
          static_cast<double>(usage.output) * it->second.output) *
         kPerMillion;
}

}  // namespace llmux::proxy

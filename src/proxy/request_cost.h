#pragma once

// What an answered request cost, from the `prices:` table (internal to the proxy module).

#include <map>
#include <optional>
#include <string>

#include "config/settings.h"
#include "core/request_record.h"
#include "core/token_usage.h"

namespace llmux::proxy {

/// USD for `usage` at the price of the answering attempt's upstream model, else of the model the
/// client asked for; 0 when neither is priced.
double costOf(std::map<std::string, config::ModelPrice> const& prices, RequestRecord const& record,
              TokenUsage const& usage);

/// What the whole request cost: its answer (`usage`, as costOf) and the tokens its race's losing
/// branches reported (`racing_overhead`, each at its own model's price).
double requestCostOf(std::map<std::string, config::ModelPrice> const& prices,
                     RequestRecord const& record);

/// requestCostOf for the logs: nullopt when the request's model has no price (a 0 there would
/// read as free).
std::optional<double> loggedCostOf(std::map<std::string, config::ModelPrice> const& prices,
                                   RequestRecord const& record);

}  // namespace llmux::proxy

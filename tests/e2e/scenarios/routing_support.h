#pragma once

// Helpers shared by the routing scenarios: admin calls and the attempts of an access-log line.
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "e2e/scenarios/failover_helpers.h"

namespace llmux::e2e::routing_scenarios {

inline constexpr char kAdminToken[] = "adm-routing-secret";

/// An admin API call with the admin token (or `token` when given).
failover::ClientCall adminCall(std::string method, std::string target, std::string body = {},
                               std::string_view token = kAdminToken);

/// An admin call with the admin token that must answer 200 with a JSON object (a test failure
/// otherwise, and an empty object).
boost::json::object adminJson(std::uint16_t port, std::string method, std::string target,
                              std::string body = {}, Millis timeout = Millis(5000));

/// (channel, upstream_model, depth, outcome) of every attempt of one request, from the access log.
using Attempt = std::tuple<std::string, std::string, int, std::string>;
std::vector<Attempt> attemptsOf(std::string const& access_log, std::string_view request_id);

/// A chat request for `model` offering one tool.
failover::ClientCall chatCallWithTool(std::string_view model);

}  // namespace llmux::e2e::routing_scenarios

#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/http_headers.h"
#include "core/result.h"
#include "core/wire_protocol.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/support/config_writer.h"
#include "e2e/support/http_client.h"

// Helpers shared by the failover scenarios: client requests in each protocol, the gateway's
// metrics and access log (the mock provider's journal is in mock_journal.h).
namespace llmux::e2e::failover {

inline constexpr char kGatewayKey[] = "sk-gw-failover";
inline constexpr char kModel[] = "m-fail";

/// A client request in one protocol, as an SDK would send it to the gateway.
struct ClientCall {
  std::string method = "POST";
  std::string target;
  HeaderList headers;
  std::string body;
};

/// A request for `kModel` (or `model`) in `protocol`, streamed or not, authenticated the way
/// that protocol's SDK does. The body has unusual spacing and escapes so byte-exact replay shows.
ClientCall clientCall(Protocol protocol, bool stream, std::string_view model = kModel);

/// Sends `call` on a new connection (with `X-Request-Id: request_id` when given) and reads the
/// whole response.
Result<Response> callGateway(std::uint16_t port, ClientCall const& call,
                             std::string_view request_id = {}, Millis timeout = Millis(5000));

/// Short protocol name for test names ("chat", "responses", "anthropic", "gemini").
std::string shortName(Protocol protocol);

/// A channel on `base_url` serving `kModel` with the given keys.
ChannelSpec channel(std::string name, Protocol protocol, std::string base_url,
                    std::vector<std::string> keys, int priority = 0);

/// A gateway configuration with the failover gateway key (strategy: sequential) and an access
/// log file.
GatewayConfig gatewayConfig(std::vector<ChannelSpec> channels, std::string const& access_log);

/// GET /metrics text.
Result<std::string> fetchMetrics(std::uint16_t gateway_port);
/// Value of the series `name` whose labels include all of `labels`; nullopt when absent.
/// Several matching series are summed.
std::optional<double> metricValue(std::string_view text, std::string_view name,
                                  std::vector<std::pair<std::string, std::string>> const& labels);
/// Polls /metrics until the series reaches `expected`; returns the last value seen.
std::optional<double> waitForMetric(std::uint16_t gateway_port, std::string_view name,
                                    std::vector<std::pair<std::string, std::string>> const& labels,
                                    double expected, Millis timeout = Millis(3000));

/// Polls the access log file until a line with this request id appears; the parsed line.
Result<boost::json::object> waitForAccessLine(std::string const& path, std::string_view request_id,
                                              Millis timeout = Millis(3000));

/// Parses a JSON object; an error when the text is not one.
Result<boost::json::object> parseObject(std::string_view text);

/// Checks that `body` is an error in `protocol`'s shape for `status` and returns its message:
/// OpenAI {"error":{message,type,param,code}}, Anthropic {"type":"error","error":{type,message}},
/// Gemini {"error":{code,message,status}} with code == status.
Result<std::string> errorMessageOf(Protocol protocol, int status, std::string_view body);

/// Milliseconds since the epoch on the wall clock (comparable with the journal's times).
double wallNowMs();

}  // namespace llmux::e2e::failover

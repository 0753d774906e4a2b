#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/wire_protocol.h"

// Builds llmux configuration YAML for tests from small structs. Only what a field says is written:
// empty lists and unset optionals are left out, so the gateway's own defaults apply.
namespace llmux::e2e {

/// A gateway key's `limits:` (unset ones are not written: no limit).
struct ClientLimitsSpec {
  std::optional<long long> rpm;
  std::optional<long long> rpd;
  std::optional<long long> tpm;
  std::optional<long long> concurrency;
  std::optional<long long> daily_tokens;
  std::optional<long long> monthly_tokens;
  std::optional<double> daily_cost_usd;
  std::optional<double> monthly_cost_usd;
};

struct GatewayKeySpec {
  std::string name;
  std::string key;
  std::string strategy;  ///< routing strategy; "" = the default
  std::optional<ClientLimitsSpec> limits;
};

/// `timeouts.first_token_reasoning_ms`: a reasoning stream's first-token deadline by effort.
struct ReasoningTimeoutsSpec {
  std::optional<int> low;
  std::optional<int> medium;
  std::optional<int> high;
};

/// Per-attempt upstream deadlines in milliseconds; unset ones are not written.
struct TimeoutsSpec {
  std::optional<int> connect_ms;
  std::optional<int> first_byte_ms;
  std::optional<int> idle_ms;
  std::optional<int> total_ms;
  std::optional<int> first_token_ms;
  std::optional<ReasoningTimeoutsSpec> first_token_reasoning_ms;
};

/// A channel's 429-storm breaker (`breaker.storm`); `off` writes `storm: off`.
struct StormSpec {
  bool off = false;
  std::optional<int> window_ms;
  std::optional<double> ratio;
  std::optional<int> min_samples;
  std::optional<int> open_ms;
};

/// A channel's `breaker:`; `off` writes `breaker: off` (both breakers off).
struct BreakerSpec {
  bool off = false;
  std::optional<int> failure_threshold;
  std::optional<int> open_ms;
  std::optional<int> probe_timeout_ms;
  std::optional<StormSpec> storm;
};

/// An RPM/TPM token bucket pair (`model_limits:` entries); unset ones are not written.
struct BucketSpec {
  std::optional<long long> rpm;
  std::optional<long long> tpm;
};

/// The top-level `buckets:` section.
struct BucketsSpec {
  std::optional<int> max_wait_ms;
  std::optional<long long> expected_output_tokens;
};

/// The top-level `redis:` section.
struct RedisSpec {
  std::string url;  ///< redis://[:password@]host[:port][/db]
  std::optional<int> timeout_ms;
  std::optional<int> cooldown_ms;
  std::optional<std::string> prefix;
};

using StringPairs = std::vector<std::pair<std::string, std::string>>;

struct ChannelSpec {
  std::string name;
  Protocol protocol = Protocol::OpenAiChat;
  std::string base_url;  ///< e.g. loopbackUrl(mock.port)
  std::vector<std::string> keys;
  std::vector<std::string> models;
  StringPairs model_map;  ///< client name -> upstream name, written in this order
  StringPairs headers;    ///< extra upstream headers, written in this order
  std::optional<TimeoutsSpec> timeouts;
  std::optional<BreakerSpec> breaker;
  /// upstream model -> its token buckets, written in this order
  std::vector<std::pair<std::string, BucketSpec>> model_limits;
  std::optional<int> priority;
  std::optional<int> weight;
  /// More keys of this channel as YAML lines written without indentation ("enabled: false\n");
  /// they are indented into the channel's mapping.
  std::string extra_yaml;
};

struct GatewayConfig {
  std::string listen = "127.0.0.1:0";
  std::vector<GatewayKeySpec> gateway_keys;
  std::vector<ChannelSpec> channels;
  std::optional<BucketsSpec> buckets;
  std::optional<RedisSpec> redis;
  /// Top-level sections the structs do not model, appended as written.
  std::string extra_yaml;
};

/// The configuration as YAML text.
std::string toYaml(GatewayConfig const& config);

/// A YAML double-quoted scalar for `text` (quotes, backslashes and control characters escaped).
std::string yamlQuote(std::string_view text);

/// "http://127.0.0.1:<port>".
std::string loopbackUrl(std::uint16_t port);

}  // namespace llmux::e2e

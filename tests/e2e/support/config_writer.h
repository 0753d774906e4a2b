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

struct GatewayKeySpec {
  std::string name;
  std::string key;
  std::string strategy;  ///< routing strategy; "" = the default
};

/// Per-attempt upstream deadlines in milliseconds; unset ones are not written.
struct TimeoutsSpec {
  std::optional<int> connect_ms;
  std::optional<int> first_byte_ms;
  std::optional<int> idle_ms;
  std::optional<int> total_ms;
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

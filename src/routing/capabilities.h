#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"

namespace llmux::routing {

/// What a request needs from the model that serves it (protocol/request_needs.h extracts it).
struct RequestNeeds {
  bool tools = false;               ///< the request offers tools (function calling)
  bool vision = false;              ///< it carries an image
  std::int64_t prompt_tokens = 0;   ///< estimated prompt size
};

/// The built-in capability table: model families (name prefixes) with what they can do, loaded
/// from data/model_capabilities.json (compiled into the binary, so it works offline).
class CapabilityTable {
 public:
  /// The shipped table.
  static CapabilityTable const& builtin();
  /// A table from JSON text of the data file's shape (tests); throws std::runtime_error on bad input.
  static CapabilityTable fromJson(std::string_view json);

  /// The entry of the longest family prefix matching `model` (case-insensitive; a provider prefix
  /// such as "openai/" or "models/" is ignored); all fields absent when no family matches.
  config::ModelCapabilities lookup(std::string_view model) const;

 private:
  struct Family {
    std::string prefix;
    config::ModelCapabilities caps;
  };
  std::vector<Family> families_;  ///< longest prefix first
};

/// The table's entry for `upstream_model` with the channel's `capabilities:` overrides for
/// `client_model` applied field by field (the model's own entry over "*", both over the table).
config::ModelCapabilities capabilitiesFor(config::Channel const& channel, std::string const& client_model,
                                          std::string_view upstream_model,
                                          CapabilityTable const& table = CapabilityTable::builtin());

enum class GateVerdict {
  Allow,    ///< known to have what the request needs
  Unknown,  ///< some needed capability is unknown: allowed (log a warning once per model)
  Reject,   ///< known to lack one
};

struct GateResult {
  GateVerdict verdict = GateVerdict::Allow;
  std::string missing;  ///< Reject: "tools", "vision" or "context_window"; Unknown: what is unknown
};

/// The veto gate for a fallback target: rejects only what is known to be missing (unknown means
/// allow). Never applied to the model the client asked for.
GateResult gateFallback(config::ModelCapabilities const& caps, RequestNeeds const& needs);

}  // namespace llmux::routing

#pragma once

// What a health probe sends and what a pass means (docs/operations.md#health-probes), without
// I/O: the request a client of the row's protocol would send for each built-in scenario, a
// custom scenario's request, and the verdict on an answer.

#include <optional>
#include <string>
#include <string_view>

#include "config/settings.h"
#include "core/http_headers.h"

namespace llmux::proxy {

/// A scenario to probe: built-in, or one of `probes.scenarios_file`.
struct ProbeScenario {
  std::string name;
  std::optional<config::BuiltinProbe> builtin;
  config::CustomProbeScenario const* custom = nullptr;  ///< points into the pinned Settings

  /// The named scenario; nullopt when neither built-in nor custom.
  static std::optional<ProbeScenario> named(std::string_view name, config::ProbeSettings const& probes);
};

/// A probe's request as a client would send it to the gateway: method, path, headers, body.
struct ProbeCall {
  std::string method = "POST";
  std::string target;  ///< path (and query) of the client route
  HeaderList headers;  ///< Content-Type and the protocol's version header
  std::string body;
  bool stream = false;
};

/// The request of `scenario` for `model`, spoken in `protocol` (a media scenario: OpenAI's media
/// endpoint, whatever `protocol`). A custom scenario speaks its own protocol; its body gets
/// `model` (Gemini: in the path).
ProbeCall probeCall(ProbeScenario const& scenario, Protocol protocol, std::string const& model);

/// The verdict on an answer. `reason` says why it failed: the status and a short description
/// (never the answer's text, which may quote a secret); "" for a pass.
struct ProbeVerdict {
  bool pass = false;
  std::string reason;
};

/// Judges an answer of `status`, `content_type` and `body` (a stream's whole SSE text) to
/// `scenario` spoken in `protocol`.
ProbeVerdict judgeProbe(ProbeScenario const& scenario, Protocol protocol, int status,
                        std::string_view content_type, std::string_view body);

}  // namespace llmux::proxy

#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

// The secrets a gateway configuration holds, and where a leaked one would show: every e2e
// scenario's gateways are swept for them when the test ends (E2eTest::TearDown), so every
// scenario — errors, cancels, failovers, freezes — is also a test that no secret reaches the
// logs, the request log or /metrics.
namespace llmux::e2e {

/// Secrets shorter than this are not swept: test keys such as "k1" would match ordinary bytes.
inline constexpr std::size_t kMinSweptSecretBytes = 8;

/// What a configuration makes secret, as the gateway would read it: gateway keys, channel keys
/// (short and long form), admin and metrics tokens, `*_env` and `${VAR}` values taken from `env`
/// (then from the test's own environment). Only secrets of at least kMinSweptSecretBytes.
std::vector<std::string> configuredSecrets(std::string_view yaml,
                                           std::vector<std::pair<std::string, std::string>> const& env);

/// The access log file a configuration names ("" for stdout, stderr, off or none), as written.
std::string accessLogPath(std::string_view yaml);

/// Where `secret` occurs in `text`: the line around its first occurrence with the secret itself
/// masked, or "" when it does not occur.
std::string leakContext(std::string_view text, std::string_view secret);

}  // namespace llmux::e2e

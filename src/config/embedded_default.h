#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "config/env.h"
#include "config/settings.h"

namespace llmux::config {

/// The model every demo channel serves.
inline constexpr std::string_view kDemoModel = "demo";
/// The upstream key demo channels present to the built-in mock provider.
inline constexpr std::string_view kMockKey = "mock-key";
/// Demo channels rank below every real channel serving the same model.
inline constexpr int kDemoPriority = -100;

/// A provider the embedded default configures when its key variable is set.
struct ProviderDefault {
  std::string_view channel;           ///< channel name
  Protocol protocol;
  std::string_view key_variable;      ///< e.g. "OPENAI_API_KEY"
  std::string_view base_url_variable; ///< e.g. "OPENAI_BASE_URL"
  std::string_view base_url;          ///< used when base_url_variable is unset or empty
  std::vector<std::string_view> models;
};

/// The providers of the embedded default, in channel order: openai, openai-responses, anthropic,
/// gemini.
std::vector<ProviderDefault> const& providerDefaults();

/// The configuration of `llmux serve` without --config (docs/configuration.md, "Embedded
/// default"): listen on $LLMUX_LISTEN or 127.0.0.1:8080, one gateway key "default" with
/// `gateway_key_secret`, the admin token `admin_token` (the admin API and the console), state_dir
/// $LLMUX_HOME or ".llmux", a channel per provider whose key variable is set and non-empty, and
/// the four demo channels on `mock_base_url`.
/// Start-up only: throws std::invalid_argument naming the variable when LLMUX_LISTEN or a
/// provider base URL variable is invalid, or when `mock_base_url` or the secret is unusable.
Settings embeddedDefaultSettings(EnvLookup const& env, std::string const& mock_base_url,
                                 std::string const& gateway_key_secret,
                                 std::string const& admin_token);

}  // namespace llmux::config

#include "config/embedded_default.h"

#include <stdexcept>

#include "config/address.h"
#include "config/key_id.h"

namespace llmux::config {
namespace {

/// A non-empty value of `name`, else nullopt.
std::optional<std::string> nonEmpty(EnvLookup const& env, std::string_view name) {
  auto value = env(name);
  if (!value || value->empty()) return std::nullopt;
  return value;
}

UpstreamUrl parseOrThrow(std::string const& url, std::string_view what) {
  auto parsed = parseBaseUrl(url);
  if (!parsed) {
    throw std::invalid_argument(std::string(what) + ": " + parsed.error().message);
  }
  return *parsed;
}

Channel makeChannel(std::string_view name, Protocol protocol, std::string base_url,
                    UpstreamUrl url, std::string secret) {
  Channel channel;
  channel.name = std::string(name);
  channel.protocol = protocol;
  channel.base_url = std::move(base_url);
  channel.url = std::move(url);
  channel.keys.push_back(makeChannelKey(channel.name, 0, std::move(secret)));
  channel.useSingleRow();
  return channel;
}

}  // namespace

std::vector<ProviderDefault> const& providerDefaults() {
  static std::vector<ProviderDefault> const kProviders = {
      {"openai", Protocol::OpenAiChat, "OPENAI_API_KEY", "OPENAI_BASE_URL",
       "https://api.openai.com",
       {"gpt-5.2", "gpt-5.1", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini",
        "gpt-4.1-nano", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini"}},
      {"openai-responses", Protocol::OpenAiResponses, "OPENAI_API_KEY", "OPENAI_BASE_URL",
       "https://api.openai.com",
       {"gpt-5.2", "gpt-5.1", "gpt-5", "gpt-5-mini", "gpt-5-nano", "gpt-4.1", "gpt-4.1-mini",
        "gpt-4.1-nano", "gpt-4o", "gpt-4o-mini", "o3", "o4-mini", "gpt-5.3-codex",
        "gpt-5.1-codex-max", "gpt-5.1-codex", "gpt-5-codex"}},
      {"anthropic", Protocol::Anthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
       "https://api.anthropic.com",
       {"claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-5", "claude-sonnet-4-5",
        "claude-haiku-4-5", "claude-opus-4-1", "claude-sonnet-4-0"}},
      {"gemini", Protocol::Gemini, "GEMINI_API_KEY", "GEMINI_BASE_URL",
       "https://generativelanguage.googleapis.com",
       {"gemini-3.1-pro-preview", "gemini-3-pro-preview", "gemini-3-flash-preview",
        "gemini-2.5-pro", "gemini-2.5-flash", "gemini-2.5-flash-lite"}},
  };
  return kProviders;
}

Settings embeddedDefaultSettings(EnvLookup const& env, std::string const& mock_base_url,
                                 std::string const& gateway_key_secret,
                                 std::string const& admin_token) {
  if (gateway_key_secret.empty()) {
    throw std::invalid_argument("the default gateway key must not be empty");
  }
  if (admin_token.empty()) throw std::invalid_argument("the default admin token must not be empty");
  Settings settings;
  if (auto listen = nonEmpty(env, "LLMUX_LISTEN")) {
    if (auto address = parseListenAddress(*listen); !address) {
      throw std::invalid_argument("LLMUX_LISTEN: " + address.error().message);
    }
    settings.server.listen = *listen;
  }
  settings.state_dir = nonEmpty(env, "LLMUX_HOME").value_or(".llmux");
  // A gateway on a developer's machine, not behind a load balancer: it stops at once.
  settings.server.lame_duck = Millis(0);
  settings.gateway_keys.push_back(GatewayKey{"default", gateway_key_secret});
  // The admin API and the web console, for the one who started it (the token is printed).
  settings.admin_token = admin_token;
  settings.admin_tokens.push_back(AdminToken{"admin", admin_token, false});

  for (ProviderDefault const& provider : providerDefaults()) {
    auto secret = nonEmpty(env, provider.key_variable);
    if (!secret) continue;
    std::string base_url(provider.base_url);
    if (auto custom = nonEmpty(env, provider.base_url_variable)) base_url = std::move(*custom);
    UpstreamUrl url = parseOrThrow(base_url, provider.base_url_variable);
    Channel channel = makeChannel(provider.channel, provider.protocol, std::move(base_url),
                                  std::move(url), std::move(*secret));
    channel.models.assign(provider.models.begin(), provider.models.end());
    settings.channels.push_back(std::move(channel));
  }

  UpstreamUrl mock_url = parseOrThrow(mock_base_url, "mock base URL");
  for (Protocol protocol : kAllProtocols) {
    Channel channel = makeChannel("demo-" + std::string(protocolName(protocol)), protocol,
                                  mock_base_url, mock_url, std::string(kMockKey));
    channel.models.emplace_back(kDemoModel);
    channel.priority = kDemoPriority;
    if (protocol == Protocol::OpenAiChat) {
      // The mock speaks OpenAI's media endpoints too: images, videos, speech, transcriptions and
      // embeddings of the demo model work offline (docs/media.md).
      for (auto& endpoint : channel.media.endpoints) endpoint.enabled = true;
      channel.media.row = 0;
    }
    settings.channels.push_back(std::move(channel));
  }
  return settings;
}

}  // namespace llmux::config

#include "config/settings.h"

#include <algorithm>

namespace llmux::config {

AuthSpec resolveAuth(Protocol protocol, AuthSpec const& auth) {
  if (auth.style != AuthStyle::Default) return auth;
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses: return AuthSpec{AuthStyle::Bearer, ""};
    case Protocol::Anthropic: return AuthSpec{AuthStyle::XApiKey, ""};
    case Protocol::Gemini: return AuthSpec{AuthStyle::Header, "x-goog-api-key"};
  }
  return AuthSpec{AuthStyle::Bearer, ""};
}

ProtocolRow const* Channel::rowFor(Protocol wanted) const {
  for (auto const& row : rows) {
    if (row.protocol == wanted && !row.preset_only) return &row;
  }
  return nullptr;
}

std::optional<ClientPreset> Channel::presetFor(std::string const& client_model) const {
  auto it = model_presets.find(client_model);
  if (it != model_presets.end()) return it->second;
  return client_preset;
}

std::size_t Channel::rowIndexFor(Protocol client_protocol, std::string const& client_model) const {
  std::optional<ClientPreset> preset = presetFor(client_model);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (preset ? rows[r].protocol == presetProtocol(*preset)
               : rows[r].protocol == client_protocol && !rows[r].preset_only) {
      return r;
    }
  }
  return 0;
}

void Channel::useSingleRow() { rows = {ProtocolRow{protocol, base_url, url, auth}}; }

bool Channel::serves(std::string_view model) const {
  if (std::find(models.begin(), models.end(), model) != models.end()) return true;
  return model_map.find(std::string(model)) != model_map.end();
}

std::string const& Channel::upstreamModel(std::string const& client_model) const {
  auto it = model_map.find(client_model);
  return it != model_map.end() ? it->second : client_model;
}

}  // namespace llmux::config

#include "routing/catalog.h"

#include <algorithm>

#include "core/strings.h"

namespace llmux::routing {

Catalog::Catalog(std::shared_ptr<const config::Settings> settings) : settings_(std::move(settings)) {
  auto const& channels = settings_->channels;
  for (std::size_t i = 0; i < channels.size(); ++i) {
    auto const& channel = channels[i];
    if (!channel.enabled) continue;
    auto add = [&](std::string const& model) {
      auto& list = channels_by_model_[model];
      if (list.empty() || list.back() != i) list.push_back(i);
    };
    for (auto const& model : channel.models) add(model);
    for (auto const& [alias, upstream] : channel.model_map) add(alias);
  }
  for (auto const& [model, list] : channels_by_model_) model_names_.push_back(model);
  std::sort(model_names_.begin(), model_names_.end());
  for (std::size_t i = 0; i < settings_->gateway_keys.size(); ++i) {
    gateway_key_by_secret_.emplace(settings_->gateway_keys[i].secret, i);
  }
}

std::vector<std::size_t> const& Catalog::channelsFor(std::string_view model) const {
  static const std::vector<std::size_t> kNone;
  auto it = channels_by_model_.find(std::string(model));
  return it == channels_by_model_.end() ? kNone : it->second;
}

config::GatewayKey const* Catalog::findGatewayKey(std::string_view secret) const {
  auto it = gateway_key_by_secret_.find(std::string(secret));
  if (it == gateway_key_by_secret_.end()) return nullptr;
  auto const& key = settings_->gateway_keys[it->second];
  return secretEquals(key.secret, secret) ? &key : nullptr;
}

}  // namespace llmux::routing

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
  for (std::size_t i = 0; i < channels.size(); ++i) {
    if (!channels[i].enabled) continue;
    channel_by_name_.emplace(channels[i].name, i);
    has_weights_ = has_weights_ || channels[i].weight != 1;
    for (auto const& key : channels[i].keys) has_weights_ = has_weights_ || key.weight != 1;
  }
  for (std::size_t i = 0; i < settings_->model_groups.size(); ++i) {
    group_by_name_.emplace(settings_->model_groups[i].name, i);
  }
  for (auto const& [model, list] : channels_by_model_) model_names_.push_back(model);
  for (auto const& [name, index] : group_by_name_) {
    if (!channels_by_model_.contains(name)) model_names_.push_back(name);
  }
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

namespace llmux::routing {

config::ModelGroup const* Catalog::group(std::string_view name) const {
  if (group_by_name_.empty()) return nullptr;
  auto it = group_by_name_.find(std::string(name));
  return it == group_by_name_.end() ? nullptr : &settings_->model_groups[it->second];
}

std::vector<std::string> const& Catalog::fallbacksFor(std::string_view model) const {
  static const std::vector<std::string> kNone;
  if (settings_->fallbacks.empty()) return kNone;
  auto it = settings_->fallbacks.find(std::string(model));
  return it == settings_->fallbacks.end() ? kNone : it->second;
}

std::optional<std::size_t> Catalog::channelIndex(std::string_view name) const {
  auto it = channel_by_name_.find(std::string(name));
  if (it == channel_by_name_.end()) return std::nullopt;
  return it->second;
}

std::optional<std::pair<std::size_t, std::string>> Catalog::splitChannelModel(std::string_view name) const {
  auto slash = name.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= name.size()) return std::nullopt;
  auto channel = channelIndex(name.substr(0, slash));
  if (!channel) return std::nullopt;
  std::string model(name.substr(slash + 1));
  if (!settings_->channels[*channel].serves(model)) return std::nullopt;
  return std::make_pair(*channel, std::move(model));
}

}  // namespace llmux::routing

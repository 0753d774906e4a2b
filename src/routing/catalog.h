#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/settings.h"

namespace llmux::routing {

/// Indexes over one configuration: which channels serve a model, which gateway key a secret
/// belongs to. Built once per configuration load, then read-only (shared by every request that
/// pinned that configuration).
class Catalog {
 public:
  explicit Catalog(std::shared_ptr<const config::Settings> settings);

  config::Settings const& settings() const { return *settings_; }
  std::shared_ptr<const config::Settings> const& settingsPtr() const { return settings_; }

  /// Indexes of the enabled channels that serve `model` (any protocol), in configuration order.
  std::vector<std::size_t> const& channelsFor(std::string_view model) const;

  /// Every model name clients may request, sorted: the union of all enabled channels' models
  /// and aliases, plus the model group names.
  std::vector<std::string> const& modelNames() const { return model_names_; }

  /// The gateway key with this secret, or nullptr. Compares in constant time once found.
  config::GatewayKey const* findGatewayKey(std::string_view secret) const;

  /// Whether some enabled channel or key has a weight other than 1 (the planner then shares
  /// equal candidates by weight, which costs more).
  bool hasWeights() const { return has_weights_; }

  /// The model group of this name, or nullptr.
  config::ModelGroup const* group(std::string_view name) const;
  /// The `fallbacks:` chain of a model (empty when none).
  std::vector<std::string> const& fallbacksFor(std::string_view model) const;
  /// The index of the enabled channel of this name.
  std::optional<std::size_t> channelIndex(std::string_view name) const;
  /// "channel/model" naming: the channel and the model when `name` starts with an enabled
  /// channel's name and a slash and that channel serves the rest (a model that is itself called
  /// "vendor/model" is served as such when no channel is named so).
  std::optional<std::pair<std::size_t, std::string>> splitChannelModel(std::string_view name) const;

 private:
  std::shared_ptr<const config::Settings> settings_;
  std::unordered_map<std::string, std::vector<std::size_t>> channels_by_model_;
  std::unordered_map<std::string, std::size_t> gateway_key_by_secret_;
  std::unordered_map<std::string, std::size_t> group_by_name_;
  std::unordered_map<std::string, std::size_t> channel_by_name_;
  bool has_weights_ = false;
  std::vector<std::string> model_names_;
};

}  // namespace llmux::routing

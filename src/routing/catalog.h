#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/settings.h"
#include "core/wire_protocol.h"
#include "routing/key_id.h"

namespace llmux::routing {

/// One enabled key of a channel that serves a model, as a plan reads it: what only a new
/// configuration changes, worked out once per configuration instead of once per plan.
struct PlanKey {
  config::ChannelKey const* key;  ///< the key in the Catalog's Settings
  HashedKeyId id;                 ///< key->id with its hash
  std::uint32_t index;            ///< into Channel::keys
  std::uint32_t key_slot;         ///< the catalog's number for the key, below Catalog::keySlots()
  /// The catalog's number for (key, upstream model), below Catalog::statsSlots(): the same for
  /// every client model the channel sends upstream under the same name.
  std::uint32_t stats_slot;
  double weight;  ///< channel weight × key weight, each at least 1 (Factors::weight)
};

/// One enabled channel that serves a model, with its enabled keys.
struct PlanChannel {
  std::uint32_t channel;        ///< into Settings::channels
  std::string const* model;     ///< the channel's own copy of the model name (model_map key or models entry)
  std::string const* upstream;  ///< the name sent upstream for it
  std::uint32_t upstream_id;    ///< `upstream` interned: equal names have equal ids within one Catalog
  std::int32_t priority;
  std::uint32_t priority_rank;  ///< 0 for the model's highest channel priority, 1 for the next...
  /// Channel::rowIndexFor(protocol, model) for every client protocol, by its enum value.
  std::array<std::uint32_t, kAllProtocols.size()> row;
  std::uint8_t passthrough;     ///< bit p: row[p] speaks client protocol p (no translation)
  std::uint32_t keys_begin;     ///< its enabled keys: ModelPlan::keys[keys_begin, keys_end),
  std::uint32_t keys_end;       ///< in configuration order
};

/// Everything planning a model reads from the configuration: the channels that serve it in
/// configuration order (Catalog::channelsFor's) and their enabled keys.
struct ModelPlan {
  std::vector<PlanChannel> channels;
  std::vector<PlanKey> keys;
  std::uint32_t priorities = 0;  ///< distinct priorities among `channels` (PlanChannel::priority_rank's bound)
};

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

  /// The plan tables of a model a channel serves (`channelsFor`'s channels), or nullptr.
  ModelPlan const* modelPlan(std::string_view model) const;
  /// How many key slots and (key, upstream model) slots the plan tables number.
  std::size_t keySlots() const { return key_slots_; }
  std::size_t statsSlots() const { return stats_slots_; }
  /// This catalog's identity, for caches of other objects keyed by it (RouterState's slot
  /// bindings): unlike the Catalog's address it is never reused while someone holds it.
  std::shared_ptr<const void> const& identity() const { return identity_; }

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  void buildModelPlans();

  std::shared_ptr<const config::Settings> settings_;
  std::unordered_map<std::string, std::vector<std::size_t>> channels_by_model_;
  std::unordered_map<std::string, std::size_t> gateway_key_by_secret_;
  std::unordered_map<std::string, std::size_t> group_by_name_;
  std::unordered_map<std::string, std::size_t> channel_by_name_;
  bool has_weights_ = false;
  std::vector<std::string> model_names_;
  std::unordered_map<std::string, ModelPlan, NameHash, std::equal_to<>> model_plans_;
  std::size_t key_slots_ = 0;
  std::size_t stats_slots_ = 0;
  std::shared_ptr<const void> identity_ = std::make_shared<const char>('\0');
};

}  // namespace llmux::routing

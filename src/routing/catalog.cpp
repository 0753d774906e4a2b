#include "routing/catalog.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <map>

#include "core/strings.h"

namespace llmux::routing {

// PlanChannel's per-protocol tables are indexed by the enum's value.
static_assert([] {
  for (std::size_t p = 0; p < kAllProtocols.size(); ++p) {
    if (static_cast<std::size_t>(kAllProtocols[p]) != p) return false;
  }
  return true;
}());

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
  buildModelPlans();
}

void Catalog::buildModelPlans() {
  auto const& channels = settings_->channels;
  constexpr auto kNoSlot = std::numeric_limits<std::uint32_t>::max();
  // Every enabled key of an enabled channel gets a slot, in configuration order.
  std::vector<std::vector<std::uint32_t>> key_slot(channels.size());
  for (std::size_t c = 0; c < channels.size(); ++c) {
    if (!channels[c].enabled) continue;
    for (auto const& key : channels[c].keys) {
      key_slot[c].push_back(key.enabled ? static_cast<std::uint32_t>(key_slots_++) : kNoSlot);
    }
  }
  std::unordered_map<std::string_view, std::uint32_t> upstream_ids;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> stats_ids;  // (key slot, upstream id)
  for (auto const& [model, list] : channels_by_model_) {
    ModelPlan& plan = model_plans_[model];
    for (std::size_t c : list) {
      auto const& channel = channels[c];
      // The channel's own copies of the names: its model_map entry, else its `models` entry.
      std::string const* own = nullptr;
      std::string const* upstream = nullptr;
      if (auto it = channel.model_map.find(model); it != channel.model_map.end()) {
        own = &it->first;
        upstream = &it->second;
      } else {
        own = upstream = &*std::find(channel.models.begin(), channel.models.end(), model);
      }
      auto next_id = static_cast<std::uint32_t>(upstream_ids.size());
      auto upstream_id = upstream_ids.try_emplace(*upstream, next_id).first->second;
      PlanChannel entry{static_cast<std::uint32_t>(c), own, upstream, upstream_id, channel.priority, 0, {}, 0,
                        static_cast<std::uint32_t>(plan.keys.size()), 0};
      for (std::size_t p = 0; p < kAllProtocols.size(); ++p) {
        std::size_t row = channel.rowIndexFor(kAllProtocols[p], model);
        entry.row[p] = static_cast<std::uint32_t>(row);
        bool native = row < channel.rows.size() && channel.rows[row].protocol == kAllProtocols[p];
        if (native) entry.passthrough |= 1u << p;
      }
      for (std::size_t k = 0; k < channel.keys.size(); ++k) {
        auto const& key = channel.keys[k];
        if (!key.enabled) continue;
        auto next_stats = static_cast<std::uint32_t>(stats_ids.size());
        auto stats_slot = stats_ids.try_emplace({key_slot[c][k], upstream_id}, next_stats).first->second;
        double weight = static_cast<double>(std::max(channel.weight, 1)) * std::max(key.weight, 1);
        plan.keys.push_back(
            PlanKey{&key, HashedKeyId(key.id), static_cast<std::uint32_t>(k), key_slot[c][k], stats_slot, weight});
      }
      entry.keys_end = static_cast<std::uint32_t>(plan.keys.size());
      plan.channels.push_back(entry);
    }
    std::vector<std::int32_t> priorities;  // highest first
    for (auto const& entry : plan.channels) priorities.push_back(entry.priority);
    std::sort(priorities.begin(), priorities.end(), std::greater<>{});
    priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
    plan.priorities = static_cast<std::uint32_t>(priorities.size());
    for (auto& entry : plan.channels) {
      auto at = std::lower_bound(priorities.begin(), priorities.end(), entry.priority, std::greater<>{});
      entry.priority_rank = static_cast<std::uint32_t>(at - priorities.begin());
    }
  }
  stats_slots_ = stats_ids.size();
}

ModelPlan const* Catalog::modelPlan(std::string_view model) const {
  auto it = model_plans_.find(model);
  return it == model_plans_.end() ? nullptr : &it->second;
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

#include "config/model_refresh.h"

#include <algorithm>

namespace llmux::config {
namespace {

void sortUnique(std::vector<std::string>& names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
}

bool contains(std::vector<std::string> const& sorted, std::string const& name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

}  // namespace

std::vector<std::string> upstreamModelNames(Channel const& channel) {
  std::vector<std::string> names;
  for (std::string const& model : channel.models) names.push_back(channel.upstreamModel(model));
  for (auto const& [client, upstream] : channel.model_map) names.push_back(upstream);
  sortUnique(names);
  return names;
}

ModelListDiff diffModelLists(std::vector<std::string> served, std::vector<std::string> listed) {
  sortUnique(served);
  sortUnique(listed);
  ModelListDiff diff;
  std::set_difference(listed.begin(), listed.end(), served.begin(), served.end(),
                      std::back_inserter(diff.added));
  std::set_difference(served.begin(), served.end(), listed.begin(), listed.end(),
                      std::back_inserter(diff.dropped));
  return diff;
}

Channel withListedModels(Channel channel, std::vector<std::string> listed) {
  sortUnique(listed);
  std::vector<std::string> const served = upstreamModelNames(channel);
  std::vector<std::string> models;
  for (std::string const& model : channel.models) {
    if (contains(listed, channel.upstreamModel(model))) models.push_back(model);
  }
  std::map<std::string, std::string> map;
  for (auto const& [client, upstream] : channel.model_map) {
    if (contains(listed, upstream)) map.emplace(client, upstream);
  }
  for (std::string const& name : listed) {
    bool const known = contains(served, name) ||
                       std::find(models.begin(), models.end(), name) != models.end() ||
                       map.contains(name);
    if (!known) models.push_back(name);
  }
  channel.models = std::move(models);
  channel.model_map = std::move(map);
  return channel;
}

Settings withListedModels(Settings settings,
                          std::map<std::string, std::vector<std::string>> const& listed) {
  for (Channel& channel : settings.channels) {
    auto it = listed.find(channel.name);
    if (it == listed.end() || it->second.empty()) continue;
    channel = withListedModels(std::move(channel), it->second);
  }
  return settings;
}

}  // namespace llmux::config

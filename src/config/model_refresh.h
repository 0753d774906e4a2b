#pragma once

// A channel's model list against what its upstream lists (docs/operations.md, "Model lists and
// balances"): the difference, and the channel serving the upstream's list (`auto_update`).

#include <map>
#include <string>
#include <vector>

#include "config/settings.h"

namespace llmux::config {

/// The names a channel sends upstream: each model as `model_map` renames it, and every map
/// target. Sorted, without duplicates.
std::vector<std::string> upstreamModelNames(Channel const& channel);

/// What an upstream's list changed against the names a channel sends (both sorted).
struct ModelListDiff {
  std::vector<std::string> added;    ///< listed upstream, not served
  std::vector<std::string> dropped;  ///< served, no longer listed upstream
  bool empty() const { return added.empty() && dropped.empty(); }
};

/// `served` and `listed` in any order, duplicates ignored.
ModelListDiff diffModelLists(std::vector<std::string> served, std::vector<std::string> listed);

/// `channel` serving `listed`: its models whose upstream name is listed, its map entries whose
/// target is listed, and every other listed name as a model of its own. Its other settings stay.
Channel withListedModels(Channel channel, std::vector<std::string> listed);

/// `settings` with each channel named in `listed` serving its list (withListedModels); names of
/// channels that no longer exist, and empty lists, are ignored (a channel needs a model).
Settings withListedModels(Settings settings,
                          std::map<std::string, std::vector<std::string>> const& listed);

}  // namespace llmux::config

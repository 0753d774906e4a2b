#include "racing/shadow_choice.h"

#include <algorithm>

namespace llmux::racing {

std::string_view keyAccount(std::string_view key_id) {
  auto slash = key_id.rfind('/');
  return slash == std::string_view::npos ? key_id : key_id.substr(slash + 1);
}

ShadowChoice chooseShadows(std::span<ShadowCandidate const> candidates, std::size_t primary,
                           RacePolicy const& policy, bool has_tools) {
  ShadowChoice choice;
  if (primary >= candidates.size() || policy.max_shadows <= 0) {
    choice.none_because = "no_candidate";
    return choice;
  }
  ShadowCandidate const& first = candidates[primary];
  if (policy.cheaper_shadows_only && !first.price) {
    choice.none_because = "primary_unpriced";
    return choice;
  }
  std::vector<std::string_view> accounts{keyAccount(first.key_id)};
  bool cheaper_missing = false;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (static_cast<int>(choice.shadows.size()) >= policy.max_shadows) break;
    if (i == primary) continue;
    ShadowCandidate const& c = candidates[i];
    if (c.channel == first.channel) continue;
    if (!c.racing_enabled || !c.available || c.slow) continue;
    if (has_tools && c.fails_tools) continue;
    // Distinct keys: not the primary's, not another shadow's.
    std::string_view account = keyAccount(c.key_id);
    if (std::find(accounts.begin(), accounts.end(), account) != accounts.end()) continue;
    if (policy.cheaper_shadows_only && (!c.price || *c.price > *first.price / 2)) {
      cheaper_missing = true;
      continue;
    }
    accounts.push_back(account);
    choice.shadows.push_back(i);
  }
  if (choice.shadows.empty()) choice.none_because = cheaper_missing ? "none_cheaper" : "none_eligible";
  return choice;
}

}  // namespace llmux::racing

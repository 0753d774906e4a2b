#include "routing/candidates.h"

#include <algorithm>

namespace llmux::routing {

std::uint64_t Rotation::next(std::string const& counter) {
  std::lock_guard lock(mutex_);
  return counters_[counter]++;
}

namespace {

/// Orders channels of one priority: the leader is chosen by weighted rotation, the others follow
/// in configuration order after it (so failover spreads too).
void orderByWeightedRotation(std::vector<std::size_t>& group, config::Settings const& settings,
                             std::string const& counter, Rotation& rotation) {
  if (group.size() < 2) return;
  std::uint64_t total = 0;
  for (auto c : group) total += static_cast<std::uint64_t>(std::max(settings.channels[c].weight, 1));
  std::uint64_t slot = rotation.next(counter) % total;
  std::size_t leader = 0;
  for (std::size_t i = 0; i < group.size(); ++i) {
    auto w = static_cast<std::uint64_t>(std::max(settings.channels[group[i]].weight, 1));
    if (slot < w) {
      leader = i;
      break;
    }
    slot -= w;
  }
  std::rotate(group.begin(), group.begin() + static_cast<std::ptrdiff_t>(leader), group.end());
}

}  // namespace

Plan planCandidates(Catalog const& catalog, Protocol client_protocol, std::string_view model,
                    KeyHealth const& health, Rotation& rotation) {
  Plan plan;
  auto const& settings = catalog.settings();
  std::vector<std::size_t> serving = catalog.channelsFor(model);
  if (serving.empty()) return plan;

  std::string model_name(model);
  // Whether the channel is spoken to in the client's protocol for this model (passthrough).
  auto speaksClient = [&](std::size_t c) {
    auto const& channel = settings.channels[c];
    return channel.rows[channel.rowIndexFor(client_protocol, model_name)].protocol == client_protocol;
  };
  // Priority first; then passthrough-capable channels before the ones that need translation.
  std::stable_sort(serving.begin(), serving.end(), [&](std::size_t a, std::size_t b) {
    auto const& ca = settings.channels[a];
    auto const& cb = settings.channels[b];
    if (ca.priority != cb.priority) return ca.priority > cb.priority;
    return speaksClient(a) && !speaksClient(b);
  });

  std::vector<std::size_t> ordered;
  for (std::size_t begin = 0; begin < serving.size();) {
    std::size_t c0 = serving[begin];
    int priority = settings.channels[c0].priority;
    bool native = speaksClient(c0);
    std::size_t end = begin;
    while (end < serving.size() && settings.channels[serving[end]].priority == priority &&
           speaksClient(serving[end]) == native) {
      ++end;
    }
    std::vector<std::size_t> group(serving.begin() + static_cast<std::ptrdiff_t>(begin),
                                   serving.begin() + static_cast<std::ptrdiff_t>(end));
    orderByWeightedRotation(group, settings,
                            "model:" + model_name + "@" + std::to_string(priority) +
                                (native ? "" : "/translated"),
                            rotation);
    ordered.insert(ordered.end(), group.begin(), group.end());
    begin = end;
  }

  for (auto c : ordered) {
    auto const& channel = settings.channels[c];
    std::size_t row = channel.rowIndexFor(client_protocol, model_name);
    std::size_t n = channel.keys.size();
    if (n == 0) continue;
    std::size_t first = n > 1 ? rotation.next("keys:" + channel.name) % n : 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t k = (first + i) % n;
      if (auto until = health.pausedUntil(channel.keys[k].id)) {
        if (!plan.resume_at || *until < *plan.resume_at) plan.resume_at = until;
        continue;
      }
      plan.candidates.push_back(Candidate{c, row, k});
    }
  }
  plan.status = plan.candidates.empty() ? PlanStatus::AllPaused : PlanStatus::Ready;
  return plan;
}

}  // namespace llmux::routing

#include "proxy/attempt_gates.h"

namespace llmux::proxy {

routing::AttemptSignal breakerSignal(routing::Outcome outcome) {
  using routing::AttemptSignal;
  if (outcome == routing::Outcome::Success) return AttemptSignal::Success;
  if (outcome == routing::Outcome::RateLimited) return AttemptSignal::RateLimited;
  if (routing::actionFor(outcome).trips_breaker) return AttemptSignal::CountedFailure;
  return AttemptSignal::Ignored;
}

std::string keyBucketId(config::ChannelKey const& key) { return "key:" + key.id; }

std::string modelBucketId(std::string_view channel, std::string_view upstream_model) {
  return "model:" + std::string(channel) + "/" + std::string(upstream_model);
}

std::vector<shared_state::OwnedBucketDemand> bucketDemandsFor(config::Channel const& channel,
                                                              config::ChannelKey const& key,
                                                              std::string_view upstream_model) {
  std::vector<shared_state::OwnedBucketDemand> demands;
  routing::BucketLimits key_limits{key.limits.rpm.value_or(0), key.limits.tpm.value_or(0)};
  if (key_limits.any()) demands.push_back({keyBucketId(key), key_limits});
  if (auto it = channel.model_limits.find(std::string(upstream_model));
      it != channel.model_limits.end() && it->second.any()) {
    demands.push_back({modelBucketId(channel.name, upstream_model), it->second});
  }
  return demands;
}

void BreakerRefusals::note(std::string_view channel, routing::BreakerDecision const& decision) {
  ++count;
  constexpr std::size_t kNamed = 4;  // enough to tell the operator where to look
  if (held.size() < kNamed) held.push_back(std::string(channel) + ": " + std::string(decision.reason));
  if (decision.retry_at && (!retry_at || *decision.retry_at < *retry_at)) retry_at = decision.retry_at;
}

std::string BreakerRefusals::describe() const {
  std::string text;
  for (auto const& entry : held) {
    if (!text.empty()) text += ", ";
    text += entry;
  }
  if (count > held.size()) text += " and " + std::to_string(count - held.size()) + " more";
  return text;
}

}  // namespace llmux::proxy

#include "racing/policy.h"

#include <algorithm>

namespace llmux::racing {

using namespace std::chrono_literals;

CostPreference effectivePreference(std::optional<std::string_view> header,
                                   std::optional<CostPreference> gateway_key,
                                   CostPreference global) {
  if (header) return config::parseCostPreference(*header).value_or(CostPreference::Balanced);
  if (gateway_key) return *gateway_key;
  return global;
}

RacePolicy policyFor(CostPreference preference) {
  RacePolicy policy;
  switch (preference) {
    case CostPreference::QualityFirst:
      policy.max_shadows = 3;
      policy.stream_floor = 4s;
      break;
    case CostPreference::Balanced: break;
    case CostPreference::CostFirst: policy.cheaper_shadows_only = true; break;
  }
  return policy;
}

Millis streamFloorForReasoning(Millis floor, protocol::ReasoningTier tier) {
  Millis reasoning{0};
  switch (tier) {
    case protocol::ReasoningTier::None: return floor;
    case protocol::ReasoningTier::Low: reasoning = 16s; break;
    case protocol::ReasoningTier::Medium: reasoning = 24s; break;
    case protocol::ReasoningTier::High: reasoning = 30s; break;
  }
  return std::max(floor, reasoning);
}

ThresholdBounds boundsFor(Millis floor, Millis ceiling) {
  return {std::min(floor, ceiling), ceiling};
}

}  // namespace llmux::racing

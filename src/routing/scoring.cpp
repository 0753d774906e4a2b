#include "routing/scoring.h"

namespace llmux::routing {

std::chrono::milliseconds cooldownDuration(int repeat) {
  auto duration = scoring_constants::kCooldownStep * (std::max(repeat, 0) + 1);
  return std::min(duration, scoring_constants::kCooldownMax);
}

}  // namespace llmux::routing

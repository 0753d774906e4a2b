#include "routing/candidates.h"

namespace llmux::routing {

std::uint64_t Rotation::next(std::string const& counter) {
  std::lock_guard lock(mutex_);
  return counters_[counter]++;
}

}  // namespace llmux::routing

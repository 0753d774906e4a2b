#include "store/state_dir.h"

#include <cstdlib>

namespace llmux::store {

std::filesystem::path resolveStateDir(std::string_view configured, char const* llmux_home) {
  if (!configured.empty()) return std::filesystem::path(configured);
  if (llmux_home != nullptr && *llmux_home != '\0') return std::filesystem::path(llmux_home);
  return std::filesystem::path(".llmux");
}

std::filesystem::path resolveStateDir(std::string_view configured) {
  return resolveStateDir(configured, std::getenv("LLMUX_HOME"));  // NOLINT(concurrency-mt-unsafe)
}

}  // namespace llmux::store

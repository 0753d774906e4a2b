#include <cstdio>

#include "app/commands.h"
#include "config/loader.h"

namespace llmux::app {

int runCheckConfig(std::string const& config_path) {
  auto outcome = config::loadSettingsFile(config_path, config::processEnvironment());
  if (!outcome.ok()) {
    std::fputs(config::formatIssues(outcome.issues).c_str(), stderr);
    std::fprintf(stderr, "%s: %zu error(s)\n", config_path.c_str(), outcome.issues.size());
    return 2;
  }
  auto const& s = *outcome.settings;
  std::printf("%s: OK (%zu channel(s), %zu gateway key(s))\n", config_path.c_str(),
              s.channels.size(), s.gateway_keys.size());
  // What the state database will keep, so an operator sees the disk it may take.
  if (!s.log.request_log) {
    std::printf("request log: off\n");
  } else if (s.log.request_log_retention_days == 0) {
    std::printf("request log: kept forever (log.request_log_retention_days: 0)\n");
  } else {
    std::printf("request log: requests kept %d day(s)\n", s.log.request_log_retention_days);
  }
  return 0;
}

}  // namespace llmux::app

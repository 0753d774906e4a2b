#include "app/reload_state.h"

#include "config/settings.h"
#include "routing/breakers.h"
#include "telemetry/log.h"

namespace llmux::app {

void forgetChangedRoutes(config::Settings const& before, config::Settings const& after,
                         routing::BreakerBoard& breakers) {
  for (config::Channel const& channel : after.channels) {
    for (config::Channel const& old : before.channels) {
      if (old.name != channel.name) continue;
      if (config::channelRoute(before, old) != config::channelRoute(after, channel)) {
        std::size_t const pairs = breakers.resetChannel(channel.name);
        if (pairs > 0) {
          telemetry::logInfo("channel {}: its route changed (URL, path or exit): its breakers are "
                             "reset ({} model(s))",
                             channel.name, pairs);
        }
      }
      break;
    }
  }
}

}  // namespace llmux::app

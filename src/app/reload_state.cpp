#include "app/reload_state.h"

#include "config/model_refresh.h"
#include "config/settings.h"
#include "proxy/config_holder.h"
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

namespace llmux::app {

ConfigApplier::ConfigApplier(proxy::ConfigHolder& holder, routing::BreakerBoard& breakers,
                             std::shared_ptr<const config::Settings> from_file)
    : holder_(holder), breakers_(breakers), from_file_(std::move(from_file)) {}

namespace {

/// Whether the file's channel `name` exists and has auto_update on.
bool autoUpdates(config::Settings const& settings, std::string const& name) {
  for (config::Channel const& channel : settings.channels) {
    if (channel.name == name) return channel.inspection && channel.inspection->models.auto_update;
  }
  return false;
}

}  // namespace

void ConfigApplier::applyFile(std::shared_ptr<const config::Settings> from_file) {
  std::lock_guard lock(mutex_);
  from_file_ = std::move(from_file);
  std::erase_if(listed_, [&](auto const& entry) { return !autoUpdates(*from_file_, entry.first); });
  applyLocked();
}

bool ConfigApplier::serveListed(std::string const& channel, std::vector<std::string> const& listed) {
  std::lock_guard lock(mutex_);
  // A reload may have turned auto_update off while the refresh was under way.
  if (!autoUpdates(*from_file_, channel)) return false;
  listed_[channel] = listed;
  applyLocked();
  return true;
}

void ConfigApplier::applyLocked() {
  auto next = listed_.empty() ? from_file_
                              : std::make_shared<const config::Settings>(
                                    config::withListedModels(*from_file_, listed_));
  forgetChangedRoutes(holder_.current()->settings(), *next, breakers_);
  holder_.replace(std::make_shared<const routing::Catalog>(std::move(next)));
}

}  // namespace llmux::app

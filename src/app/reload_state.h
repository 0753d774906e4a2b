#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

// What a reload does to runtime state (docs/configuration.md, "Reloads"): state keyed by an
// object that still exists is kept — key pauses and freezes by key id, router statistics,
// affinity and latency learning by key, bucket levels, gateway-key windows, pooled connections
// by route — and what was learned about a channel's route is dropped when the route changed.
namespace llmux::config {
struct Settings;
}
namespace llmux::routing {
class BreakerBoard;
}
namespace llmux::proxy {
class ConfigHolder;
}

namespace llmux::app {

/// Resets the breakers of every channel of `after` whose route (config::channelRoute: URLs,
/// paths, media endpoints, CA bundle, each key's exit) differs from its route in `before`; logs
/// each one.
void forgetChangedRoutes(config::Settings const& before, config::Settings const& after,
                         routing::BreakerBoard& breakers);

}  // namespace llmux::app


namespace llmux::app {

/// The one way a configuration comes into force: a reload (SIGHUP) and a channel's
/// `inspection.models.auto_update` both go through it, so runtime state is kept alike (the
/// catalog swapped atomically, breakers reset only for changed routes). The served lists the
/// inspection found are laid over every configuration the file gives (config/model_refresh.h)
/// until the channel's auto_update is turned off. Thread-safe (SIGHUP's thread, a worker).
class ConfigApplier {
 public:
  ConfigApplier(proxy::ConfigHolder& holder, routing::BreakerBoard& breakers,
                std::shared_ptr<const config::Settings> from_file);

  /// A reload: `from_file` becomes the configuration, with the inspection's lists laid over.
  void applyFile(std::shared_ptr<const config::Settings> from_file);
  /// Channel `channel` serves `listed` from now on; false (nothing changes) when the file's
  /// channel has no auto_update on.
  bool serveListed(std::string const& channel, std::vector<std::string> const& listed);

 private:
  void applyLocked();

  proxy::ConfigHolder& holder_;
  routing::BreakerBoard& breakers_;
  std::mutex mutex_;
  std::shared_ptr<const config::Settings> from_file_;
  std::map<std::string, std::vector<std::string>> listed_;
};

}  // namespace llmux::app

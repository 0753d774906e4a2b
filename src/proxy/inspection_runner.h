#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "http/cancellation.h"
#include "net/task.h"
#include "proxy/config_holder.h"
#include "proxy/inspection_board.h"

namespace llmux::http {
class UpstreamPool;
}

namespace llmux::proxy {

/// What the inspection shares across workers: the results, and how a channel's `auto_update`
/// takes effect (the composition root applies it as a reload would, keeping runtime state).
struct InspectionShared {
  InspectionBoard& board;
  TimeSource const& clock;
  /// Makes channel `channel` serve `listed` (its upstream names) from now on; false when its
  /// auto_update is no longer on (a reload came first).
  std::function<bool(std::string const& channel, std::vector<std::string> const& listed)>
      serve_listed;
};

/// Runs a channel's inspection (docs/operations.md, "Model lists and balances") on one worker:
/// its requests go out like real traffic's — the row's URL and auth, the channel's headers and
/// client preset, its exit — on that worker's connection pool. One worker thread.
class InspectionRunner {
 public:
  InspectionRunner(InspectionShared& shared, http::UpstreamPool& pool, ConfigHolder& config)
      : shared_(shared), pool_(pool), config_(config) {}

  /// Reads the upstream's model list of channel `name` (following up to kMaxPages pages),
  /// compares it with what the channel serves and records it; with `auto_update` the channel
  /// then serves the list. Does nothing for a channel without `inspection:`.
  net::Task<void> refreshModels(std::string name);
  /// Reads the balance of each enabled key of channel `name` and records it. Does nothing
  /// without `inspection.balance`.
  net::Task<void> probeBalances(std::string name);

  /// Ends the request under way and refuses later ones (shutdown, or the admin client left).
  void cancel(http::CancelReason reason = http::CancelReason::Shutdown) {
    cancellation_.cancel(reason);
  }
  /// Takes requests again after a cancel() that was not a shutdown.
  void resume() { cancellation_.reset(); }

  static constexpr int kMaxPages = 20;

 private:
  /// GET `path?query` as `key` of `channel` (first row); the body of a 200 answer.
  net::Task<Result<std::string>> get(config::Settings const& settings,
                                     config::Channel const& channel,
                                     config::ChannelKey const& key, std::string path,
                                     std::string query);
  net::Task<Result<double>> readBalance(config::Settings const& settings,
                                        config::Channel const& channel,
                                        config::ChannelKey const& key,
                                        config::BalanceInspection const& spec);

  InspectionShared& shared_;
  http::UpstreamPool& pool_;
  ConfigHolder& config_;
  http::Cancellation cancellation_;
};

/// `[today - 99 days, tomorrow]` as `start_date=YYYY-MM-DD&end_date=YYYY-MM-DD`: the window
/// OpenAI-style relays sum `total_usage` over (one-api asks the same).
std::string billingUsageQuery(WallTime now);

}  // namespace llmux::proxy

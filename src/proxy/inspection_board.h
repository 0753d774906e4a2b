#pragma once

// What the scheduled inspection last saw of each channel (docs/operations.md, "Model lists and
// balances"): its upstream's model list against what it serves, and each key's balance. Kept in
// memory, shown by GET /admin/inspection, exported as metrics. No I/O.

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/model_refresh.h"
#include "core/clock.h"
#include "core/result.h"

namespace llmux::telemetry {
class MetricsRegistry;
}

namespace llmux::proxy {

/// A model-list refresh of one channel.
struct ModelListCheck {
  WallTime at{};
  std::string error;                  ///< "" when the list was read
  std::vector<std::string> served;    ///< upstream names the channel served before the refresh
  std::vector<std::string> upstream;  ///< what the upstream lists (sorted)
  config::ModelListDiff diff;         ///< upstream against served
  bool auto_updated = false;          ///< the channel now serves `upstream`
};

/// A balance probe of one key.
struct BalanceCheck {
  std::string key;  ///< the key's label, never its secret
  WallTime at{};
  std::optional<double> balance;  ///< the last balance read (kept when a later probe fails)
  std::string error;              ///< "" when the last probe read it
};

/// The latest of each check of one channel.
struct ChannelInspection {
  std::string channel;
  std::optional<ModelListCheck> models;
  std::vector<BalanceCheck> balances;  ///< in the channel's key order
};

/// The latest inspection results, shared by every worker. Thread-safe.
class InspectionBoard {
 public:
  explicit InspectionBoard(telemetry::MetricsRegistry& metrics) : metrics_(metrics) {}

  /// Records a refresh: logs and counts each change not already reported by the previous one
  /// (a change stays in `diff` until the channel serves it; it is told once), and sets the
  /// channel's model gauge. Returns the changes newly reported.
  config::ModelListDiff recordModels(std::string const& channel, ModelListCheck check);
  /// Records a key's probe (a failure keeps the last balance read); sets the balance gauge and
  /// warns below `min`.
  void recordBalance(std::string const& channel, BalanceCheck check, std::optional<double> min);

  /// The results of `channel` (an empty one when never inspected).
  ChannelInspection get(std::string const& channel) const;
  /// Every channel's, by name.
  std::vector<ChannelInspection> all() const;

 private:
  telemetry::MetricsRegistry& metrics_;
  mutable std::mutex mutex_;
  std::map<std::string, ChannelInspection> channels_;
};

/// The channel named by the body of POST /admin/inspection/run: `{"channel":"name"}`.
Result<std::string> parseInspectionRun(std::string_view body);

/// `{"channel","models":{"refreshed","error","served","upstream","added","dropped",
/// "auto_updated"} or null,"balances":[{"key","balance","at","error"}]}`; times RFC 3339 UTC.
std::string channelInspectionJson(ChannelInspection const& inspection);
/// `{"channels":[...]}` of channelInspectionJson.
std::string inspectionJson(std::vector<ChannelInspection> const& channels);

}  // namespace llmux::proxy

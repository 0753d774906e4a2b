#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/settings.h"
#include "core/result.h"
#include "racing/latency_memory.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// The racing switches an operator set (`PUT /admin/racing`); unset: the configuration's.
struct RacingSwitches {
  std::optional<bool> enabled;
  std::optional<config::CostPreference> cost_preference;

  bool operator==(RacingSwitches const&) const = default;
};

/// Where racing's switches and latency learning are kept: the state database (SQLite), or with
/// `database:` PostgreSQL, shared by every replica (SharedStateSync reads it back). Calls are
/// synchronous: only a RacingWriter's thread and the sync call them, never an I/O thread.
class RacingRows {
 public:
  virtual ~RacingRows() = default;
  /// The kept switches; both unset when none were ever set. A preference this build does not
  /// know (written by a newer llmux) reads as unset.
  virtual Result<RacingSwitches> loadSwitches() = 0;
  virtual Result<void> saveSwitches(RacingSwitches const& switches, WallTime now) = 0;
  /// The latency entries updated within LatencyMemory::kKeep of `now`, oldest first; older rows
  /// are deleted.
  virtual Result<std::vector<racing::LatencyMemory::Entry>> loadLatency(WallTime now) = 0;
  /// Inserts or replaces the entry with this id.
  virtual Result<void> saveLatency(racing::LatencyMemory::Entry const& entry) = 0;
  /// Deletes the entry with this id (nothing when there is none).
  virtual Result<void> removeLatency(std::string const& id) = 0;
};

/// Racing's tables of the state database (`racing_switches`, `latency_penalties`), through a
/// connection of its own beside the request log's and the freezes'. Every call is synchronous:
/// once the gateway runs only a RacingWriter's thread calls it. Thread-safe (one mutex around the
/// connection).
class SqliteRacingStore final : public RacingRows {
 public:
  /// Creates `state_dir` if needed, opens the database and applies the migrations. Start-up only.
  static Result<std::unique_ptr<SqliteRacingStore>> open(std::filesystem::path const& state_dir);

  SqliteRacingStore(SqliteRacingStore const&) = delete;
  SqliteRacingStore& operator=(SqliteRacingStore const&) = delete;

  Result<RacingSwitches> loadSwitches() override;
  Result<void> saveSwitches(RacingSwitches const& switches, WallTime now) override;
  Result<std::vector<racing::LatencyMemory::Entry>> loadLatency(WallTime now) override;
  Result<void> saveLatency(racing::LatencyMemory::Entry const& entry) override;
  Result<void> removeLatency(std::string const& id) override;

 private:
  explicit SqliteRacingStore(SqliteDb db) : db_(std::move(db)) {}

  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace llmux::store

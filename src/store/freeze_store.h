#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "routing/freezes.h"
#include "store/freeze_writer.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// The freezes table of the state database (`<state_dir>/llmux.db`, the request log's file),
/// through a connection of its own: WAL and the busy timeout let it write beside the request log
/// writer. Every call is synchronous and durable on return, so it may wait for the disk or for
/// another connection's lock: FreezeTable reaches it only through a FreezeWriter, whose thread
/// makes the writes. Thread-safe (one mutex around the connection).
class SqliteFreezeStore final : public FreezeRows {
 public:
  /// Creates `state_dir` if needed, opens or creates the database and applies the schema
  /// migrations (a no-op when SqliteStore already did). Start-up only.
  static Result<std::unique_ptr<SqliteFreezeStore>> open(std::filesystem::path const& state_dir);

  SqliteFreezeStore(SqliteFreezeStore const&) = delete;
  SqliteFreezeStore& operator=(SqliteFreezeStore const&) = delete;

  /// Every stored freeze, expired ones included (the table drops those), oldest first. Rows with
  /// an object or period this build does not know are skipped.
  Result<std::vector<routing::Freeze>> load() override;
  Result<void> save(routing::Freeze const& freeze) override;
  Result<void> remove(std::string const& id) override;

 private:
  explicit SqliteFreezeStore(SqliteDb db) : db_(std::move(db)) {}

  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace llmux::store

#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "routing/freezes.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// The freezes table of the state database (`<state_dir>/llmux.db`, the request log's file),
/// through a connection of its own: WAL and the busy timeout let it write beside the request log
/// writer. Freezes change rarely, so every call is synchronous and durable on return. Thread-safe
/// (one mutex around the connection). Failures throw std::runtime_error: FreezeTable keeps its
/// in-memory state and counts them.
class SqliteFreezeStore final : public routing::FreezePersistence {
 public:
  /// Creates `state_dir` if needed, opens or creates the database and applies the schema
  /// migrations (a no-op when SqliteStore already did). Start-up only.
  static Result<std::unique_ptr<SqliteFreezeStore>> open(std::filesystem::path const& state_dir);

  SqliteFreezeStore(SqliteFreezeStore const&) = delete;
  SqliteFreezeStore& operator=(SqliteFreezeStore const&) = delete;

  /// Every stored freeze, expired ones included (the table drops those), oldest first. Rows with
  /// an object or period this build does not know are skipped.
  std::vector<routing::Freeze> loadFreezes() override;
  /// Inserts or replaces the freeze with this id.
  void saveFreeze(routing::Freeze const& freeze) override;
  /// Deletes the freeze with this id (nothing when there is none).
  void removeFreeze(std::string const& id) override;

 private:
  explicit SqliteFreezeStore(SqliteDb db) : db_(std::move(db)) {}

  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace llmux::store

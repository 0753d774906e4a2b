#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/managed_object.h"
#include "core/clock.h"
#include "core/result.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// One change made through the admin API, as the audit log keeps it. `before` and `after` are
/// the object's JSON with its secrets masked (config::withoutSecrets); nullopt where there was
/// none (a creation's before, a deletion's after).
struct AuditEntry {
  std::int64_t id = 0;  ///< assigned by the store, increasing
  WallTime at{};
  std::string actor;   ///< the admin token's name
  std::string action;  ///< "create", "update", "delete"
  config::ObjectKind kind = config::ObjectKind::Channel;
  std::string name;
  std::int64_t version = 0;  ///< the object's version after the change
  std::optional<std::string> before;
  std::optional<std::string> after;
};

/// What a conditional write found.
struct PutOutcome {
  bool written = false;
  std::int64_t stored_version = 0;  ///< the version stored now (the other writer's on a conflict)
};

/// Where the admin API's objects (`managed_objects`) and the audit log (`audit_log`) are kept:
/// the state database, or PostgreSQL with `database:`, where every replica reads them back.
/// Synchronous: called off the I/O threads (the admin API's changes) and by the shared-state
/// sync. Thread-safe.
class ManagedObjectRows {
 public:
  virtual ~ManagedObjectRows() = default;
  /// Every kept object, deletions included, in the order they were first made. Rows of a kind
  /// this build does not know are skipped.
  virtual Result<std::vector<config::ManagedObject>> load() = 0;
  /// Writes `object` (its `version` must be `expected_version` + 1) and its audit entry in one
  /// transaction, if the stored version of that object is still `expected_version` (0: none
  /// stored); otherwise nothing is written and the outcome says which version is stored.
  virtual Result<PutOutcome> put(config::ManagedObject const& object,
                                 std::int64_t expected_version, AuditEntry const& audit) = 0;
  /// The newest audit entries first: at most `limit`, with ids below `before_id` (0: the newest).
  virtual Result<std::vector<AuditEntry>> audit(std::int64_t before_id, std::size_t limit) = 0;
};

/// The tables in the state database (`<state_dir>/llmux.db`) through a connection of their own.
class SqliteManagedObjectStore final : public ManagedObjectRows {
 public:
  /// Creates `state_dir` if needed, opens the database and applies the migrations. Start-up only.
  static Result<std::unique_ptr<SqliteManagedObjectStore>> open(
      std::filesystem::path const& state_dir);

  Result<std::vector<config::ManagedObject>> load() override;
  Result<PutOutcome> put(config::ManagedObject const& object, std::int64_t expected_version,
                         AuditEntry const& audit) override;
  Result<std::vector<AuditEntry>> audit(std::int64_t before_id, std::size_t limit) override;

 private:
  explicit SqliteManagedObjectStore(SqliteDb db) : db_(std::move(db)) {}
  Result<PutOutcome> putLocked(config::ManagedObject const& object, std::int64_t expected_version,
                               AuditEntry const& audit);

  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace llmux::store

#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/managed_object_store.h"
#include "store/postgres_connection.h"

namespace llmux::store {

/// The admin API's objects and the audit log in PostgreSQL (`database:`), the tables every
/// replica shares: an object changed through one replica is read back by the others (the
/// shared-state sync) and comes into force there too. The same rows as SQLite's. A conditional
/// write is one statement (an insert that does nothing on a conflict, or an update of the
/// expected version), so two replicas changing one object at once cannot both succeed.
/// Synchronous; a call without a usable connection connects first. Thread-safe.
class PostgresManagedObjectStore final : public ManagedObjectRows {
 public:
  explicit PostgresManagedObjectStore(std::string url,
                                      std::chrono::milliseconds answer_timeout =
                                          PostgresConnection::kAnswerTimeout);

  Result<std::vector<config::ManagedObject>> load() override;
  Result<PutOutcome> put(config::ManagedObject const& object, std::int64_t expected_version,
                         AuditEntry const& audit) override;
  Result<std::vector<AuditEntry>> audit(std::int64_t before_id, std::size_t limit) override;

 private:
  std::mutex mutex_;
  PostgresConnection db_;
};

}  // namespace llmux::store

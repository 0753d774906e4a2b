#pragma once

#include "core/result.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// The schema version this build writes (the number of migrations it knows).
int currentSchemaVersion();

/// The version recorded in the database's `schema_version` table; 0 for a new database.
Result<int> schemaVersion(SqliteDb& db);

/// Brings the database to `currentSchemaVersion()`: each missing migration runs in its own
/// transaction together with the version bump, so a crash leaves a consistent version. Fails on a
/// database written by a newer llmux (its schema is unknown to this build).
Result<void> migrate(SqliteDb& db);

}  // namespace llmux::store

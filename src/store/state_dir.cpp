#include "store/state_dir.h"

#include <cstdlib>
#include <string>
#include <system_error>

#include "store/sqlite_schema.h"
#include "store/sqlite_store.h"

namespace llmux::store {

std::filesystem::path resolveStateDir(std::string_view configured, char const* llmux_home) {
  if (!configured.empty()) return std::filesystem::path(configured);
  if (llmux_home != nullptr && *llmux_home != '\0') return std::filesystem::path(llmux_home);
  return std::filesystem::path(".llmux");
}

std::filesystem::path resolveStateDir(std::string_view configured) {
  return resolveStateDir(configured, std::getenv("LLMUX_HOME"));  // NOLINT(concurrency-mt-unsafe)
}

Result<SqliteDb> openStateDatabase(std::filesystem::path const& state_dir, char const* pragmas) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    return makeError(ErrorKind::Internal,
                     "cannot create state directory '" + state_dir.string() + "': " + ec.message());
  }
  auto db = SqliteDb::open((state_dir / SqliteStore::kFileName).string());
  if (!db.ok()) return db.takeError();
  if (auto r = db->exec(pragmas); !r.ok()) return r.error();
  if (auto r = migrate(*db); !r.ok()) return r.error();
  return db;
}

}  // namespace llmux::store

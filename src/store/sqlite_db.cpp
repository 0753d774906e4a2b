#include "store/sqlite_db.h"

#include <sqlite3.h>

#include <string>

namespace llmux::store {
namespace {

constexpr int kBusyTimeoutMs = 5000;

Error sqliteError(std::string_view what, std::string_view detail) {
  std::string message = "sqlite: ";
  message += what;
  message += ": ";
  message += detail;
  return makeError(ErrorKind::Internal, std::move(message));
}

}  // namespace

std::int64_t toUnixMillis(WallTime t) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
}

WallTime fromUnixMillis(std::int64_t ms) {
  return WallTime(std::chrono::duration_cast<WallClock::duration>(std::chrono::milliseconds(ms)));
}

// --- SqliteStatement ----------------------------------------------------------------------------

SqliteStatement::~SqliteStatement() {
  sqlite3_finalize(stmt_);
}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

void SqliteStatement::bind(int index, std::string_view text) {
  sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void SqliteStatement::bindView(int index, std::string_view text) {
  sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_STATIC, SQLITE_UTF8);
}

void SqliteStatement::bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}

void SqliteStatement::bind(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
}

void SqliteStatement::bindNull(int index) {
  sqlite3_bind_null(stmt_, index);
}

Result<bool> SqliteStatement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return sqliteError("step", sqlite3_errmsg(sqlite3_db_handle(stmt_)));
}

void SqliteStatement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

void SqliteStatement::rewind() {
  sqlite3_reset(stmt_);
}

void SqliteStatement::clearBindings() {
  sqlite3_clear_bindings(stmt_);
}

std::string_view SqliteStatement::columnText(int column) const {
  auto const* text = reinterpret_cast<char const*>(sqlite3_column_text(stmt_, column));
  if (text == nullptr) return {};
  return std::string_view(text, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::int64_t SqliteStatement::columnInt(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

double SqliteStatement::columnDouble(int column) const {
  return sqlite3_column_double(stmt_, column);
}

int SqliteStatement::columnCount() const {
  return sqlite3_column_count(stmt_);
}

bool SqliteStatement::columnIsNull(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

// --- SqliteDb -----------------------------------------------------------------------------------

Result<SqliteDb> SqliteDb::open(std::string const& path) {
  sqlite3* db = nullptr;
  int rc = sqlite3_open_v2(
      path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr);
  if (rc != SQLITE_OK) {
    std::string detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return sqliteError("cannot open '" + path + "'", detail);
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  sqlite3_extended_result_codes(db, 1);
  return SqliteDb(db);
}

SqliteDb::~SqliteDb() {
  sqlite3_close_v2(db_);
}

SqliteDb& SqliteDb::operator=(SqliteDb&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

Result<void> SqliteDb::exec(char const* sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &message);
  if (rc == SQLITE_OK) return {};
  std::string detail = message != nullptr ? message : sqlite3_errstr(rc);
  sqlite3_free(message);
  return sqliteError("exec", detail);
}

Result<SqliteStatement> SqliteDb::prepare(std::string_view sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) return error("prepare");
  return SqliteStatement(stmt);
}

std::int64_t SqliteDb::lastInsertRowid() const {
  return sqlite3_last_insert_rowid(db_);
}

std::int64_t SqliteDb::changes() const {
  return sqlite3_changes64(db_);
}

Error SqliteDb::error(std::string_view what) const {
  return sqliteError(what, sqlite3_errmsg(db_));
}

}  // namespace llmux::store

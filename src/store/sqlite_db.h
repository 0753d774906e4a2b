#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace llmux::store {

/// The database stores instants as Unix milliseconds (UTC).
std::int64_t toUnixMillis(WallTime t);
WallTime fromUnixMillis(std::int64_t ms);

/// One prepared SQLite statement. Parameters are 1-based, columns 0-based (SQLite's own
/// convention). Text parameters are copied by SQLite, so the bound strings may die early.
class SqliteStatement {
 public:
  SqliteStatement() = default;
  explicit SqliteStatement(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~SqliteStatement();
  SqliteStatement(SqliteStatement&& other) noexcept : stmt_(other.stmt_) { other.stmt_ = nullptr; }
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(SqliteStatement const&) = delete;
  SqliteStatement& operator=(SqliteStatement const&) = delete;

  /// Binds a copy of `text`.
  void bind(int index, std::string_view text);
  /// Binds `text` without copying it: it must stay alive and unchanged until the last step with
  /// this binding, and the binding must be replaced or cleared before it goes (the hot insert of
  /// the request log binds its batch's strings this way: one allocation and copy less per value).
  void bindView(int index, std::string_view text);
  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  void bindNull(int index);

  /// Runs one step: true when a row is available, false when done.
  Result<bool> step();
  /// Ready to run again; clears the bindings.
  void reset();
  /// Ready to run again with the bindings left as they are: for a statement whose every
  /// parameter is bound anew before each step (clearing them first costs as much as a bind).
  void rewind();
  /// Sets every parameter to NULL (views bound by bindView are let go).
  void clearBindings();

  std::string_view columnText(int column) const;
  std::int64_t columnInt(int column) const;
  double columnDouble(int column) const;
  bool columnIsNull(int column) const;
  /// The columns of the statement's rows.
  int columnCount() const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

/// One SQLite connection, used by one thread at a time.
class SqliteDb {
 public:
  /// Opens (creating when missing) the database file with a busy timeout, so a writer and a
  /// reader connection wait for each other instead of failing.
  static Result<SqliteDb> open(std::string const& path);

  SqliteDb() = default;
  ~SqliteDb();
  SqliteDb(SqliteDb&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  SqliteDb& operator=(SqliteDb&& other) noexcept;
  SqliteDb(SqliteDb const&) = delete;
  SqliteDb& operator=(SqliteDb const&) = delete;

  /// Runs one or more statements without results.
  Result<void> exec(char const* sql);
  Result<SqliteStatement> prepare(std::string_view sql);
  std::int64_t lastInsertRowid() const;
  /// Rows changed by the last INSERT, UPDATE or DELETE of this connection.
  std::int64_t changes() const;

  /// An Error carrying SQLite's current message for this connection.
  Error error(std::string_view what) const;

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  sqlite3* db_ = nullptr;
};

}  // namespace llmux::store

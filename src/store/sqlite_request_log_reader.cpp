#include "store/sqlite_request_log_reader.h"

#include "store/request_log_sql.h"

namespace llmux::store {
namespace {

class SqliteRow final : public RowView {
 public:
  explicit SqliteRow(SqliteStatement const& stmt) : stmt_(stmt) {}
  bool isNull(int column) const override { return stmt_.columnIsNull(column); }
  std::string_view text(int column) const override { return stmt_.columnText(column); }
  std::int64_t integer(int column) const override { return stmt_.columnInt(column); }
  double real(int column) const override { return stmt_.columnDouble(column); }

 private:
  SqliteStatement const& stmt_;
};

}  // namespace

RowRunner sqliteRows(SqliteDb& db) {
  return [&db](SqlQuery const& query, std::function<void(RowView const&)> const& each) -> Result<void> {
    auto stmt = db.prepare(query.sql);
    if (!stmt.ok()) return stmt.takeError();
    int index = 0;
    for (SqlParam const& param : query.params) {
      ++index;
      if (auto const* number = std::get_if<std::int64_t>(&param)) {
        stmt->bind(index, *number);
      } else {
        stmt->bind(index, std::get<std::string>(param));
      }
    }
    SqliteRow row(*stmt);
    for (;;) {
      auto more = stmt->step();
      if (!more.ok()) return more.takeError();
      if (!*more) return {};
      each(row);
    }
  };
}

Result<std::unique_ptr<SqliteRequestLogReader>> SqliteRequestLogReader::open(
    std::filesystem::path const& database) {
  auto db = SqliteDb::open(database.string());
  if (!db.ok()) return db.takeError();
  if (auto r = db->exec("PRAGMA query_only=ON;"); !r.ok()) return r.error();
  return std::unique_ptr<SqliteRequestLogReader>(new SqliteRequestLogReader(std::move(*db)));
}

template <class Read>
auto SqliteRequestLogReader::inSnapshot(Read&& read) -> decltype(read()) {
  std::lock_guard lock(mutex_);
  if (auto begun = db_.exec("BEGIN"); !begun.ok()) return begun.error();
  auto result = read();
  (void)db_.exec("COMMIT");  // a read: nothing to keep or lose
  return result;
}

Result<RequestPage> SqliteRequestLogReader::search(RequestSearch const& search) {
  return inSnapshot([&] { return searchRows(sqliteRows(db_), Placeholders::Sqlite, search); });
}

Result<std::optional<LoggedRequest>> SqliteRequestLogReader::get(std::string_view request_id) {
  return inSnapshot([&] { return getRow(sqliteRows(db_), Placeholders::Sqlite, request_id); });
}

Result<UsageReport> SqliteRequestLogReader::usage(UsageQuery const& query) {
  return inSnapshot([&] { return usageRows(sqliteRows(db_), Placeholders::Sqlite, query); });
}

}  // namespace llmux::store

#include "store/postgres_request_log_reader.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "store/request_log_sql.h"

namespace llmux::store {
namespace {

/// A row of a text-format result: numbers are parsed from their text.
class PostgresRow final : public RowView {
 public:
  PostgresRow(PGresult const* result, int row) : result_(result), row_(row) {}
  bool isNull(int column) const override { return PQgetisnull(result_, row_, column) != 0; }
  std::string_view text(int column) const override { return PQgetvalue(result_, row_, column); }
  std::int64_t integer(int column) const override {
    return std::strtoll(PQgetvalue(result_, row_, column), nullptr, 10);
  }
  double real(int column) const override {
    return std::strtod(PQgetvalue(result_, row_, column), nullptr);
  }

 private:
  PGresult const* result_;
  int row_;
};

RowRunner runnerOn(PostgresConnection& db) {
  return [&db](SqlQuery const& query, std::function<void(RowView const&)> const& each) -> Result<void> {
    std::vector<std::string> params;
    params.reserve(query.params.size());
    for (SqlParam const& param : query.params) {
      if (auto const* number = std::get_if<std::int64_t>(&param)) {
        params.push_back(std::to_string(*number));
      } else {
        params.push_back(std::get<std::string>(param));
      }
    }
    auto rows = db.run(query.sql.c_str(), params, "reading the request log");
    if (!rows.ok()) return rows.takeError();
    PGresult const* result = rows->get();
    for (int i = 0; i < PQntuples(result); ++i) each(PostgresRow(result, i));
    return {};
  };
}

}  // namespace

PostgresRequestLogReader::PostgresRequestLogReader(std::string url,
                                                   std::chrono::milliseconds answer_timeout)
    : db_(std::move(url), answer_timeout) {}

template <class Read>
auto PostgresRequestLogReader::inSnapshot(Read&& read) -> decltype(read()) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  if (auto begun = db_.exec("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", "reading the request log");
      !begun.ok()) {
    return begun.error();
  }
  auto result = read();
  if (!result.ok()) return db_.abandon(result.error());
  if (auto committed = db_.exec("COMMIT", "reading the request log"); !committed.ok()) {
    return db_.abandon(committed.error());
  }
  return result;
}

Result<RequestPage> PostgresRequestLogReader::search(RequestSearch const& search) {
  return inSnapshot([&] { return searchRows(runnerOn(db_), Placeholders::Postgres, search); });
}

Result<std::optional<LoggedRequest>> PostgresRequestLogReader::get(std::string_view request_id) {
  return inSnapshot([&] { return getRow(runnerOn(db_), Placeholders::Postgres, request_id); });
}

Result<UsageReport> PostgresRequestLogReader::usage(UsageQuery const& query) {
  return inSnapshot([&] { return usageRows(runnerOn(db_), Placeholders::Postgres, query); });
}

}  // namespace llmux::store

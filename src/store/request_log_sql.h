#pragma once

// The request log readers' SQL, shared by SQLite and PostgreSQL (the same columns, times in Unix
// ms): the statements with their parameters, and the decoding of their rows. Every value a
// client sent is a parameter; the statements' text only ever holds constants of this file.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/result.h"
#include "store/request_log_reader.h"

namespace llmux::store {

/// A parameter: SQLite binds it typed, PostgreSQL sends it as text (cast where it is a number).
using SqlParam = std::variant<std::int64_t, std::string>;

enum class Placeholders : unsigned char { Sqlite, Postgres };

struct SqlQuery {
  std::string sql;
  std::vector<SqlParam> params;
};

/// One row of a result, by 0-based column.
class RowView {
 public:
  virtual ~RowView() = default;
  virtual bool isNull(int column) const = 0;
  virtual std::string_view text(int column) const = 0;
  virtual std::int64_t integer(int column) const = 0;
  virtual double real(int column) const = 0;
};

/// Runs a query, calling `each` for every row of its result.
using RowRunner =
    std::function<Result<void>(SqlQuery const& query, std::function<void(RowView const&)> const& each)>;

/// The requests' columns (30, in this order), and their decoding.
extern char const* const kRequestColumns;
LoggedRequest requestOfRow(RowView const& row);

/// The attempts' columns (starting with request_seq), and their decoding.
extern char const* const kAttemptColumns;
AttemptRecord attemptOfRow(RowView const& row);

/// The search, the lookup by id and the usage, over any store's rows.
Result<RequestPage> searchRows(RowRunner const& run, Placeholders style, RequestSearch const& search);
Result<std::optional<LoggedRequest>> getRow(RowRunner const& run, Placeholders style,
                                            std::string_view request_id);
Result<UsageReport> usageRows(RowRunner const& run, Placeholders style, UsageQuery const& query);

}  // namespace llmux::store

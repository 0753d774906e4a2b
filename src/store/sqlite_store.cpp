#include "store/sqlite_store.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <system_error>
#include <utility>

#include "store/request_log_retention.h"
#include "store/request_log_sql.h"
#include "store/sqlite_request_log_reader.h"
#include "store/sqlite_schema.h"

namespace llmux::store {
namespace {

// OR REPLACE: a running request's row is rewritten whole under its number (`seq` bound) as it
// changes; a new row binds NULL and is numbered by SQLite.
// The rows of the request log: a new row is a plain INSERT (one B-tree write per table and
// index, no statement journal); a running row written again replaces the previous one whole
// (OR REPLACE needs a statement journal, which costs a few thousand instructions a row).
constexpr char const* kRequestRow =
    "INTO requests (seq, id, started_at, route, client_protocol, gateway_key, model, stream, "
    "channel, key_label, status, error, first_byte_ms, total_ms, overhead_ms, bytes_in, bytes_out, "
    "client, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, "
    "total_tokens, usage_estimated, media_modality, media_unit, media_quantity, cost_usd, state, "
    "replica) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
    "?)";

constexpr char const* kAttemptRow =
    "INTO attempts (request_seq, request_id, attempt, channel, key_label, upstream_model, "
    "status, outcome, first_byte_ms, duration_ms, upstream_protocol, translated, strategy, "
    "route_score, first_token_ms, role, total_tokens) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

// The heartbeat (?1 this replica, ?2 now, ?3 the lapse cutoff) and the closing of lapsed
// replicas' running rows: store/request_log_writer.h.
constexpr char const* kBeat =
    "INSERT INTO replicas (id, started_at, heartbeat_at) VALUES (?1, ?2, ?2) "
    "ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at";
constexpr char const* kInterruptLapsedAttempts =
    "UPDATE attempts SET outcome = 'interrupted' WHERE outcome = 'in_progress' AND request_seq IN "
    "(SELECT seq FROM requests WHERE state = 'in_progress' AND replica IN "
    "(SELECT id FROM replicas WHERE heartbeat_at < ?1))";
constexpr char const* kInterruptLapsedRequests =
    "UPDATE requests SET state = 'interrupted', error = CASE WHEN error = '' THEN "
    "'interrupted: its replica stopped before it ended' ELSE error END "
    "WHERE state = 'in_progress' AND replica IN (SELECT id FROM replicas WHERE heartbeat_at < ?1)";
constexpr char const* kForgetLapsed = "DELETE FROM replicas WHERE heartbeat_at < ?1";
// A replica stopping (?1): the same, for its own rows.
constexpr char const* kInterruptOwnAttempts =
    "UPDATE attempts SET outcome = 'interrupted' WHERE outcome = 'in_progress' AND request_seq IN "
    "(SELECT seq FROM requests WHERE state = 'in_progress' AND replica = ?1)";
constexpr char const* kInterruptOwnRequests =
    "UPDATE requests SET state = 'interrupted', error = CASE WHEN error = '' THEN "
    "'interrupted: its replica stopped before it ended' ELSE error END "
    "WHERE state = 'in_progress' AND replica = ?1";
constexpr char const* kForgetOwn = "DELETE FROM replicas WHERE id = ?1";

// A duration that never happened (negative) is stored as NULL.
void bindMillis(SqliteStatement& stmt, int index, double ms) {
  if (ms < 0) {
    stmt.bindNull(index);
  } else {
    stmt.bind(index, ms);
  }
}

/// Binds the seven usage columns from `first` on (input, output, cache read, cache write,
/// reasoning, total, estimated): all NULL when there is no usage.
void bindUsage(SqliteStatement& stmt, int first, std::optional<TokenUsage> const& usage) {
  if (!usage) {
    for (int i = 0; i < 7; ++i) stmt.bindNull(first + i);
    return;
  }
  stmt.bind(first, usage->input);
  stmt.bind(first + 1, usage->output);
  stmt.bind(first + 2, usage->cache_read);
  stmt.bind(first + 3, usage->cache_write);
  stmt.bind(first + 4, usage->reasoning);
  stmt.bind(first + 5, usage->total());
  stmt.bind(first + 6, std::int64_t{usage->estimated ? 1 : 0});
}

[[noreturn]] void throwStoreError(Error const& error) {
  throw std::runtime_error(error.message);
}

/// The request log's SQLite backend: the writer thread's own connection, its prepared statements
/// and the retention's.
class SqliteRequestLog final : public RequestLogBackend {
 public:
  /// Prepares every statement on `db` (already migrated).
  static Result<std::unique_ptr<SqliteRequestLog>> open(SqliteDb db) {
    std::unique_ptr<SqliteRequestLog> log(new SqliteRequestLog(std::move(db)));
    // Prepared on the connection's final home: the statements keep a pointer to it.
    auto retention = RequestLogRetention::prepare(log->db_);
    if (!retention.ok()) return retention.takeError();
    log->expiry_.emplace(std::move(*retention));
    std::string const insert_request = std::string("INSERT ") + kRequestRow;
    std::string const replace_request = std::string("INSERT OR REPLACE ") + kRequestRow;
    std::string const insert_attempt = std::string("INSERT ") + kAttemptRow;
    std::string const replace_attempt = std::string("INSERT OR REPLACE ") + kAttemptRow;
    std::pair<SqliteStatement*, char const*> const to_prepare[] = {
        {&log->begin_, "BEGIN IMMEDIATE"},
        {&log->commit_, "COMMIT"},
        {&log->rollback_, "ROLLBACK"},
        {&log->insert_request_, insert_request.c_str()},
        {&log->replace_request_, replace_request.c_str()},
        {&log->insert_attempt_, insert_attempt.c_str()},
        {&log->replace_attempt_, replace_attempt.c_str()},
        {&log->trim_attempts_, "DELETE FROM attempts WHERE request_seq = ? AND attempt > ?"},
    };
    for (auto [stmt, sql] : to_prepare) {
      auto prepared = log->db_.prepare(sql);
      if (!prepared.ok()) return prepared.takeError();
      *stmt = std::move(*prepared);
    }
    return log;
  }

  Result<void> insertBatch(std::span<LogRow> batch, std::string_view replica) override;

  Result<std::size_t> heartbeat(std::string_view replica, WallTime now,
                                std::chrono::milliseconds lapse) override {
    std::int64_t const cutoff = toUnixMillis(now) - lapse.count();
    return inTransaction([&]() -> Result<std::size_t> {
      if (auto beat = run(kBeat, {replica}, {toUnixMillis(now)}); !beat.ok()) return beat.takeError();
      if (auto a = run(kInterruptLapsedAttempts, {}, {cutoff}); !a.ok()) return a.takeError();
      auto closed = run(kInterruptLapsedRequests, {}, {cutoff});
      if (!closed.ok()) return closed.takeError();
      if (auto f = run(kForgetLapsed, {}, {cutoff}); !f.ok()) return f.takeError();
      return *closed;
    });
  }

  Result<void> retire(std::string_view replica) override {
    auto done = inTransaction([&]() -> Result<std::size_t> {
      for (char const* sql : {kInterruptOwnAttempts, kInterruptOwnRequests, kForgetOwn}) {
        if (auto r = run(sql, {replica}, {}); !r.ok()) return r.takeError();
      }
      return std::size_t{0};
    });
    if (!done.ok()) return done.takeError();
    return {};
  }

  Result<std::size_t> deleteExpired(WallTime cutoff, std::size_t limit) override {
    return expiry_->deleteChunk(cutoff, limit);
  }

 private:
  explicit SqliteRequestLog(SqliteDb db) : db_(std::move(db)) {}

  SqliteDb db_;
  SqliteStatement begin_;
  SqliteStatement commit_;
  SqliteStatement rollback_;
  SqliteStatement insert_request_;   ///< a new row
  SqliteStatement replace_request_;  ///< a running row written again
  SqliteStatement insert_attempt_;
  SqliteStatement replace_attempt_;
  SqliteStatement trim_attempts_;
  std::optional<RequestLogRetention> expiry_;

  /// Runs `sql` with `texts` bound first, then `numbers`; returns the rows it changed.
  Result<std::size_t> run(char const* sql, std::initializer_list<std::string_view> texts,
                          std::initializer_list<std::int64_t> numbers) {
    auto stmt = db_.prepare(sql);
    if (!stmt.ok()) return stmt.takeError();
    int index = 0;
    for (auto text : texts) stmt->bind(++index, text);
    for (auto number : numbers) stmt->bind(++index, number);
    if (auto done = stmt->step(); !done.ok()) return done.takeError();
    return static_cast<std::size_t>(db_.changes());
  }
  /// `body` in one write transaction, rolled back when it fails.
  template <class Body>
  Result<std::size_t> inTransaction(Body&& body) {
    if (auto begun = db_.exec("BEGIN IMMEDIATE"); !begun.ok()) return begun.error();
    auto result = body();
    if (!result.ok()) {
      (void)db_.exec("ROLLBACK");
      return result;
    }
    if (auto committed = db_.exec("COMMIT"); !committed.ok()) {
      (void)db_.exec("ROLLBACK");
      return committed.error();
    }
    return result;
  }
};

Result<void> SqliteRequestLog::insertBatch(std::span<LogRow> batch, std::string_view replica) {
  // Every parameter of both inserts is bound for each row, the batch's strings as views (they
  // live until the end of this call): no copy per value, no clearing per row. The views are let
  // go before returning.
  auto release_views = [&] {
    for (SqliteStatement* insert : {&insert_request_, &replace_request_, &insert_attempt_, &replace_attempt_}) {
      insert->rewind();
      insert->clearBindings();
    }
  };
  auto fail = [&](Error error) -> Result<void> {
    release_views();
    trim_attempts_.reset();
    commit_.reset();
    rollback_.reset();
    (void)rollback_.step();
    rollback_.reset();
    return error;
  };

  begin_.reset();
  if (auto r = begin_.step(); !r.ok()) return fail(r.takeError());

  for (LogRow& row : batch) {
    RequestRecord const& r = row.record;
    bool const replaced = row.seq != 0;
    SqliteStatement& q = replaced ? replace_request_ : insert_request_;
    q.rewind();
    if (row.seq != 0) q.bind(1, row.seq); else q.bindNull(1);
    q.bindView(2, r.request_id);
    q.bind(3, toUnixMillis(r.started_at));
    q.bindView(4, r.route);
    q.bindView(5, r.client_protocol);
    q.bindView(6, r.gateway_key);
    q.bindView(7, r.model);
    q.bind(8, std::int64_t{r.stream ? 1 : 0});
    q.bindView(9, r.channel);
    q.bindView(10, r.key_label);
    q.bind(11, std::int64_t{r.status});
    q.bindView(12, r.error);
    bindMillis(q, 13, r.first_byte_ms);
    q.bind(14, r.total_ms);
    q.bind(15, r.overhead_ms);
    q.bind(16, static_cast<std::int64_t>(r.bytes_in));
    q.bind(17, static_cast<std::int64_t>(r.bytes_out));
    q.bindView(18, r.client);
    bindUsage(q, 19, r.usage);
    if (r.media) {
      q.bindView(26, r.media->modality);
      q.bindView(27, r.media->unit);
      q.bind(28, r.media->quantity);
    } else {
      q.bindNull(26);
      q.bindNull(27);
      q.bindNull(28);
    }
    if (r.cost_usd) q.bind(29, *r.cost_usd); else q.bindNull(29);
    q.bindView(30, std::string_view(row.running ? "in_progress" : "done"));
    q.bindView(31, replica);
    if (auto done = q.step(); !done.ok()) return fail(done.takeError());
    if (!replaced) row.seq = db_.lastInsertRowid();
    std::int64_t const seq = row.seq;
    if (replaced) {
      trim_attempts_.reset();
      trim_attempts_.bind(1, seq);
      trim_attempts_.bind(2, static_cast<std::int64_t>(r.attempts.size()));
      if (auto done = trim_attempts_.step(); !done.ok()) return fail(done.takeError());
    }

    std::int64_t number = 0;
    for (AttemptRecord const& a : r.attempts) {
      SqliteStatement& qa = replaced ? replace_attempt_ : insert_attempt_;
      qa.rewind();
      qa.bind(1, seq);
      qa.bindView(2, r.request_id);
      qa.bind(3, ++number);
      qa.bindView(4, a.channel);
      qa.bindView(5, a.key_label);
      qa.bindView(6, a.upstream_model);
      qa.bind(7, std::int64_t{a.status});
      qa.bind(8, a.outcome.text());
      bindMillis(qa, 9, a.first_byte_ms);
      qa.bind(10, a.duration_ms);
      qa.bindView(11, a.upstream_protocol);
      qa.bind(12, std::int64_t{a.translated ? 1 : 0});
      if (a.strategy.empty()) qa.bindNull(13); else qa.bindView(13, a.strategy);
      if (a.factors.empty()) qa.bindNull(14); else qa.bindView(14, a.factors);
      bindMillis(qa, 15, a.first_token_ms);
      if (a.role == AttemptRole::None) qa.bindNull(16); else qa.bindView(16, attemptRoleName(a.role));
      if (a.usage) qa.bind(17, a.usage->total()); else qa.bindNull(17);
      if (auto done = qa.step(); !done.ok()) return fail(done.takeError());
    }
  }


  commit_.reset();
  if (auto r = commit_.step(); !r.ok()) return fail(r.takeError());
  release_views();
  return {};
}

}  // namespace

Result<std::unique_ptr<SqliteStore>> SqliteStore::open(std::filesystem::path const& state_dir,
                                                       SqliteStoreOptions options) {
  std::error_code ec;
  std::filesystem::create_directories(state_dir, ec);
  if (ec) {
    return makeError(ErrorKind::Internal,
                     "cannot create state directory '" + state_dir.string() + "': " + ec.message());
  }
  std::filesystem::path path = state_dir / kFileName;

  auto writer = SqliteDb::open(path.string());
  if (!writer.ok()) return writer.takeError();
  // WAL: readers never block the writer and a commit is one append (fsync only at checkpoints
  // with synchronous=NORMAL, which keeps the database consistent across power loss; the last
  // commits may be lost, not corrupted).
  if (auto r = writer->exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"); !r.ok()) {
    return r.error();
  }
  if (auto r = migrate(*writer); !r.ok()) return r.error();

  auto query = SqliteDb::open(path.string());
  if (!query.ok()) return query.takeError();
  if (auto r = query->exec("PRAGMA synchronous=NORMAL;"); !r.ok()) return r.error();

  auto request_log = SqliteRequestLog::open(std::move(*writer));
  if (!request_log.ok()) return request_log.takeError();
  return std::unique_ptr<SqliteStore>(
      new SqliteStore(std::move(path), std::move(*query), std::move(*request_log), options));
}

SqliteStore::SqliteStore(std::filesystem::path path, SqliteDb query,
                         std::unique_ptr<RequestLogBackend> request_log,
                         SqliteStoreOptions options)
    : path_(std::move(path)),
      query_db_(std::move(query)),
      log_("request log", std::move(request_log), options) {}

// --- settings -----------------------------------------------------------------------------------

std::optional<std::string> SqliteStore::getSetting(std::string_view key) {
  std::lock_guard lock(query_mutex_);
  auto stmt = query_db_.prepare("SELECT value FROM settings WHERE key = ?");
  if (!stmt.ok()) throwStoreError(stmt.error());
  stmt->bind(1, key);
  auto row = stmt->step();
  if (!row.ok()) throwStoreError(row.error());
  if (!*row) return std::nullopt;
  return std::string(stmt->columnText(0));
}

void SqliteStore::putSetting(std::string_view key, std::string_view value) {
  std::lock_guard lock(query_mutex_);
  auto stmt = query_db_.prepare(
      "INSERT INTO settings (key, value, updated_at) "
      "VALUES (?, ?, CAST(strftime('%s', 'now') AS INTEGER) * 1000) "
      "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at");
  if (!stmt.ok()) throwStoreError(stmt.error());
  stmt->bind(1, key);
  stmt->bind(2, value);
  if (auto done = stmt->step(); !done.ok()) throwStoreError(done.error());
}

// --- queries ------------------------------------------------------------------------------------

Result<std::vector<RequestRecord>> SqliteStore::recentRequests(std::size_t limit) {
  std::vector<RequestRecord> out;
  if (limit == 0) return out;
  std::lock_guard lock(query_mutex_);
  // One read transaction: requests and attempts come from the same snapshot.
  if (auto begun = query_db_.exec("BEGIN"); !begun.ok()) return begun.error();
  struct EndRead {
    SqliteDb& db;
    ~EndRead() { (void)db.exec("COMMIT"); }
  } end_read{query_db_};
  RequestSearch search;
  search.limit = std::min<std::size_t>(limit, INT32_MAX);
  auto page = searchRows(sqliteRows(query_db_), Placeholders::Sqlite, search);
  if (!page.ok()) return page.takeError();
  out.reserve(page->requests.size());
  for (LoggedRequest& row : page->requests) out.push_back(std::move(row.record));
  return out;
}

}  // namespace llmux::store

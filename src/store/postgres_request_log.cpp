#include "store/postgres_request_log.h"

#include <libpq-fe.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "store/sqlite_db.h"  // toUnixMillis: the same instants as SQLite's

namespace llmux::store {
namespace {

constexpr char const* kCopyRequests =
    "COPY requests (seq, id, started_at, route, client_protocol, gateway_key, model, stream, "
    "channel, key_label, status, error, first_byte_ms, total_ms, overhead_ms, bytes_in, bytes_out, "
    "client, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, "
    "total_tokens, usage_estimated, media_modality, media_unit, media_quantity, cost_usd, state, "
    "replica) FROM STDIN";

// Running rows are rewritten whole: the old row goes (its attempts by the cascade) and the new one
// is copied in under the same number.
constexpr char const* kDeleteReplaced = "DELETE FROM requests WHERE seq = ANY($1::bigint[])";

// The heartbeat ($1 this replica, $2 now, $3 the lapse cutoff) and the closing of lapsed
// replicas' running rows: store/request_log_writer.h. One statement, so one transaction.
constexpr char const* kHeartbeat = R"sql(
WITH beat AS (
  INSERT INTO replicas (id, started_at, heartbeat_at) VALUES ($1, $2::bigint, $2::bigint)
  ON CONFLICT (id) DO UPDATE SET heartbeat_at = EXCLUDED.heartbeat_at
), lapsed AS (
  SELECT id FROM replicas WHERE heartbeat_at < $3::bigint AND id <> $1
), closed AS (
  UPDATE requests SET state = 'interrupted', error = CASE WHEN error = '' THEN
    'interrupted: its replica stopped before it ended' ELSE error END
  WHERE state = 'in_progress' AND replica IN (SELECT id FROM lapsed) RETURNING seq
), attempts_closed AS (
  UPDATE attempts SET outcome = 'interrupted'
  WHERE outcome = 'in_progress' AND request_seq IN (SELECT seq FROM closed)
), forgotten AS (
  DELETE FROM replicas WHERE id IN (SELECT id FROM lapsed)
)
SELECT count(*) FROM closed
)sql";

constexpr char const* kRetire = R"sql(
WITH closed AS (
  UPDATE requests SET state = 'interrupted', error = CASE WHEN error = '' THEN
    'interrupted: its replica stopped before it ended' ELSE error END
  WHERE state = 'in_progress' AND replica = $1 RETURNING seq
), attempts_closed AS (
  UPDATE attempts SET outcome = 'interrupted'
  WHERE outcome = 'in_progress' AND request_seq IN (SELECT seq FROM closed)
)
DELETE FROM replicas WHERE id = $1
)sql";

constexpr char const* kCopyAttempts =
    "COPY attempts (request_seq, request_id, attempt, channel, key_label, upstream_model, status, "
    "outcome, first_byte_ms, duration_ms, upstream_protocol, translated, strategy, route_score, "
    "first_token_ms, role, total_tokens) FROM STDIN";

constexpr char const* kNextSeqs =
    "SELECT nextval(pg_get_serial_sequence('requests', 'seq')) FROM generate_series(1, $1::int)";

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

/// The length of the valid UTF-8 sequence `text` starts with (a non-ASCII lead byte), or 0 when
/// it is not one (a stray continuation, an overlong form, a surrogate, beyond U+10FFFF, cut off).
std::size_t utf8Length(std::string_view text) {
  auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  unsigned char const lead = byte(0);
  std::size_t length = 0;
  unsigned char low = 0x80;  // the second byte's range
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;   // overlong
    if (lead == 0xED) high = 0x9F;  // surrogates
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;   // overlong
    if (lead == 0xF4) high = 0x8F;  // beyond U+10FFFF
  } else {
    return 0;
  }
  if (text.size() < length || byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return 0;
  }
  return length;
}

/// One row of COPY's text format: fields separated by tabs, NULL as \N, and backslash, tab,
/// newline and carriage return escaped.
class CopyRow {
 public:
  explicit CopyRow(std::string& out) : out_(out) {}
  ~CopyRow() { out_.push_back('\n'); }

  /// Text columns are UTF-8 in PostgreSQL and cannot hold NUL, while a record's text may carry
  /// any bytes (a client's model name, an upstream's error): each byte that is not part of a
  /// valid UTF-8 sequence, and each NUL, becomes U+FFFD instead of failing the whole batch.
  CopyRow& text(std::string_view value) {
    separate();
    std::size_t i = 0;
    while (i < value.size()) {
      auto const c = static_cast<unsigned char>(value[i]);
      if (c >= 0x80) {
        std::size_t const length = utf8Length(value.substr(i));
        if (length == 0) {
          out_ += kReplacement;
          ++i;
        } else {
          out_.append(value.substr(i, length));
          i += length;
        }
        continue;
      }
      switch (c) {
        case '\\':
          out_ += "\\\\";
          break;
        case '\t':
          out_ += "\\t";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\0':
          out_ += kReplacement;
          break;
        default:
          out_.push_back(static_cast<char>(c));
      }
      ++i;
    }
    return *this;
  }
  CopyRow& integer(std::int64_t value) {
    separate();
    out_ += std::to_string(value);
    return *this;
  }
  CopyRow& real(double value) {
    separate();
    char buffer[32];
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);  // shortest exact
    out_.append(buffer, ec == std::errc() ? end : buffer);
    return *this;
  }
  CopyRow& null() {
    separate();
    out_ += "\\N";
    return *this;
  }
  /// A duration that never happened (negative) is NULL, as in SQLite.
  CopyRow& millis(double ms) { return ms < 0 ? null() : real(ms); }
  CopyRow& textOrNull(std::string_view value) { return value.empty() ? null() : text(value); }

 private:
  void separate() {
    if (!first_) out_.push_back('\t');
    first_ = false;
  }
  std::string& out_;
  bool first_ = true;
};

void appendRequest(std::string& out, std::int64_t seq, RequestRecord const& r, bool running,
                   std::string_view replica) {
  CopyRow row(out);
  row.integer(seq).text(r.request_id).integer(toUnixMillis(r.started_at)).text(r.route);
  row.text(r.client_protocol).text(r.gateway_key).text(r.model).integer(r.stream ? 1 : 0);
  row.text(r.channel).text(r.key_label).integer(r.status).text(r.error).millis(r.first_byte_ms);
  row.real(r.total_ms).real(r.overhead_ms);
  row.integer(static_cast<std::int64_t>(r.bytes_in))
      .integer(static_cast<std::int64_t>(r.bytes_out));
  row.text(r.client);
  if (r.usage) {
    TokenUsage const& u = *r.usage;
    row.integer(u.input).integer(u.output).integer(u.cache_read).integer(u.cache_write);
    row.integer(u.reasoning).integer(u.total()).integer(u.estimated ? 1 : 0);
  } else {
    for (int i = 0; i < 7; ++i) row.null();
  }
  if (r.media) {
    row.text(r.media->modality).text(r.media->unit).real(r.media->quantity);
  } else {
    row.null().null().null();
  }
  if (r.cost_usd)
    row.real(*r.cost_usd);
  else
    row.null();
  row.text(running ? "in_progress" : "done").text(replica);
}

void appendAttempts(std::string& out, std::int64_t seq, RequestRecord const& r) {
  std::int64_t number = 0;
  for (AttemptRecord const& a : r.attempts) {
    CopyRow row(out);
    row.integer(seq).text(r.request_id).integer(++number).text(a.channel).text(a.key_label);
    row.text(a.upstream_model).integer(a.status).text(a.outcome.text()).millis(a.first_byte_ms);
    row.real(a.duration_ms).text(a.upstream_protocol).integer(a.translated ? 1 : 0);
    row.textOrNull(a.strategy).textOrNull(a.factors).millis(a.first_token_ms);
    if (a.role == AttemptRole::None)
      row.null();
    else
      row.text(attemptRoleName(a.role));
    if (a.usage)
      row.integer(a.usage->total());
    else
      row.null();
  }
}

}  // namespace

char const* const PostgresRequestLog::kDeleteExpired =
    "DELETE FROM requests WHERE seq IN (SELECT seq FROM requests WHERE started_at < $1::bigint "
    "ORDER BY started_at, seq LIMIT $2::bigint)";

PostgresRequestLog::PostgresRequestLog(std::string url, std::chrono::milliseconds answer_timeout)
    : db_(std::move(url), answer_timeout) {}

Result<void> PostgresRequestLog::insertBatch(std::span<LogRow> batch, std::string_view replica) {
  if (!db_.connected()) return db_.failure("not connected");
  if (batch.empty()) return {};
  if (auto begun = db_.exec("BEGIN", "BEGIN"); !begun.ok()) return begun;

  std::string replaced = "{";
  std::size_t fresh = 0;
  for (LogRow const& row : batch) {
    if (row.seq == 0) {
      ++fresh;
    } else {
      if (replaced.size() > 1) replaced += ',';
      replaced += std::to_string(row.seq);
    }
  }
  replaced += '}';
  if (replaced.size() > 2) {
    auto deleted = db_.run(kDeleteReplaced, {replaced}, "replacing running requests");
    if (!deleted.ok()) return db_.abandon(deleted.takeError());
  }
  if (fresh > 0) {
    auto drawn = db_.run(kNextSeqs, {std::to_string(fresh)}, "drawing request numbers");
    if (!drawn.ok()) return db_.abandon(drawn.takeError());
    if (PQntuples(drawn->get()) != static_cast<int>(fresh)) {
      return db_.abandon(db_.failure("drawing request numbers"));
    }
    int next = 0;
    for (LogRow& row : batch) {
      if (row.seq == 0) row.seq = std::strtoll(PQgetvalue(drawn->get(), next++, 0), nullptr, 10);
    }
  }

  std::string requests;
  std::string attempts;
  requests.reserve(batch.size() * 256);
  for (LogRow const& row : batch) {
    appendRequest(requests, row.seq, row.record, row.running, replica);
    appendAttempts(attempts, row.seq, row.record);
  }
  if (auto copied = db_.copyIn(kCopyRequests, requests); !copied.ok()) return db_.abandon(copied.error());
  if (!attempts.empty()) {
    if (auto copied = db_.copyIn(kCopyAttempts, attempts); !copied.ok()) return db_.abandon(copied.error());
  }
  if (auto committed = db_.exec("COMMIT", "COMMIT"); !committed.ok()) return db_.abandon(committed.error());
  return {};
}

Result<std::size_t> PostgresRequestLog::heartbeat(std::string_view replica, WallTime now,
                                                  std::chrono::milliseconds lapse) {
  if (!db_.connected()) return db_.failure("not connected");
  std::int64_t const now_ms = toUnixMillis(now);
  auto closed = db_.run(kHeartbeat,
                    {std::string(replica), std::to_string(now_ms), std::to_string(now_ms - lapse.count())},
                    "heartbeat");
  if (!closed.ok()) return closed.takeError();
  return static_cast<std::size_t>(std::strtoull(PQgetvalue(closed->get(), 0, 0), nullptr, 10));
}

Result<void> PostgresRequestLog::retire(std::string_view replica) {
  if (!db_.connected()) return db_.failure("not connected");
  auto done = db_.run(kRetire, {std::string(replica)}, "retiring the replica");
  if (!done.ok()) return done.takeError();
  return {};
}

Result<std::size_t> PostgresRequestLog::deleteExpired(WallTime cutoff, std::size_t limit) {
  if (!db_.connected()) return db_.failure("not connected");
  // One statement, so one transaction: the attempts go by the cascade.
  auto deleted = db_.run(kDeleteExpired, {std::to_string(toUnixMillis(cutoff)), std::to_string(limit)},
                     "deleting expired requests");
  if (!deleted.ok()) return deleted.takeError();
  return static_cast<std::size_t>(std::strtoull(PQcmdTuples(deleted->get()), nullptr, 10));
}

}  // namespace llmux::store

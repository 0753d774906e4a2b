#include "store/request_log_sql.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>
#include <unordered_map>

#include "store/sqlite_db.h"  // fromUnixMillis
#include "telemetry/client_outcome.h"

namespace llmux::store {

char const* const kRequestColumns =
    "seq, id, started_at, route, client_protocol, gateway_key, model, stream, channel, key_label, "
    "status, error, first_byte_ms, total_ms, overhead_ms, bytes_in, bytes_out, client, "
    "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, "
    "usage_estimated, media_modality, media_unit, media_quantity, cost_usd, state, replica";

char const* const kAttemptColumns =
    "request_seq, channel, key_label, upstream_model, status, outcome, first_byte_ms, duration_ms, "
    "upstream_protocol, translated, strategy, route_score, first_token_ms, role";

namespace {

// A usage query reads at most this many (group, bucket, outcome class) rows: its memory stays
// bounded whatever the range holds.
constexpr std::int64_t kMaxUsageClassRows = 100'000;

/// attempts.route_score holds the factor text (routing::formatFactors), which starts with
/// "score=<score>".
double scoreOfFactors(std::string_view factors) {
  constexpr std::string_view kPrefix = "score=";
  if (!factors.starts_with(kPrefix)) return -1;
  return std::strtod(std::string(factors.substr(kPrefix.size(), 32)).c_str(), nullptr);
}

double millisAt(RowView const& row, int column) {
  return row.isNull(column) ? -1.0 : row.real(column);
}

/// Builds a statement's text and parameters in the store's placeholder style.
class Builder {
 public:
  explicit Builder(Placeholders style) : style_(style) {}

  Builder& sql(std::string_view text) {
    query_.sql += text;
    return *this;
  }
  Builder& param(std::int64_t value) {
    query_.params.emplace_back(value);
    placeholder(true);
    return *this;
  }
  Builder& param(std::string value) {
    query_.params.emplace_back(std::move(value));
    placeholder(false);
    return *this;
  }
  SqlQuery take() { return std::move(query_); }

 private:
  void placeholder(bool number) {
    if (style_ == Placeholders::Sqlite) {
      query_.sql += '?';
      return;
    }
    query_.sql += '$' + std::to_string(query_.params.size());
    if (number) query_.sql += "::bigint";
  }

  Placeholders style_;
  SqlQuery query_;
};

SqlQuery searchQuery(Placeholders style, RequestSearch const& s) {
  Builder b(style);
  b.sql("SELECT ").sql(kRequestColumns).sql(" FROM requests WHERE 1 = 1");
  if (s.from_ms) b.sql(" AND started_at >= ").param(*s.from_ms);
  if (s.to_ms) b.sql(" AND started_at < ").param(*s.to_ms);
  if (s.before) b.sql(" AND seq < ").param(*s.before);
  if (!s.gateway_key.empty()) b.sql(" AND gateway_key = ").param(s.gateway_key);
  if (!s.model.empty()) b.sql(" AND model = ").param(s.model);
  if (!s.channel.empty()) b.sql(" AND channel = ").param(s.channel);
  if (!s.state.empty()) b.sql(" AND state = ").param(s.state);
  if (!s.request_id.empty()) b.sql(" AND id = ").param(s.request_id);
  if (s.status_min) b.sql(" AND status >= ").param(std::int64_t{*s.status_min});
  if (s.status_max) b.sql(" AND status <= ").param(std::int64_t{*s.status_max});
  // One more than asked: whether a next page exists.
  b.sql(" ORDER BY seq DESC LIMIT ").param(static_cast<std::int64_t>(s.limit) + 1);
  return b.take();
}

SqlQuery attemptsQuery(Placeholders style, std::vector<LoggedRequest> const& requests) {
  Builder b(style);
  b.sql("SELECT ").sql(kAttemptColumns).sql(" FROM attempts WHERE request_seq IN (");
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (i > 0) b.sql(", ");
    b.param(requests[i].seq);
  }
  b.sql(") ORDER BY request_seq, attempt");
  return b.take();
}

char const* groupColumn(UsageGroup group) {
  switch (group) {
    case UsageGroup::GatewayKey: return "r.gateway_key";
    case UsageGroup::Model: return "r.model";
    case UsageGroup::Channel: return "r.channel";
    case UsageGroup::None: break;
  }
  return "''";
}

std::int64_t bucketMillis(UsageBucket bucket) {
  switch (bucket) {
    case UsageBucket::Minute: return 60'000;
    case UsageBucket::Hour: return 3'600'000;
    case UsageBucket::Day: return 86'400'000;
    case UsageBucket::None: break;
  }
  return 0;
}

// Each finished request's outcome class: what telemetry::clientOutcomeOf looks at, as the
// columns keep it. `error_kind`: 0 none, 1 the client left, 2 the gateway key's own limits
// refused it (a 429 before any attempt with proxy::GatewayHandler::rejectOverLimit's message:
// `over_limit` is not a column), 3 any other error. `last_outcome`: the last attempt's, '' for
// none; `answered`: an attempt answered (ok, or a race won).
SqlQuery usageQuery(Placeholders style, UsageQuery const& q) {
  Builder b(style);
  b.sql("SELECT grp, bucket, status, error_kind, last_outcome, answered, COUNT(*), "
        "SUM(input_tokens), SUM(output_tokens), SUM(cache_read_tokens), SUM(cache_write_tokens), "
        "SUM(reasoning_tokens), SUM(cost_usd), COUNT(fb)");
  for (double bound : kFirstByteBoundsMs) {
    b.sql(", SUM(CASE WHEN fb < ").sql(std::to_string(static_cast<long>(bound))).sql(" THEN 1 ELSE 0 END)");
  }
  b.sql(" FROM (SELECT ").sql(groupColumn(q.group)).sql(" AS grp, ");
  if (std::int64_t const width = bucketMillis(q.bucket); width > 0) {
    b.sql("(r.started_at / ").sql(std::to_string(width)).sql(") * ").sql(std::to_string(width));
  } else {
    b.sql("0");
  }
  b.sql(" AS bucket, r.status AS status, "
        "CASE WHEN r.error = '' THEN 0 WHEN r.error = 'client_gone' THEN 1 "
        "WHEN r.status = 429 AND r.error LIKE 'gateway key %is over its % limit%' AND NOT EXISTS "
        "(SELECT 1 FROM attempts a WHERE a.request_seq = r.seq) THEN 2 ELSE 3 END AS error_kind, "
        "COALESCE((SELECT a.outcome FROM attempts a WHERE a.request_seq = r.seq "
        "ORDER BY a.attempt DESC LIMIT 1), '') AS last_outcome, "
        "CASE WHEN EXISTS (SELECT 1 FROM attempts a WHERE a.request_seq = r.seq AND a.outcome IN "
        "('ok', 'racing_won')) THEN 1 ELSE 0 END AS answered, "
        "COALESCE(r.input_tokens, 0) AS input_tokens, COALESCE(r.output_tokens, 0) AS output_tokens, "
        "COALESCE(r.cache_read_tokens, 0) AS cache_read_tokens, "
        "COALESCE(r.cache_write_tokens, 0) AS cache_write_tokens, "
        "COALESCE(r.reasoning_tokens, 0) AS reasoning_tokens, COALESCE(r.cost_usd, 0) AS cost_usd, "
        "CASE WHEN r.status >= 200 AND r.status < 300 THEN r.first_byte_ms END AS fb "
        "FROM requests r WHERE r.state <> 'in_progress' AND r.started_at >= ")
      .param(q.from_ms)
      .sql(" AND r.started_at < ")
      .param(q.to_ms)
      .sql(") t GROUP BY grp, bucket, status, error_kind, last_outcome, answered LIMIT ")
      .param(kMaxUsageClassRows + 1);
  return b.take();
}

/// The outcome of the requests of one class row, by the SLOs' own rule.
telemetry::ClientOutcome outcomeOfClass(RowView const& row) {
  RequestRecord probe;
  probe.status = static_cast<int>(row.integer(2));
  std::int64_t const error_kind = row.integer(3);
  if (error_kind == 1) probe.error = "client_gone";
  if (error_kind >= 2) probe.error = "error";
  probe.over_limit = error_kind == 2;
  if (row.integer(5) != 0) probe.attempts.emplace_back().outcome = AttemptOutcome::ok();
  if (std::string_view last = row.text(4); !last.empty()) {
    probe.attempts.emplace_back().outcome = AttemptOutcome::parse(last);
  }
  return telemetry::clientOutcomeOf(probe);
}

}  // namespace

LoggedRequest requestOfRow(RowView const& q) {
  LoggedRequest out;
  out.seq = q.integer(0);
  RequestRecord& r = out.record;
  r.request_id = q.text(1);
  r.started_at = fromUnixMillis(q.integer(2));
  r.route = q.text(3);
  r.client_protocol = q.text(4);
  r.gateway_key = q.text(5);
  r.model = q.text(6);
  r.stream = q.integer(7) != 0;
  r.channel = q.text(8);
  r.key_label = q.text(9);
  r.status = static_cast<int>(q.integer(10));
  r.error = q.text(11);
  r.first_byte_ms = millisAt(q, 12);
  r.total_ms = q.real(13);
  r.overhead_ms = q.real(14);
  r.bytes_in = static_cast<std::uint64_t>(q.integer(15));
  r.bytes_out = static_cast<std::uint64_t>(q.integer(16));
  r.client = q.text(17);
  if (!q.isNull(18)) {
    TokenUsage usage;
    usage.input = q.integer(18);
    usage.output = q.integer(19);
    usage.cache_read = q.integer(20);
    usage.cache_write = q.integer(21);
    usage.reasoning = q.integer(22);
    usage.estimated = q.integer(23) != 0;
    r.usage = usage;
  }
  if (!q.isNull(24)) {
    r.media = MediaUsage{std::string(q.text(24)), std::string(q.text(25)), q.real(26)};
  }
  if (!q.isNull(27)) r.cost_usd = q.real(27);
  out.state = q.text(28);
  if (!q.isNull(29)) out.replica = q.text(29);
  return out;
}

AttemptRecord attemptOfRow(RowView const& q) {
  AttemptRecord a;
  a.channel = q.text(1);
  a.key_label = q.text(2);
  a.upstream_model = q.text(3);
  a.status = static_cast<int>(q.integer(4));
  a.outcome = AttemptOutcome::parse(q.text(5));
  a.first_byte_ms = millisAt(q, 6);
  a.duration_ms = q.real(7);
  a.upstream_protocol = q.text(8);
  a.translated = q.integer(9) != 0;
  if (!q.isNull(10)) a.strategy = q.text(10);
  if (!q.isNull(11)) a.factors = q.text(11);
  a.score = scoreOfFactors(a.factors);
  a.first_token_ms = millisAt(q, 12);
  std::string_view role = q.isNull(13) ? std::string_view() : q.text(13);
  if (role == "primary") a.role = AttemptRole::Primary;
  if (role == "shadow") a.role = AttemptRole::Shadow;
  return a;
}

Result<RequestPage> searchRows(RowRunner const& run, Placeholders style, RequestSearch const& search) {
  RequestPage page;
  auto found = run(searchQuery(style, search),
                   [&](RowView const& row) { page.requests.push_back(requestOfRow(row)); });
  if (!found.ok()) return found.error();
  if (page.requests.size() > search.limit && search.limit > 0) {
    page.requests.resize(search.limit);
    page.next_before = page.requests.back().seq;
  }
  if (page.requests.empty()) return page;
  std::unordered_map<std::int64_t, std::size_t> index_of_seq;
  for (std::size_t i = 0; i < page.requests.size(); ++i) index_of_seq.emplace(page.requests[i].seq, i);
  auto attempts = run(attemptsQuery(style, page.requests), [&](RowView const& row) {
    auto it = index_of_seq.find(row.integer(0));
    if (it != index_of_seq.end()) page.requests[it->second].record.attempts.push_back(attemptOfRow(row));
  });
  if (!attempts.ok()) return attempts.error();
  return page;
}

Result<std::optional<LoggedRequest>> getRow(RowRunner const& run, Placeholders style,
                                            std::string_view request_id) {
  RequestSearch search;
  search.request_id = std::string(request_id);
  search.limit = 1;
  auto page = searchRows(run, style, search);
  if (!page.ok()) return page.takeError();
  if (page->requests.empty()) return std::optional<LoggedRequest>();
  return std::optional<LoggedRequest>(std::move(page->requests.front()));
}

Result<UsageReport> usageRows(RowRunner const& run, Placeholders style, UsageQuery const& query) {
  // Class rows come in any order: merged here by (group, bucket), which also orders them.
  std::map<std::tuple<std::string, std::int64_t>, UsageRow> merged;
  std::int64_t classes = 0;
  auto done = run(usageQuery(style, query), [&](RowView const& row) {
    if (++classes > kMaxUsageClassRows) return;
    std::int64_t const bucket = row.integer(1);
    UsageRow& out = merged[{std::string(row.text(0)), bucket}];
    if (query.group != UsageGroup::None) out.group = std::string(row.text(0));
    if (query.bucket != UsageBucket::None) out.bucket_ms = bucket;
    auto const count = static_cast<std::uint64_t>(row.integer(6));
    out.requests += count;
    switch (outcomeOfClass(row)) {
      case telemetry::ClientOutcome::Success: out.succeeded += count; break;
      case telemetry::ClientOutcome::Failed: out.failed += count; break;
      case telemetry::ClientOutcome::Cancelled: out.cancelled += count; break;
      case telemetry::ClientOutcome::Rejected: out.rejected += count; break;
    }
    out.input_tokens += row.integer(7);
    out.output_tokens += row.integer(8);
    out.cache_read_tokens += row.integer(9);
    out.cache_write_tokens += row.integer(10);
    out.reasoning_tokens += row.integer(11);
    out.cost_usd += row.real(12);
    out.first_byte_samples += static_cast<std::uint64_t>(row.integer(13));
    for (std::size_t i = 0; i < kFirstByteBounds; ++i) {
      out.first_byte_under[i] += static_cast<std::uint64_t>(row.integer(14 + static_cast<int>(i)));
    }
  });
  if (!done.ok()) return done.error();
  UsageReport report;
  report.truncated = classes > kMaxUsageClassRows || merged.size() > kMaxUsageRows;
  for (auto& [key, row] : merged) {
    if (report.rows.size() == kMaxUsageRows) break;
    report.rows.push_back(std::move(row));
  }
  return report;
}

std::optional<double> firstBytePercentile(UsageRow const& row, double p) {
  if (row.first_byte_samples == 0) return std::nullopt;
  double const rank = p * static_cast<double>(row.first_byte_samples);
  double lower = 0;
  double below = 0;  // samples under `lower`
  for (std::size_t i = 0; i < kFirstByteBounds; ++i) {
    double const upper = kFirstByteBoundsMs[i];
    double const under = static_cast<double>(row.first_byte_under[i]);
    if (under >= rank && under > below) {
      return lower + (upper - lower) * (rank - below) / (under - below);
    }
    lower = upper;
    below = under;
  }
  return kFirstByteBoundsMs[kFirstByteBounds - 1];
}

}  // namespace llmux::store

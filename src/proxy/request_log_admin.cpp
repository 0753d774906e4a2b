#include "proxy/request_log_admin.h"

#include <charconv>
#include <optional>

#include "core/json_text.h"
#include "protocol/percent_encoding.h"
#include "store/sqlite_db.h"  // fromUnixMillis
#include "telemetry/time_format.h"

namespace llmux::proxy {
namespace {

class JsonObject {
 public:
  explicit JsonObject(std::string& out) : out_(out) { out_ += '{'; }
  ~JsonObject() { out_ += '}'; }
  JsonObject(JsonObject const&) = delete;
  JsonObject& operator=(JsonObject const&) = delete;

  std::string& key(std::string_view name) {
    if (!first_) out_ += ',';
    first_ = false;
    appendJsonString(out_, name);
    out_ += ':';
    return out_;
  }
  void text(std::string_view name, std::string_view value) { appendJsonString(key(name), value); }
  void integer(std::string_view name, std::int64_t value) { key(name) += std::to_string(value); }
  void real(std::string_view name, double value) {
    char buf[32];
    auto end = std::to_chars(buf, buf + sizeof buf, value).ptr;
    key(name).append(buf, end);
  }
  void boolean(std::string_view name, bool value) { key(name) += value ? "true" : "false"; }
  void null(std::string_view name) { key(name) += "null"; }
  /// A duration in ms, null when it never happened (negative).
  void millis(std::string_view name, double ms) {
    if (ms < 0) {
      null(name);
    } else {
      real(name, ms);
    }
  }
  void time(std::string_view name, WallTime t) { appendJsonString(key(name), telemetry::formatRfc3339Millis(t)); }

 private:
  std::string& out_;
  bool first_ = true;
};

void appendAttempt(std::string& out, AttemptRecord const& a, int number) {
  JsonObject o(out);
  o.integer("attempt", number);
  o.text("channel", a.channel);
  o.text("key_label", a.key_label);  // the label: the secret never leaves the gateway
  o.text("upstream_model", a.upstream_model);
  o.text("upstream_protocol", a.upstream_protocol);
  o.boolean("translated", a.translated);
  o.integer("status", a.status);
  o.text("outcome", a.outcome.text());
  o.millis("first_byte_ms", a.first_byte_ms);
  o.millis("first_token_ms", a.first_token_ms);
  o.real("duration_ms", a.duration_ms);
  if (a.strategy.empty()) o.null("strategy"); else o.text("strategy", a.strategy);
  if (a.factors.empty()) o.null("route_score"); else o.text("route_score", a.factors);
  if (a.role == AttemptRole::None) o.null("role"); else o.text("role", attemptRoleName(a.role));
}

void appendRequest(std::string& out, RequestRecord const& r, std::int64_t seq,
                   std::string_view state, std::string_view replica) {
  JsonObject o(out);
  o.text("id", r.request_id);
  o.integer("seq", seq);
  o.time("started_at", r.started_at);
  // A running request has not ended; otherwise its end is its start plus its total time.
  if (state == "in_progress") {
    o.null("ended_at");
  } else {
    o.time("ended_at", r.started_at + std::chrono::duration_cast<WallClock::duration>(
                                          std::chrono::duration<double, std::milli>(r.total_ms)));
  }
  o.text("state", state);
  if (replica.empty()) o.null("replica"); else o.text("replica", replica);
  o.text("route", r.route);
  o.text("client_protocol", r.client_protocol);
  o.text("client", r.client);
  o.text("gateway_key", r.gateway_key);
  o.text("model", r.model);
  o.boolean("stream", r.stream);
  o.text("channel", r.channel);
  o.text("key_label", r.key_label);
  o.integer("status", r.status);
  o.text("error", r.error);
  o.millis("first_byte_ms", r.first_byte_ms);
  o.real("total_ms", r.total_ms);
  o.real("overhead_ms", r.overhead_ms);
  o.integer("bytes_in", static_cast<std::int64_t>(r.bytes_in));
  o.integer("bytes_out", static_cast<std::int64_t>(r.bytes_out));
  if (r.usage) {
    JsonObject u(o.key("usage"));
    u.integer("input_tokens", r.usage->input);
    u.integer("output_tokens", r.usage->output);
    u.integer("cache_read_tokens", r.usage->cache_read);
    u.integer("cache_write_tokens", r.usage->cache_write);
    u.integer("reasoning_tokens", r.usage->reasoning);
    u.integer("total_tokens", r.usage->total());
    u.boolean("estimated", r.usage->estimated);
  } else {
    o.null("usage");
  }
  if (r.cost_usd) o.real("cost_usd", *r.cost_usd); else o.null("cost_usd");
  if (r.media) {
    JsonObject m(o.key("media"));
    m.text("modality", r.media->modality);
    m.text("unit", r.media->unit);
    m.real("quantity", r.media->quantity);
  } else {
    o.null("media");
  }
  std::string& attempts = o.key("attempts");
  attempts += '[';
  int number = 0;
  for (AttemptRecord const& a : r.attempts) {
    if (number > 0) attempts += ',';
    appendAttempt(attempts, a, ++number);
  }
  attempts += ']';
}

}  // namespace

std::optional<store::QueryParams> splitQuery(std::string_view query) {
  store::QueryParams params;
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    auto eq = part.find('=');
    auto name = protocol::percentDecode(part.substr(0, eq));
    auto value = protocol::percentDecode(eq == std::string_view::npos ? std::string_view()
                                                                      : part.substr(eq + 1));
    if (!name || !value) return std::nullopt;
    params.emplace_back(std::move(*name), std::move(*value));
  }
  return params;
}

std::string loggedRequestJson(store::LoggedRequest const& request) {
  return requestJson(request.record, request.seq, request.state, request.replica);
}

std::string requestJson(RequestRecord const& record, std::int64_t seq, std::string_view state,
                        std::string_view replica) {
  std::string out;
  appendRequest(out, record, seq, state, replica);
  return out;
}

std::string requestPageJson(store::RequestPage const& page) {
  std::string out = "{\"requests\":[";
  bool first = true;
  for (auto const& request : page.requests) {
    if (!first) out += ',';
    first = false;
    appendRequest(out, request.record, request.seq, request.state, request.replica);
  }
  out += "],\"next_before\":";
  out += page.next_before ? std::to_string(*page.next_before) : "null";
  out += '}';
  return out;
}

std::string usageJson(store::UsageReport const& report) {
  std::string out = "{\"rows\":[";
  bool first = true;
  for (auto const& row : report.rows) {
    if (!first) out += ',';
    first = false;
    JsonObject o(out);
    if (row.group) o.text("group", *row.group); else o.null("group");
    if (row.bucket_ms) o.time("bucket", store::fromUnixMillis(*row.bucket_ms)); else o.null("bucket");
    o.integer("requests", static_cast<std::int64_t>(row.requests));
    o.integer("succeeded", static_cast<std::int64_t>(row.succeeded));
    o.integer("failed", static_cast<std::int64_t>(row.failed));
    o.integer("cancelled", static_cast<std::int64_t>(row.cancelled));
    o.integer("rejected", static_cast<std::int64_t>(row.rejected));
    o.integer("input_tokens", row.input_tokens);
    o.integer("output_tokens", row.output_tokens);
    o.integer("cache_read_tokens", row.cache_read_tokens);
    o.integer("cache_write_tokens", row.cache_write_tokens);
    o.integer("reasoning_tokens", row.reasoning_tokens);
    o.real("cost_usd", row.cost_usd);
    for (auto [name, p] : {std::pair{"first_token_p50_ms", 0.5}, std::pair{"first_token_p95_ms", 0.95}}) {
      if (auto ms = store::firstBytePercentile(row, p)) o.real(name, *ms); else o.null(name);
    }
  }
  out += "],\"truncated\":";
  out += report.truncated ? "true" : "false";
  out += '}';
  return out;
}

}  // namespace llmux::proxy

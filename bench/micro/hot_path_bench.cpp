// llmux-hot-path-bench: what some per-request steps of the gateway cost, each alone, in
// nanoseconds per call (the median of several repetitions): the access-log line of a finished
// chat request, an upstream's response head parsed (OpenAI's, as the mock provider sends it; also
// by Beast's parser, which it replaced), the client's copy of its headers, the request's metrics,
// and a header value's and a JSON string's checks.
// The byte scans are also timed as they were before (byte by byte), side by side. Build it at two
// commits to see another change's own gain; `bench/RESULTS.md` keeps the figures.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <boost/beast/http/basic_parser.hpp>

#include "core/ascii_scan.h"
#include "core/http_headers.h"
#include "core/http_syntax.h"
#include "core/json_text.h"
#include "core/request_record.h"
#include "http/response_parser.h"
#include "proxy/upstream_request.h"
#include "telemetry/access_log.h"
#include "telemetry/metrics.h"
#include "telemetry/request_metrics.h"

namespace llmux::bench {
namespace {

/// A finished non-stream chat request as the bench's load makes them.
RequestRecord chatRecord() {
  RequestRecord r;
  r.request_id = "dadc521a1d6418991c56be686cb7dd2a";
  r.started_at = WallClock::now();
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.gateway_key = "bench";
  r.client = "unknown";
  r.model = "gpt-4o-mini";
  r.channel = "mock";
  r.key_label = "mock#0";
  r.status = 200;
  r.first_byte_ms = 13.942;
  r.total_ms = 15.438;
  r.overhead_ms = 0.056;
  r.bytes_in = 97;
  r.bytes_out = 807;
  r.usage = TokenUsage{.input = 25, .output = 12};
  AttemptRecord a;
  a.channel = "mock";
  a.key_label = "mock#0";
  a.upstream_model = "gpt-4o-mini";
  a.upstream_protocol = "openai-chat";
  a.status = 200;
  a.outcome = AttemptOutcome::ok();
  a.outcome_class = "success";
  a.first_byte_ms = 4.464;
  a.duration_ms = 5.1;
  a.strategy = "intelligent";
  a.score = 0.973;
  a.factors = "score=0.9728 weight=1 headroom=1 failures=1 cooldown=1 affinity=1 billing=1 "
              "yield=1 performance=0.9728 latency=1";
  r.attempts.push_back(a);
  return r;
}

/// The response head of OpenAI's chat completions (tests/data/fixtures; the mock sends these).
HeaderList openAiResponseHeaders() {
  HeaderList h;
  h.add("content-type", "application/json");
  h.add("x-request-id", "req_7e5cc0af086c03e153eadb6a99cebd0c");
  h.add("openai-processing-ms", "212");
  h.add("x-ratelimit-limit-requests", "500");
  h.add("x-ratelimit-limit-tokens", "200000");
  h.add("x-ratelimit-remaining-requests", "499");
  h.add("x-ratelimit-remaining-tokens", "199000");
  h.add("x-ratelimit-reset-requests", "120ms");
  h.add("x-ratelimit-reset-tokens", "1ms");
  h.add("Content-Length", "776");
  return h;
}

/// The checks as they were before `core/ascii_scan`, byte by byte: the reference for its gain.
bool isSafeHeaderValueByteByByte(std::string_view value) {
  for (char c : value) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return false;
  }
  return true;
}

bool needsJsonEscapeByteByByte(std::string_view s) {
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == '"' || c == '\\') return true;
  }
  return false;
}

/// The response head of OpenAI's chat completions on the wire (what the mock provider sends).
std::string const kOpenAiHead =
    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n"
    "x-request-id: req_7e5cc0af086c03e153eadb6a99cebd0c\r\nopenai-processing-ms: 212\r\n"
    "x-ratelimit-limit-requests: 500\r\nx-ratelimit-limit-tokens: 200000\r\n"
    "x-ratelimit-remaining-requests: 499\r\nx-ratelimit-remaining-tokens: 199000\r\n"
    "x-ratelimit-reset-requests: 120ms\r\nx-ratelimit-reset-tokens: 1ms\r\n"
    "Content-Length: 776\r\n\r\n";

/// Beast's response parser as the upstream side used it before `http::ResponseParser`: the
/// fields into a HeaderList from its callback.
class BeastHeadParser final : public boost::beast::http::basic_parser<false> {
 public:
  HeaderList headers;

 private:
  using ErrorCode = boost::beast::error_code;
  using View = boost::beast::string_view;
  void on_request_impl(boost::beast::http::verb, View, View, int, ErrorCode&) override {}
  void on_response_impl(int, View, int, ErrorCode&) override {}
  void on_field_impl(boost::beast::http::field, View name, View value, ErrorCode&) override {
    headers.add(name, value);
  }
  void on_header_impl(ErrorCode&) override {}
  void on_body_init_impl(boost::optional<std::uint64_t> const&, ErrorCode&) override {}
  std::size_t on_body_impl(View body, ErrorCode&) override { return body.size(); }
  void on_chunk_header_impl(std::uint64_t, View, ErrorCode&) override {}
  std::size_t on_chunk_body_impl(std::uint64_t, View body, ErrorCode&) override {
    return body.size();
  }
  void on_finish_impl(ErrorCode&) override {}
};

struct Case {
  char const* name;
  std::function<std::size_t()> run;  ///< one call; returns something to keep it from being elided
};

double nanosPerCall(Case const& c, int calls) {
  std::size_t sink = 0;
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) sink += c.run();
  auto elapsed = std::chrono::steady_clock::now() - start;
  if (sink == 42) std::puts("");  // never true in practice; keeps `sink` alive
  return std::chrono::duration<double, std::nano>(elapsed).count() / calls;
}

}  // namespace
}  // namespace llmux::bench

int main(int argc, char** argv) {
  using namespace llmux;
  using namespace llmux::bench;
  CLI::App app("llmux-hot-path-bench: per-request steps of the gateway, each alone");
  int calls = 200'000;
  int repetitions = 7;
  app.add_option("--calls", calls, "calls per repetition");
  app.add_option("--repetitions", repetitions, "repetitions (the median is printed)");
  CLI11_PARSE(app, argc, argv);

  RequestRecord const record = chatRecord();
  HeaderList const upstream = openAiResponseHeaders();
  telemetry::MetricsRegistry registry;
  telemetry::RequestMetrics metrics(registry);
  std::string line;
  std::string const value(300, 'v');  // a long header value or prompt line without escapes

  std::vector<Case> cases = {
      {"access-log line", [&] {
         line.clear();
         telemetry::appendAccessLine(line, record);
         return line.size();
       }},
      {"upstream response head", [&] {
         http::ResponseParser parser;
         return parser.put(kOpenAiHead).used + parser.headers().size();
       }},
      {"  the same, Beast's parser", [&] {
         BeastHeadParser parser;
         parser.headers.reserve(16, 512);
         boost::beast::error_code ec;
         std::size_t used = parser.put(boost::asio::buffer(kOpenAiHead), ec);
         return used + parser.headers.size();
       }},
      {"client response headers", [&] {
         return proxy::clientResponseHeaders(upstream, record.request_id, false).size();
       }},
      {"request metrics", [&] {
         metrics.observe(record);
         return std::size_t{1};
       }},
      {"header value check, 300 B", [&] { return std::size_t{isSafeHeaderValue(value)}; }},
      {"  the same, byte by byte", [&] { return std::size_t{isSafeHeaderValueByteByByte(value)}; }},
      {"JSON escape test, 300 B", [&] { return std::size_t{findJsonSpecial(value) < value.size()}; }},
      {"  the same, byte by byte", [&] { return std::size_t{needsJsonEscapeByteByByte(value)}; }},
      {"JSON string, 300 B", [&] {
         line.clear();
         appendJsonString(line, value);
         return line.size();
       }},
  };
  std::printf("%-28s %12s\n", "step", "ns/call");
  for (auto const& c : cases) {
    nanosPerCall(c, calls / 10);  // warm-up
    std::vector<double> runs;
    for (int r = 0; r < repetitions; ++r) runs.push_back(nanosPerCall(c, calls));
    std::sort(runs.begin(), runs.end());
    std::printf("%-28s %12.1f\n", c.name, runs[runs.size() / 2]);
  }
  return 0;
}

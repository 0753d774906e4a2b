#include "failover_run.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <thread>
#include <vector>

#include "canned_upstream.h"
#include "http_wire.h"

namespace llmux::bench {
namespace {

// What the storm upstream answers: an OpenAI rate-limit error that allows an immediate retry.
constexpr std::string_view kStormBody =
    R"({"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}})";
// What the fallback answers: a minimal valid OpenAI Chat completion.
constexpr std::string_view kFallbackBody =
    R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}})";
// How long to wait for an upstream's record of an answer the client has already seen the effect
// of: only the upstream's own thread can be late here (preempted after its write()).
constexpr std::chrono::milliseconds kRecordWait{1000};

std::string stormAnswer() {
  return "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 0\r\n"
         "content-length: " +
         std::to_string(kStormBody.size()) + "\r\n\r\n" + std::string(kStormBody);
}

std::string fallbackAnswer() {
  return "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: keep-alive\r\n"
         "content-length: " +
         std::to_string(kFallbackBody.size()) + "\r\n\r\n" + std::string(kFallbackBody);
}

std::string chatRequest(FailoverOptions const& options) {
  std::string body = R"({"model":")" + options.model +
                     R"(","stream":false,"messages":[{"role":"user","content":"hi"}]})";
  char host[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &options.gateway.sin_addr, host, sizeof host);
  return "POST /v1/chat/completions HTTP/1.1\r\nhost: " + std::string(host) + ":" +
         std::to_string(ntohs(options.gateway.sin_port)) + "\r\nauthorization: Bearer " +
         options.gateway_key +
         "\r\ncontent-type: application/json\r\ncontent-length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

/// The client's side of one request.
struct Exchange {
  bool ok = false;     ///< a complete response was read
  bool stale = false;  ///< a reused connection was closed before any answer byte: send again
  int status = 0;
  std::int64_t sent_ns = 0;  ///< right before the request's write()
  std::int64_t done_ns = 0;  ///< right after the read that completed the response
  std::string error;
};

/// The client: one keep-alive connection to the gateway, reopened when closed.
class Client {
 public:
  Client(sockaddr_in gateway, std::string request, int timeout_ms)
      : gateway_(gateway), request_(std::move(request)), timeout_ms_(timeout_ms) {}
  ~Client() { closeConnection(); }

  Exchange send() {
    Exchange ex = attempt();
    if (ex.stale) ex = attempt();
    return ex;
  }

  int connects() const { return connects_; }

 private:
  void closeConnection() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  Exchange attempt() {
    Exchange ex;
    bool reused = fd_ >= 0;
    if (!reused) {
      fd_ = connectBlocking(gateway_);
      if (fd_ < 0) {
        ex.error = std::string("connect: ") + std::strerror(errno);
        return ex;
      }
      ++connects_;
    }
    ResponseReader reader;
    ex.sent_ns = monotonicNs();
    std::int64_t deadline = ex.sent_ns + std::int64_t{timeout_ms_} * 1'000'000;
    if (!writeAll(fd_, request_)) {
      ex.error = std::string("write: ") + std::strerror(errno);
      ex.stale = reused;
      closeConnection();
      return ex;
    }
    char buffer[16384];
    bool got_any = false;
    while (reader.state() != ReadState::Done) {
      std::int64_t left_ms = (deadline - monotonicNs()) / 1'000'000;
      if (left_ms <= 0) {
        ex.error = "timeout";
        closeConnection();
        return ex;
      }
      pollfd pfd{fd_, POLLIN, 0};
      int ready = ::poll(&pfd, 1, static_cast<int>(left_ms));
      if (ready <= 0) continue;
      ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
      if (n <= 0) {
        if (n == 0) reader.onEof();
        closeConnection();
        if (reader.state() == ReadState::Done) break;
        ex.stale = reused && !got_any;
        ex.error = n == 0 ? "connection closed mid-response" : std::strerror(errno);
        return ex;
      }
      got_any = true;
      reader.feed(std::string_view(buffer, static_cast<std::size_t>(n)));
      if (reader.state() == ReadState::Malformed) {
        ex.error = "malformed response";
        closeConnection();
        return ex;
      }
    }
    ex.done_ns = monotonicNs();
    ex.ok = true;
    ex.status = reader.status();
    if (reader.closeAfter()) closeConnection();
    return ex;
  }

  sockaddr_in gateway_;
  std::string request_;
  int timeout_ms_;
  int fd_ = -1;
  int connects_ = 0;
};

/// One failed-over request's timeline, in microseconds.
struct Sample {
  double gap_us = 0;  ///< storm's 429 written -> fallback's first read of the request
  /// storm's 429 write() started -> fallback's first read: the bound when the storm thread was
  /// held inside its write() (the woken gateway ran on its core first).
  double gap_from_write_start_us = 0;
  double client_us = 0;     ///< client's write -> complete response
  double to_storm_us = 0;   ///< client's write -> storm's first read (gateway in, connect)
  double storm_own_us = 0;  ///< storm's first read -> its 429 written (rest of the request, answer)
  double back_us = 0;       ///< fallback's answer written -> client has the response
};

/// Everything counted over the recorded requests.
struct Totals {
  std::vector<Sample> samples;
  int storm_skipped = 0;  ///< answered 200 by the fallback without a 429 first
  int storm_repeats = 0;  ///< failed over after more than one 429
  int errors = 0;         ///< not answered 200 by the fallback
  std::map<std::string, int> error_kinds;
};

double micros(std::int64_t ns) {
  return static_cast<double>(ns) / 1000.0;
}

/// Sends one request and classifies it; a sample only when it was failed over.
void runOne(Client& client, CannedUpstream& storm, CannedUpstream& fallback, Totals& totals) {
  std::size_t storm_before = storm.received();
  std::size_t fallback_before = fallback.received();
  Exchange ex = client.send();
  std::size_t storm_hits = storm.received() - storm_before;
  std::size_t fallback_hits = fallback.received() - fallback_before;
  auto fail = [&](std::string kind) {
    ++totals.errors;
    ++totals.error_kinds[std::move(kind)];
  };
  if (!ex.ok) return fail(ex.error);
  if (ex.status != 200) return fail("status " + std::to_string(ex.status));
  if (fallback_hits != 1)
    return fail("fallback saw " + std::to_string(fallback_hits) + " requests");
  if (storm_hits == 0) {
    ++totals.storm_skipped;
    return;
  }
  if (storm_hits > 1) ++totals.storm_repeats;
  auto first_429 = storm.waitAnswered(storm_before, kRecordWait);
  auto last_429 = storm.waitAnswered(storm_before + storm_hits - 1, kRecordWait);
  auto arrival = fallback.waitAnswered(fallback_before, kRecordWait);
  if (!first_429 || !last_429 || !arrival) return fail("upstream record missing");
  if (last_429->write_failed) return fail("storm could not write its 429");
  Sample s;
  s.gap_us = micros(arrival->arrived_ns - last_429->written_ns);
  s.gap_from_write_start_us = micros(arrival->arrived_ns - last_429->write_started_ns);
  s.client_us = micros(ex.done_ns - ex.sent_ns);
  s.to_storm_us = micros(first_429->arrived_ns - ex.sent_ns);
  s.storm_own_us = micros(last_429->written_ns - last_429->arrived_ns);
  s.back_us = micros(ex.done_ns - arrival->written_ns);
  totals.samples.push_back(s);
}

/// Nearest-rank percentile (as bench/benchlib/stats.py); 0 when empty.
double percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
  rank = std::clamp<std::size_t>(rank, 1, values.size());
  return values[rank - 1];
}

template <class Field>
std::vector<double> series(std::vector<Sample> const& samples, Field field) {
  std::vector<double> out;
  out.reserve(samples.size());
  for (auto const& s : samples) out.push_back(field(s));
  return out;
}

void writeSeries(std::FILE* f, char const* name, std::vector<double> const& values) {
  std::fprintf(f, "\"%s\":[", name);
  for (std::size_t i = 0; i < values.size(); ++i) std::fprintf(f, i ? ",%.1f" : "%.1f", values[i]);
  std::fprintf(f, "]");
}

void writeJson(std::FILE* f, FailoverOptions const& options, Totals const& totals,
               ConnectionTally const& storm, ConnectionTally const& fallback, int client_connects,
               double seconds) {
  auto gap = series(totals.samples, [](Sample const& s) { return s.gap_us; });
  auto client = series(totals.samples, [](Sample const& s) { return s.client_us; });
  int not_failed_over = options.requests - static_cast<int>(totals.samples.size());
  std::fprintf(f, "{\"requests\":%d,\"warmup\":%d,\"seconds\":%.3f,\"samples\":%zu,",
               options.requests, options.warmup, seconds, totals.samples.size());
  std::fprintf(f, "\"p50_us\":%.1f,\"p90_us\":%.1f,\"p99_us\":%.1f,\"max_us\":%.1f,",
               percentile(gap, 50), percentile(gap, 90), percentile(gap, 99), percentile(gap, 100));
  std::fprintf(f, "\"min_us\":%.1f,\"client_p50_us\":%.1f,\"client_p99_us\":%.1f,",
               percentile(gap, 0), percentile(client, 50), percentile(client, 99));
  auto from_start =
      series(totals.samples, [](Sample const& s) { return s.gap_from_write_start_us; });
  auto negative = std::count_if(gap.begin(), gap.end(), [](double us) { return us < 0; });
  std::fprintf(f,
               "\"from_write_start_p50_us\":%.1f,\"from_write_start_p99_us\":%.1f,"
               "\"from_write_start_max_us\":%.1f,\"negative_gaps\":%td,",
               percentile(from_start, 50), percentile(from_start, 99), percentile(from_start, 100),
               negative);
  std::fprintf(f, "\"not_failed_over\":%d,\"storm_skipped\":%d,\"storm_repeats\":%d,\"errors\":%d,",
               not_failed_over, totals.storm_skipped, totals.storm_repeats, totals.errors);
  std::fprintf(f, "\"error_kinds\":{");
  bool first = true;
  for (auto const& [kind, count] : totals.error_kinds) {
    std::fprintf(f, "%s\"", first ? "" : ",");
    for (char c : kind) std::fputc(c == '"' || c == '\\' ? '_' : c, f);
    std::fprintf(f, "\":%d", count);
    first = false;
  }
  std::fprintf(
      f,
      "},\"phases_p50_us\":{\"to_storm\":%.1f,\"storm_own\":%.1f,\"gap\":%.1f,"
      "\"back\":%.1f},",
      percentile(series(totals.samples, [](Sample const& s) { return s.to_storm_us; }), 50),
      percentile(series(totals.samples, [](Sample const& s) { return s.storm_own_us; }), 50),
      percentile(gap, 50),
      percentile(series(totals.samples, [](Sample const& s) { return s.back_us; }), 50));
  std::fprintf(f,
               "\"connections\":{\"client\":%d,\"storm_accepted\":%zu,\"storm_eof\":%zu,"
               "\"storm_reset\":%zu,\"storm_cut\":%zu,\"fallback_accepted\":%zu,"
               "\"fallback_cut\":%zu},",
               client_connects, storm.accepted, storm.eofs, storm.resets, storm.cut,
               fallback.accepted, fallback.cut);
  writeSeries(f, "gap_samples_us", gap);
  std::fprintf(f, ",");
  writeSeries(f, "client_samples_us", client);
  std::fprintf(f, "}\n");
}

/// Keeps the upstreams running (on their threads) until standard input closes.
void waitForStdinEof() {
  char buffer[256];
  while (::read(STDIN_FILENO, buffer, sizeof buffer) > 0) {
  }
}

}  // namespace

int runFailover(FailoverOptions const& options) {
  CannedUpstream storm(stormAnswer());
  CannedUpstream fallback(fallbackAnswer());
  std::string error;
  if (!storm.listen(options.storm_port, error) || !fallback.listen(options.fallback_port, error)) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 2;
  }
  std::printf("storm listening on 127.0.0.1:%u\nfallback listening on 127.0.0.1:%u\n", storm.port(),
              fallback.port());
  std::fflush(stdout);
  std::thread storm_thread([&] { storm.serve(); });
  std::thread fallback_thread([&] { fallback.serve(); });

  int code = 0;
  if (options.serve_only) {
    waitForStdinEof();
  } else {
    Client client(options.gateway, chatRequest(options), options.timeout_ms);
    Totals warmup;
    for (int i = 0; i < options.warmup; ++i) runOne(client, storm, fallback, warmup);
    Totals totals;
    totals.samples.reserve(static_cast<std::size_t>(options.requests));
    std::int64_t start = monotonicNs();
    for (int i = 0; i < options.requests; ++i) runOne(client, storm, fallback, totals);
    double seconds = static_cast<double>(monotonicNs() - start) / 1e9;

    auto gap = series(totals.samples, [](Sample const& s) { return s.gap_us; });
    auto latency = series(totals.samples, [](Sample const& s) { return s.client_us; });
    int not_failed_over = options.requests - static_cast<int>(totals.samples.size());
    std::printf(
        "429 written -> fallback request arrived: %zu samples, p50 %.1f us, p90 %.1f us, "
        "p99 %.1f us, max %.1f us; client latency p50 %.1f us, p99 %.1f us; "
        "not failed over %d (storm skipped %d, errors %d)\n",
        totals.samples.size(), percentile(gap, 50), percentile(gap, 90), percentile(gap, 99),
        percentile(gap, 100), percentile(latency, 50), percentile(latency, 99), not_failed_over,
        totals.storm_skipped, totals.errors);
    for (auto const& [kind, count] : totals.error_kinds)
      std::printf("  %d x %s\n", count, kind.c_str());
    if (!options.json_file.empty()) {
      std::FILE* f = std::fopen(options.json_file.c_str(), "w");
      if (f == nullptr) {
        std::fprintf(stderr, "cannot write %s\n", options.json_file.c_str());
        code = 2;
      } else {
        writeJson(f, options, totals, storm.tally(), fallback.tally(), client.connects(), seconds);
        std::fclose(f);
      }
    }
    if (code == 0 && not_failed_over != 0) code = 1;
  }
  storm.stop();
  fallback.stop();
  storm_thread.join();
  fallback_thread.join();
  return code;
}

}  // namespace llmux::bench

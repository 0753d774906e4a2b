// llmux-request-log-bench: what the request log costs per request on the request's own thread
// and in all (the writer's thread included), for a non-stream request with one attempt pushed
// from one producer thread as fast as it can (so the writer's batches are full, as under load).
// `--events`: `running` sends every event of a request whose row opened at admission (opened,
// attempt started, attempt ended, finished); `finished` only the finished record of one that
// ended before its row opened (proxy/running_rows.h). `--store`: `null` leaves the database out
// (a backend that keeps nothing), `sqlite` writes the rows into a SQLite request log in a
// scratch directory, as the gateway does. Prints the median of several repetitions;
// `bench/RESULTS.md` keeps before/after figures.
#include <stdlib.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/ids.h"
#include "store/request_log_writer.h"
#include "store/sqlite_store.h"

namespace llmux::bench {
namespace {

/// Keeps nothing: the figures are the log's own work, not a database's.
class NullBackend final : public store::RequestLogBackend {
 public:
  Result<void> insertBatch(std::span<store::LogRow>, std::string_view) override { return {}; }
  Result<std::size_t> deleteExpired(WallTime, std::size_t) override { return std::size_t{0}; }
  Result<std::size_t> heartbeat(std::string_view, WallTime, std::chrono::milliseconds) override {
    return std::size_t{0};
  }
  Result<void> retire(std::string_view) override { return {}; }
};

double cpuSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// A request as the bench's wrk load makes them: strings of their real lengths.
RequestRecord head() {
  RequestRecord r;
  r.request_id = newRequestId();
  r.started_at = WallClock::now();
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.client = "unknown";
  r.gateway_key = "bench";
  r.model = "gpt-4o-mini";
  r.bytes_in = 97;
  return r;
}

AttemptRecord attempt(bool ended) {
  AttemptRecord a;
  a.channel = "mock";
  a.key_label = "mock#0";
  a.upstream_model = "gpt-4o-mini";
  a.upstream_protocol = "openai-chat";
  a.strategy = "intelligent";
  a.factors = "score=0.512 weight=1 headroom=1 success=1.000 latency=0.731";
  if (ended) {
    a.status = 200;
    a.outcome = AttemptOutcome::ok();
    a.outcome_class = "success";
    a.first_byte_ms = 0.4;
    a.duration_ms = 0.5;
  }
  return a;
}

struct Figures {
  double producer_us = 0;  ///< CPU per request on the request's thread
  double total_us = 0;     ///< CPU per request of the whole process (the writer's included)
};

struct Run {
  int requests = 100'000;
  bool running_rows = true;  ///< --events running (else finished)
  bool sqlite = false;       ///< --store sqlite (else null)
  std::filesystem::path scratch;
};

/// The request log of one repetition: the writer alone over a backend that keeps nothing, or a
/// SQLite store (its writer over a fresh database).
struct Sink {
  std::unique_ptr<store::RequestLogWriter> writer;
  std::unique_ptr<store::SqliteStore> sqlite;
  store::RequestLogSink& get() { return writer ? static_cast<store::RequestLogSink&>(*writer) : *sqlite; }
};

Sink makeSink(Run const& run, int repetition) {
  store::RequestLogWriterOptions options;
  options.queue_capacity = static_cast<std::size_t>(run.requests) * 4 + 16;
  Sink sink;
  if (!run.sqlite) {
    sink.writer = std::make_unique<store::RequestLogWriter>("bench request log",
                                                            std::make_unique<NullBackend>(), options);
    return sink;
  }
  auto dir = run.scratch / ("state-" + std::to_string(repetition));
  auto opened = store::SqliteStore::open(dir, options);
  if (!opened.ok()) {
    std::fprintf(stderr, "cannot open a SQLite store in %s: %s\n", dir.c_str(),
                 opened.error().message.c_str());
    std::exit(1);
  }
  sink.sqlite = std::move(*opened);
  return sink;
}

Figures once(Run const& run, int repetition) {
  Sink sink = makeSink(run, repetition);
  store::RequestLogSink& log = sink.get();
  double const process0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  double const thread0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < run.requests; ++i) {
    RequestRecord record = head();
    if (run.running_rows) {
      record.log_handle = log.opened(record);
      log.attemptChanged(record.log_handle, 1, attempt(false));
    }
    AttemptRecord done = attempt(true);
    if (run.running_rows) log.attemptChanged(record.log_handle, 1, done);
    record.attempts.push_back(std::move(done));
    record.status = 200;
    record.channel = "mock";
    record.key_label = "mock#0";
    record.total_ms = 0.6;
    log.record(std::move(record));
  }
  double const thread1 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  log.flush();
  double const process1 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  return {(thread1 - thread0) * 1e6 / run.requests, (process1 - process0) * 1e6 / run.requests};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace
}  // namespace llmux::bench

int main(int argc, char** argv) {
  CLI::App app("llmux-request-log-bench: the request log's CPU per request");
  llmux::bench::Run run;
  int repetitions = 7;
  std::string events = "running";
  std::string store = "null";
  app.add_option("--requests", run.requests, "requests per repetition")->check(CLI::Range(1000, 10'000'000));
  app.add_option("--repetitions", repetitions, "repetitions (the median is printed)")->check(CLI::Range(1, 99));
  app.add_option("--events", events, "running: every event of a request whose row opened; finished: only its end")
      ->check(CLI::IsMember({"running", "finished"}));
  app.add_option("--store", store, "null: no database; sqlite: a SQLite request log in a scratch directory")
      ->check(CLI::IsMember({"null", "sqlite"}));
  CLI11_PARSE(app, argc, argv);
  run.running_rows = events == "running";
  run.sqlite = store == "sqlite";
  if (run.sqlite) {
    char pattern[] = "/tmp/llmux-request-log-bench-XXXXXX";
    if (::mkdtemp(pattern) == nullptr) {
      std::perror("mkdtemp");
      return 1;
    }
    run.scratch = pattern;
  }
  std::vector<double> producer, total;
  for (int i = 0; i < repetitions; ++i) {
    auto f = llmux::bench::once(run, i);
    producer.push_back(f.producer_us);
    total.push_back(f.total_us);
  }
  if (run.sqlite) std::filesystem::remove_all(run.scratch);
  std::printf("request log (--events %s --store %s), %d requests x %d: CPU per request on the "
              "request's thread %.2f us, in all (the writer's thread included) %.2f us (medians)\n",
              events.c_str(), store.c_str(), run.requests, repetitions,
              llmux::bench::median(producer), llmux::bench::median(total));
  return 0;
}

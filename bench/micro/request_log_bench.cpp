// llmux-request-log-bench: what the request log costs per request on the request's own thread
// and in all (the writer's thread included), with the store itself left out (a backend that
// keeps nothing): the events a non-stream request with one attempt sends — opened, attempt
// started, attempt ended, finished — pushed from one producer thread, folded by the writer.
// Prints the median of several repetitions; `bench/RESULTS.md` keeps before/after figures.
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/ids.h"
#include "store/request_log_writer.h"

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

Figures once(int requests) {
  store::RequestLogWriterOptions options;
  options.queue_capacity = static_cast<std::size_t>(requests) * 4 + 16;
  store::RequestLogWriter writer("bench request log", std::make_unique<NullBackend>(), options);
  double const process0 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  double const thread0 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  for (int i = 0; i < requests; ++i) {
    RequestRecord record = head();
    record.log_handle = writer.opened(record);
    writer.attemptChanged(record.log_handle, 1, attempt(false));
    AttemptRecord done = attempt(true);
    writer.attemptChanged(record.log_handle, 1, done);
    record.attempts.push_back(std::move(done));
    record.status = 200;
    record.channel = "mock";
    record.key_label = "mock#0";
    record.total_ms = 0.6;
    writer.record(std::move(record));
  }
  double const thread1 = cpuSeconds(CLOCK_THREAD_CPUTIME_ID);
  writer.flush();
  double const process1 = cpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
  return {(thread1 - thread0) * 1e6 / requests, (process1 - process0) * 1e6 / requests};
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace
}  // namespace llmux::bench

int main(int argc, char** argv) {
  CLI::App app("llmux-request-log-bench: the request log's CPU per request, without a store");
  int requests = 100'000;
  int repetitions = 7;
  app.add_option("--requests", requests, "requests per repetition")->check(CLI::Range(1000, 10'000'000));
  app.add_option("--repetitions", repetitions, "repetitions (the median is printed)")->check(CLI::Range(1, 99));
  CLI11_PARSE(app, argc, argv);
  std::vector<double> producer, total;
  for (int i = 0; i < repetitions; ++i) {
    auto f = llmux::bench::once(requests);
    producer.push_back(f.producer_us);
    total.push_back(f.total_us);
  }
  std::printf("request log, %d requests x %d: CPU per request on the request's thread %.2f us, "
              "in all (the writer's thread included) %.2f us (medians)\n",
              requests, repetitions, llmux::bench::median(producer), llmux::bench::median(total));
  return 0;
}

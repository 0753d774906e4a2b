#include "rounds.h"

#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <numeric>
#include <random>

#include "http_wire.h"

namespace llmux::bench {
namespace {

using Clock = std::chrono::steady_clock;

double microsSince(Clock::time_point start, Clock::time_point end) {
  return std::chrono::duration<double, std::micro>(end - start).count();
}

/// One exchange's timings, from the first byte written.
struct Sample {
  double head_us = 0;
  double first_body_us = 0;
  double first_content_us = 0;  ///< the read that completed the content marker in the body
  double total_us = 0;
};

/// A target with its persistent connection and what was measured on it.
struct TargetRun {
  RoundTarget target;
  int fd = -1;
  int connects = 0;
  int errors = 0;
  int content_missing = 0;  ///< recorded samples whose body never contained the marker
  std::map<int, int> statuses;
  std::map<std::string, int> error_kinds;
  std::vector<Sample> samples;
};

enum class Outcome { Ok, StaleConnection, Failed };

void closeConnection(TargetRun& run) {
  if (run.fd >= 0) ::close(run.fd);
  run.fd = -1;
}

/// Asks the proxy on `fd` for a tunnel to `target.tunnel_to`; false (with `error`) unless it
/// answered 2xx with nothing after its head.
bool openTunnel(int fd, RoundTarget const& target, int timeout_ms, std::string& error) {
  std::string request = "CONNECT " + target.tunnel_to + " HTTP/1.1\r\nHost: " + target.tunnel_to + "\r\n";
  if (!target.tunnel_authorization.empty()) {
    request += "Proxy-Authorization: " + target.tunnel_authorization + "\r\n";
  }
  request += "\r\n";
  if (!writeAll(fd, request)) {
    error = "tunnel: write failed";
    return false;
  }
  std::string head;
  char buffer[1024];
  while (head.find("\r\n\r\n") == std::string::npos) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, timeout_ms) <= 0) {
      error = "tunnel: no answer";
      return false;
    }
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0 || head.size() > 16 * 1024) {
      error = "tunnel: closed";
      return false;
    }
    head.append(buffer, static_cast<std::size_t>(n));
  }
  if (head.size() < 12 || head[9] != '2' || head.find("\r\n\r\n") + 4 != head.size()) {
    error = "tunnel: refused: " + head.substr(0, head.find("\r\n"));
    return false;
  }
  return true;
}

/// Sends the request and reads the response; `error` names what went wrong.
Outcome exchange(TargetRun& run, std::string const& request, std::string const& marker,
                 int timeout_ms, Sample& sample, int& status, bool& marker_seen,
                 std::string& error) {
  bool reused = run.fd >= 0;
  if (!reused) {
    run.fd = connectBlocking(run.target.address);
    if (run.fd < 0) {
      error = std::string("connect: ") + std::strerror(errno);
      return Outcome::Failed;
    }
    ++run.connects;
    if (!run.target.tunnel_to.empty() && !openTunnel(run.fd, run.target, timeout_ms, error)) {
      closeConnection(run);
      return Outcome::Failed;
    }
  }
  ResponseReader reader;
  reader.setMarker(marker);
  auto start = Clock::now();
  auto deadline = start + std::chrono::milliseconds(timeout_ms);
  if (!writeAll(run.fd, request)) {
    error = std::string("write: ") + std::strerror(errno);
    closeConnection(run);
    return reused ? Outcome::StaleConnection : Outcome::Failed;
  }
  static thread_local std::vector<char> buffer(1 << 16);
  bool got_any = false;
  bool head_seen = false;
  bool body_seen = false;
  bool content_seen = false;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      error = "timeout";
      closeConnection(run);
      return Outcome::Failed;
    }
    pollfd pfd{run.fd, POLLIN, 0};
    int ready = ::poll(&pfd, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::recv(run.fd, buffer.data(), buffer.size(), 0);
    auto now = Clock::now();
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      error = std::string("read: ") + std::strerror(errno);
      closeConnection(run);
      return (reused && !got_any) ? Outcome::StaleConnection : Outcome::Failed;
    }
    if (n == 0) {
      reader.onEof();
      closeConnection(run);
      if (reader.state() == ReadState::Done) break;
      if (reused && !got_any) return Outcome::StaleConnection;
      error = "connection closed mid-response";
      return Outcome::Failed;
    }
    got_any = true;
    std::size_t used = reader.feed(std::string_view(buffer.data(), static_cast<std::size_t>(n)));
    if (reader.state() == ReadState::Malformed) {
      error = "malformed response";
      closeConnection(run);
      return Outcome::Failed;
    }
    if (!head_seen && reader.state() != ReadState::Head) {
      head_seen = true;
      sample.head_us = microsSince(start, now);
    }
    if (!body_seen && reader.sawBodyByte()) {
      body_seen = true;
      sample.first_body_us = microsSince(start, now);
    }
    if (!content_seen && reader.sawMarker()) {
      content_seen = true;
      sample.first_content_us = microsSince(start, now);
    }
    if (reader.state() == ReadState::Done) {
      if (used != static_cast<std::size_t>(n)) {
        error = "bytes after the response";
        closeConnection(run);
        return Outcome::Failed;
      }
      break;
    }
  }
  sample.total_us = microsSince(start, Clock::now());
  if (!body_seen) sample.first_body_us = sample.total_us;
  if (!content_seen) sample.first_content_us = sample.total_us;
  marker_seen = content_seen;
  status = reader.status();
  if (reader.closeAfter()) closeConnection(run);
  return Outcome::Ok;
}

void runOne(TargetRun& run, RoundsOptions const& options, bool record) {
  Sample sample;
  int status = 0;
  bool marker_seen = false;
  std::string error;
  auto attempt = [&] {
    return exchange(run, options.request, options.content_marker, options.timeout_ms, sample,
                    status, marker_seen, error);
  };
  Outcome outcome = attempt();
  // A keep-alive connection the server closed while idle: retry once on a fresh one.
  if (outcome == Outcome::StaleConnection) outcome = attempt();
  if (!record) return;
  if (outcome != Outcome::Ok) {
    ++run.errors;
    ++run.error_kinds[error];
    return;
  }
  ++run.statuses[status];
  if (status >= 200 && status < 300) {
    run.samples.push_back(sample);
    if (!options.content_marker.empty() && !marker_seen) ++run.content_missing;
  } else {
    ++run.errors;
    ++run.error_kinds["status " + std::to_string(status)];
  }
}

void printJsonString(std::string const& s) {
  std::putchar('"');
  for (char c : s) {
    if (c == '"' || c == '\\') std::putchar('\\');
    if (static_cast<unsigned char>(c) < 0x20) {
      std::printf("\\u%04x", c);
    } else {
      std::putchar(c);
    }
  }
  std::putchar('"');
}

template <class Field>
void printSeries(char const* name, std::vector<Sample> const& samples, Field field) {
  std::printf("\"%s\":[", name);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    std::printf(i == 0 ? "%.1f" : ",%.1f", field(samples[i]));
  }
  std::printf("]");
}

void printReport(std::vector<TargetRun> const& runs, double seconds, bool with_content) {
  std::printf("{\"seconds\":%.3f,\"targets\":[", seconds);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    auto const& run = runs[i];
    if (i != 0) std::printf(",");
    std::printf("{\"name\":");
    printJsonString(run.target.name);
    std::printf(",\"ok\":%zu,\"errors\":%d,\"connects\":%d,\"statuses\":{", run.samples.size(),
                run.errors, run.connects);
    bool first = true;
    for (auto const& [status, count] : run.statuses) {
      std::printf("%s\"%d\":%d", first ? "" : ",", status, count);
      first = false;
    }
    std::printf("},\"error_kinds\":{");
    first = true;
    for (auto const& [kind, count] : run.error_kinds) {
      if (!first) std::printf(",");
      printJsonString(kind);
      std::printf(":%d", count);
      first = false;
    }
    std::printf("},");
    printSeries("head_us", run.samples, [](Sample const& s) { return s.head_us; });
    std::printf(",");
    printSeries("first_body_us", run.samples, [](Sample const& s) { return s.first_body_us; });
    std::printf(",");
    if (with_content) {
      // A sample whose body never contained the marker has its complete time here.
      std::printf("\"content_missing\":%d,", run.content_missing);
      printSeries("first_content_us", run.samples,
                  [](Sample const& s) { return s.first_content_us; });
      std::printf(",");
    }
    printSeries("total_us", run.samples, [](Sample const& s) { return s.total_us; });
    std::printf("}");
  }
  std::printf("]}\n");
}

void sleepUntil(Clock::time_point when) {
  auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(when.time_since_epoch()).count();
  timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  // steady_clock is CLOCK_MONOTONIC on Linux.
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
  }
}

}  // namespace

int runRounds(RoundsOptions const& options) {
  std::vector<TargetRun> runs;
  for (auto const& t : options.targets) runs.push_back(TargetRun{t});
  for (auto& run : runs) run.samples.reserve(static_cast<std::size_t>(options.rounds));
  std::vector<std::size_t> order(runs.size());
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(options.seed);
  int total = options.warmup + options.rounds;
  auto begin = Clock::now();
  auto measured_from = begin;
  for (int round = 0; round < total; ++round) {
    bool record = round >= options.warmup;
    if (round == options.warmup) measured_from = Clock::now();
    if (options.rate > 0 && record) {
      auto offset = std::chrono::duration<double>((round - options.warmup) / options.rate);
      sleepUntil(measured_from + std::chrono::duration_cast<Clock::duration>(offset));
    }
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t index : order)
      runOne(runs[index], options, record);
  }
  double seconds = std::chrono::duration<double>(Clock::now() - measured_from).count();
  for (auto& run : runs) closeConnection(run);
  printReport(runs, seconds, !options.content_marker.empty());
  std::fflush(stdout);
  for (auto const& run : runs) {
    if (run.samples.empty()) return 1;
  }
  return 0;
}

}  // namespace llmux::bench

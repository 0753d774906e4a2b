// llmux-translate-bench: what cross-protocol translation costs (bench/README.md, figure 6).
//   stream:  a recorded (or long synthetic) upstream stream fed one read at a time to the
//            upstream protocol's decoder, every neutral event encoded into the client protocol;
//            nanoseconds per upstream event, for every (upstream, client) pair
//   request: a ~200 KB Claude Code-shaped request decoded and encoded into another protocol;
//            microseconds per request, for every (client, upstream) pair
// Cases are timed in interleaved repetitions (one repetition of every case, then the next), so
// a burst of load from other work on the machine spreads over all cases instead of spoiling
// one; the figure of a case is the median over its repetitions. Times are the thread's CPU time
// (wall time is printed beside it): on a shared machine it is the stabler measure of the work.
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "claude_code_request.h"
#include "streams.h"
#include "translate/codec.h"

namespace llmux::bench {
namespace {

namespace json = boost::json;
using translate::EncodeOptions;
using translate::Event;
using translate::EventType;

/// What the client asked for and each upstream is sent: realistic names, since encoders look at
/// model families (reasoning settings).
constexpr std::string_view kClientModel = "claude-sonnet-4-5";

std::string_view upstreamModel(Protocol p) {
  switch (p) {
    case Protocol::OpenAiChat:
      return "gpt-5.1";
    case Protocol::OpenAiResponses:
      return "gpt-5.1-codex";
    case Protocol::Anthropic:
      return "claude-sonnet-4-5";
    case Protocol::Gemini:
      return "gemini-2.5-pro";
  }
  return "";
}

/// One timed case. `run` does one unit of work (a whole stream, one request) and returns a size
/// that is summed into a sink, so the work cannot be optimised away.
struct Case {
  std::string group;  ///< "stream", "request" or "decode"
  std::string name;
  Protocol from = Protocol::OpenAiChat;
  Protocol to = Protocol::OpenAiChat;
  std::string kind;    ///< stream: text, tool, long; request: the request's origin
  double per_run = 1;  ///< units per run: upstream events of a stream, 1 for a request
  json::object facts;  ///< sizes and counts for the report
  std::function<std::size_t()> run;
  std::size_t iterations = 1;
  std::vector<double> cpu_ns, wall_ns;  ///< per unit, one sample per repetition
};

struct StreamFacts {
  std::size_t neutral_events = 0, client_bytes = 0, errors = 0;
};

/// Replays `stream` as the proxy's relay does: each read fed to the decoder, every event it
/// yields encoded at once, the client bytes of that read handed on (here: dropped).
std::size_t translateStream(UpstreamStream const& stream, Protocol to, EncodeOptions const& options,
                            StreamFacts* facts) {
  auto decoder = translate::makeStreamDecoder(stream.protocol);
  auto encoder = translate::makeStreamEncoder(to, options);
  std::vector<Event> events;
  std::string bytes;
  std::size_t written = 0;
  auto relay = [&] {
    for (Event const& e : events) {
      encoder->encode(e, bytes);
      if (facts && e.type == EventType::Error) ++facts->errors;
    }
    if (facts) facts->neutral_events += events.size();
    written += bytes.size();
    bytes.clear();
    events.clear();
  };
  for (std::string const& piece : stream.pieces) {
    decoder->feed(piece, events);
    relay();
  }
  decoder->finish(events);
  relay();
  if (facts) facts->client_bytes = written;
  return written;
}

double threadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

/// Runs `c` `iterations` times; returns {cpu ns, wall ns} for the whole batch. Every run's result
/// goes into `sink`, which decides the exit status: the work cannot be optimised away.
std::pair<double, double> timeBatch(Case& c, std::size_t iterations, std::size_t& sink) {
  auto wall0 = std::chrono::steady_clock::now();
  double cpu0 = threadCpuNs();
  for (std::size_t i = 0; i < iterations; ++i) sink += c.run();
  double cpu = threadCpuNs() - cpu0;
  double wall =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall0).count();
  return {cpu, wall};
}

/// Warms the case up and picks the iterations that make one repetition last `min_ns`.
void calibrate(Case& c, double min_ns, std::size_t& sink) {
  std::size_t n = 1;
  for (;;) {
    double cpu = timeBatch(c, n, sink).first;
    if (cpu >= min_ns / 4 || n >= (1u << 24)) {
      double per_run = std::max(cpu / static_cast<double>(n), 1.0);
      c.iterations =
          std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(min_ns / per_run)));
      return;
    }
    n *= 4;
  }
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string pairName(Protocol from, Protocol to) {
  return std::string(protocolName(from)) + "->" + std::string(protocolName(to));
}

struct Options {
  std::string fixtures = LLMUX_FIXTURES_DIR;
  int repetitions = 9;
  double min_time_ms = 20;
  std::size_t long_deltas = 1000;
  std::size_t request_bytes = 200 * 1024;
  std::string filter;
  std::string json_path;
  std::string dump_dir;
};

void addStreamCases(EncodeOptions const& encode_options, std::vector<UpstreamStream> const& streams,
                    std::vector<Case>& cases) {
  for (UpstreamStream const& s : streams) {
    for (Protocol to : kAllProtocols) {
      Case c;
      c.group = "stream";
      c.from = s.protocol;
      c.to = to;
      c.kind = s.kind;
      c.name = "stream/" + pairName(s.protocol, to) + "/" + s.kind;
      c.per_run = static_cast<double>(s.events);
      StreamFacts facts;
      translateStream(s, to, encode_options, &facts);
      if (facts.errors) {
        throw std::runtime_error(c.name + ": the stream decodes to an error (" + s.source + ")");
      }
      c.facts = {{"source", s.source},
                 {"upstream_events", s.events},
                 {"upstream_bytes", s.bytes},
                 {"neutral_events", facts.neutral_events},
                 {"client_bytes", facts.client_bytes}};
      c.run = [&s, to, &encode_options] { return translateStream(s, to, encode_options, nullptr); };
      cases.push_back(std::move(c));
    }
  }
}

Result<translate::Request> decodeBody(Protocol from, std::string const& body) {
  return translate::decodeRequest(from, body, upstreamModel(from), true);
}

/// The 200 KB request of every client protocol: the Claude Code one, and for the others the
/// same conversation translated into them, grown until their own body is as large.
std::vector<std::pair<Protocol, std::string>> makeRequests(Options const& opt) {
  std::string recorded = readFile(opt.fixtures + "/clients/claude-cli.request.json");
  std::vector<std::pair<Protocol, std::string>> out;
  out.emplace_back(Protocol::Anthropic, claudeCodeRequest(recorded, opt.request_bytes));
  for (Protocol p : kAllProtocols) {
    if (p == Protocol::Anthropic) continue;
    ClaudeCodeConversation conversation(recorded);
    for (;;) {
      auto neutral = decodeBody(Protocol::Anthropic, conversation.body());
      if (!neutral) throw std::runtime_error("the Claude Code request does not decode");
      auto body = translate::encodeRequest(p, *neutral, upstreamModel(p));
      if (!body) throw std::runtime_error("the Claude Code request does not encode");
      if (body->size() >= opt.request_bytes) {
        out.emplace_back(p, std::move(*body));
        break;
      }
      conversation.addTurn();
    }
  }
  return out;
}

void addRequestCases(std::vector<std::pair<Protocol, std::string>> const& requests,
                     std::vector<Case>& cases) {
  for (auto const& [from, body] : requests) {
    auto decoded = decodeBody(from, body);
    if (!decoded) {
      throw std::runtime_error(std::string(protocolName(from)) +
                               " request does not decode: " + decoded.error().message);
    }
    std::string origin = from == Protocol::Anthropic ? "claude-code" : "translated";
    Case d;
    d.group = "decode";
    d.from = d.to = from;
    d.kind = origin;
    d.name = "decode/" + std::string(protocolName(from));
    d.facts = {{"request_bytes", body.size()}, {"messages", decoded->messages.size()}};
    d.run = [from, &body] { return decodeBody(from, body)->messages.size(); };
    cases.push_back(std::move(d));
    for (Protocol to : kAllProtocols) {
      auto encoded = translate::encodeRequest(to, *decoded, upstreamModel(to));
      if (!encoded) throw std::runtime_error(pairName(from, to) + ": the request does not encode");
      Case c;
      c.group = "request";
      c.from = from;
      c.to = to;
      c.kind = origin;
      c.name = "request/" + pairName(from, to);
      c.facts = {{"request_bytes", body.size()},
                 {"messages", decoded->messages.size()},
                 {"upstream_bytes", encoded->size()}};
      c.run = [from, to, &body] {
        auto request = decodeBody(from, body);
        return translate::encodeRequest(to, *request, upstreamModel(to))->size();
      };
      cases.push_back(std::move(c));
    }
  }
}

json::object report(Options const& opt, std::vector<Case> const& cases) {
  json::array out;
  for (Case const& c : cases) {
    json::object o = c.facts;
    o["group"] = c.group;
    o["name"] = c.name;
    o["from"] = protocolName(c.from);
    o["to"] = protocolName(c.to);
    o["kind"] = c.kind;
    o["unit"] = c.group == "stream" ? "ns per upstream event" : "ns per request";
    o["iterations"] = c.iterations;
    o["cpu_ns"] = json::array(c.cpu_ns.begin(), c.cpu_ns.end());
    o["wall_ns"] = json::array(c.wall_ns.begin(), c.wall_ns.end());
    o["median_ns"] = median(c.cpu_ns);
    o["min_ns"] = *std::min_element(c.cpu_ns.begin(), c.cpu_ns.end());
    o["max_ns"] = *std::max_element(c.cpu_ns.begin(), c.cpu_ns.end());
    o["median_wall_ns"] = median(c.wall_ns);
    out.push_back(std::move(o));
  }
  return {{"repetitions", opt.repetitions},     {"min_time_ms", opt.min_time_ms},
          {"long_deltas", opt.long_deltas},     {"request_min_bytes", opt.request_bytes},
          {"clock", "CLOCK_THREAD_CPUTIME_ID"}, {"cases", std::move(out)}};
}

void printTable(std::vector<Case> const& cases) {
  std::printf("%-48s %12s %12s %12s %12s\n", "case", "median", "min", "max", "wall median");
  for (Case const& c : cases) {
    bool stream = c.group == "stream";
    double scale = stream ? 1.0 : 1e-3;  // ns per event, us per request
    std::printf("%-48s %9.1f %-2s %9.1f %-2s %9.1f %-2s %9.1f %-2s\n", c.name.c_str(),
                median(c.cpu_ns) * scale, stream ? "ns" : "us",
                *std::min_element(c.cpu_ns.begin(), c.cpu_ns.end()) * scale, stream ? "ns" : "us",
                *std::max_element(c.cpu_ns.begin(), c.cpu_ns.end()) * scale, stream ? "ns" : "us",
                median(c.wall_ns) * scale, stream ? "ns" : "us");
  }
}

int run(Options const& opt) {
  EncodeOptions encode_options;
  encode_options.model = std::string(kClientModel);
  encode_options.id = "msg_01BenchTranslate0000001";
  encode_options.include_usage = true;
  encode_options.created = 1767225600;

  std::vector<UpstreamStream> streams;
  for (Protocol p : kAllProtocols) {
    for (auto& s : loadStreams(opt.fixtures, p, opt.long_deltas)) streams.push_back(std::move(s));
  }
  auto requests = makeRequests(opt);
  if (!opt.dump_dir.empty()) {
    for (auto const& [protocol, body] : requests) {
      std::ofstream(opt.dump_dir + "/" + std::string(protocolName(protocol)) + ".request.json")
          << body;
    }
  }

  std::vector<Case> all, cases;
  addStreamCases(encode_options, streams, all);
  addRequestCases(requests, all);
  for (auto& c : all) {
    if (c.name.find(opt.filter) != std::string::npos) cases.push_back(std::move(c));
  }
  if (cases.empty()) throw std::runtime_error("no case matches the filter");

  double min_ns = opt.min_time_ms * 1e6;
  std::fprintf(stderr, "calibrating %zu cases\n", cases.size());
  std::size_t sink = 0;
  for (Case& c : cases) calibrate(c, min_ns, sink);
  for (int rep = 0; rep < opt.repetitions; ++rep) {
    std::fprintf(stderr, "repetition %d/%d\n", rep + 1, opt.repetitions);
    for (Case& c : cases) {
      auto [cpu, wall] = timeBatch(c, c.iterations, sink);
      double units = c.per_run * static_cast<double>(c.iterations);
      c.cpu_ns.push_back(cpu / units);
      c.wall_ns.push_back(wall / units);
    }
  }

  if (opt.json_path.empty()) {
    printTable(cases);
  } else {
    std::string text = json::serialize(report(opt, cases));
    if (opt.json_path == "-") {
      std::printf("%s\n", text.c_str());
    } else {
      std::ofstream(opt.json_path) << text << '\n';
    }
  }
  return sink == 0 ? 1 : 0;  // nothing produced: the cases did no work
}

}  // namespace
}  // namespace llmux::bench

int main(int argc, char** argv) {
  llmux::bench::Options opt;
  CLI::App cli{"llmux translation micro-benchmark: cost per stream event and per request"};
  cli.add_option("--fixtures", opt.fixtures, "tests/data/fixtures of the source tree")
      ->capture_default_str();
  cli.add_option("--repetitions", opt.repetitions, "timed repetitions of every case")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cli.add_option("--min-time-ms", opt.min_time_ms, "CPU time of one repetition of a case")
      ->capture_default_str();
  cli.add_option("--long-deltas", opt.long_deltas, "text deltas of the synthetic stream")
      ->capture_default_str();
  cli.add_option("--request-bytes", opt.request_bytes, "smallest size of the big requests")
      ->capture_default_str();
  cli.add_option("--filter", opt.filter, "only the cases whose name contains this");
  cli.add_option("--json", opt.json_path, "write every sample as JSON to this file (- = stdout)");
  cli.add_option("--dump-requests", opt.dump_dir,
                 "also write the big request of each protocol into this directory");
  CLI11_PARSE(cli, argc, argv);
  try {
    return llmux::bench::run(opt);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "llmux-translate-bench: %s\n", e.what());
    return 2;
  }
}

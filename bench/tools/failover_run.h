#pragma once
// The failover measurement: a "storm" upstream that answers every request with a 429, a
// "fallback" upstream that answers with a chat completion, and a client sending requests one at a
// time through the gateway, which must meet the 429 and send the request on to the fallback. Per
// request the figure is the fallback's arrival minus the moment the storm's 429 was written, both
// on CLOCK_MONOTONIC in this one process.

#include <netinet/in.h>

#include <cstdint>
#include <string>

namespace llmux::bench {

/// What `runFailover` does.
struct FailoverOptions {
  sockaddr_in gateway{};
  std::string gateway_key;          ///< sent as `Authorization: Bearer <key>`
  std::string model = "m";          ///< the model of every request
  std::uint16_t storm_port = 0;     ///< 0: any free port (printed)
  std::uint16_t fallback_port = 0;  ///< 0: any free port (printed)
  int requests = 2000;              ///< recorded requests
  int warmup = 50;                  ///< requests sent first and not recorded (pools fill up)
  int timeout_ms = 10000;           ///< per request
  std::string json_file;            ///< where the figures go as JSON; empty: nowhere
  /// Only run the two upstreams (printing their ports) until standard input closes: for trying a
  /// gateway configuration by hand.
  bool serve_only = false;
};

/// Runs the upstreams and the requests, prints a summary to stdout and writes the JSON file.
/// Returns the process exit code: 0 when every recorded request was failed over and answered.
int runFailover(FailoverOptions const& options);

}  // namespace llmux::bench

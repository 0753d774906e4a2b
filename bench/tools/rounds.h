#pragma once
// Timed request/response exchanges against several targets, interleaved: each round sends the
// same request once to every target (in a shuffled order), one at a time, on persistent
// connections. Interleaving spreads the noise of a shared machine evenly over the targets.

#include <netinet/in.h>

#include <string>
#include <vector>

namespace llmux::bench {

/// One endpoint under test.
struct RoundTarget {
  std::string name;
  sockaddr_in address{};
  /// When set ("host:port"): every new connection first asks the target for a CONNECT tunnel to
  /// it (an HTTP proxy or `llmux node`), untimed; the exchanges then go through the tunnel.
  std::string tunnel_to;
  std::string tunnel_authorization;  ///< the CONNECT's Proxy-Authorization value ("" = none)
};

/// What `runRounds` does.
struct RoundsOptions {
  std::vector<RoundTarget> targets;
  std::string request;  ///< the raw HTTP/1.1 request bytes, sent as they are
  int rounds = 1000;
  int warmup = 50;         ///< rounds run first and not recorded
  double rate = 0;         ///< rounds per second; 0 = back to back
  int timeout_ms = 10000;  ///< per exchange
  unsigned seed = 12345;   ///< for the order of targets within a round
  /// Text that marks the first content of a stream (e.g. the first text delta); empty: none.
  std::string content_marker;
};

/// Runs the rounds and prints one JSON document to stdout with every sample in microseconds
/// (head, first body byte, complete; with a content marker also the first read whose body
/// contains it) per target. Returns the process exit code.
int runRounds(RoundsOptions const& options);

}  // namespace llmux::bench

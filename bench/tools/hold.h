#pragma once
// Many concurrent open streams: opens N connections to one target, sends the (streaming) request
// on each, waits until every response has its first body byte, reports, then keeps them all open
// until standard input closes or says "close". Used to measure the memory a proxy spends per
// stream. With `idle`, each connection waits for its whole answer instead and then stays open,
// idle (keep-alive): the memory a proxy spends per idle client connection.

#include <netinet/in.h>

#include <string>

namespace llmux::bench {

/// What `runHold` does.
struct HoldOptions {
  sockaddr_in address{};
  std::string request;  ///< raw HTTP/1.1 request bytes, sent on every connection
  int connections = 5000;
  int connect_window = 200;  ///< connections in the connecting/requesting phase at once
  int ready_timeout_ms = 60000;
  /// Whole answers, then idle keep-alive connections (instead of streams held mid-answer).
  bool idle = false;
};

/// Prints "ready <open> <failed> <ms>" on stdout once every connection has its first body byte
/// (or failed, or the timeout passed), then holds until stdin closes, then prints "closed".
/// Returns the process exit code.
int runHold(HoldOptions const& options);

}  // namespace llmux::bench

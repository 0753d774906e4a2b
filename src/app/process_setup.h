#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/result.h"
#include "net/listen_address.h"

namespace llmux::net {
class WorkerPool;
}

namespace llmux::app {

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and in every thread it starts later,
/// so that `serveUntilShutdown` can take them with sigwait. Call first thing in main paths.
void blockShutdownSignals();

/// Raises the open-file limit to its hard maximum: each proxied stream holds two sockets, and the
/// usual soft limit (1024) would cap the gateway at a few hundred concurrent streams.
void raiseOpenFileLimit();

/// The start of a listening command (mock-provider, node): signals blocked, the open-file limit
/// raised, and `--listen`'s host:port parsed (nullopt after printing why to stderr).
std::optional<net::HostPort> prepareListeningCommand(std::string const& listen);

/// Once bound: starts `workers` and prints "listening on HOST:PORT" (what scripts and tests wait
/// for), or prints the error and returns false.
bool startListening(net::WorkerPool& workers, net::HostPort const& address,
                    Result<std::uint16_t> const& port);

}  // namespace llmux::app

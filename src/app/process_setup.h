#pragma once

namespace llmux::app {

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and in every thread it starts later,
/// so that `serveUntilShutdown` can take them with sigwait. Call first thing in main paths.
void blockShutdownSignals();

/// Raises the open-file limit to its hard maximum: each proxied stream holds two sockets, and the
/// usual soft limit (1024) would cap the gateway at a few hundred concurrent streams.
void raiseOpenFileLimit();

}  // namespace llmux::app

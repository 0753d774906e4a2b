#pragma once

namespace llmux::app {

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and in every thread it starts later,
/// so that `serveUntilShutdown` can take them with sigwait. Call first thing in main paths.
void blockShutdownSignals();

}  // namespace llmux::app

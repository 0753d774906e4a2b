#include "app/signals.h"

#include <pthread.h>
#include <signal.h>

namespace llmux::app {

void blockShutdownSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  // A client that disappears mid-write must not kill the process.
  signal(SIGPIPE, SIG_IGN);
}

}  // namespace llmux::app

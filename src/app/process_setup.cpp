#include "app/process_setup.h"

#include <cstdio>

#include <pthread.h>
#include <sys/resource.h>
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

void raiseOpenFileLimit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

std::optional<net::HostPort> prepareListeningCommand(std::string const& listen) {
  blockShutdownSignals();
  raiseOpenFileLimit();
  auto address = net::parseHostPort(listen);
  if (!address) std::fprintf(stderr, "--listen: expected host:port, got '%s'\n", listen.c_str());
  return address;
}

}  // namespace llmux::app

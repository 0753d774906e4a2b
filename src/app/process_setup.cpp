#include "app/process_setup.h"

#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdio>

#include "net/worker_pool.h"

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

bool startListening(net::WorkerPool& workers, net::HostPort const& address,
                    Result<std::uint16_t> const& port) {
  if (!port) {
    std::fprintf(stderr, "%s\n", port.error().message.c_str());
    return false;
  }
  workers.start();
  std::printf("listening on %s:%u\n", address.host.c_str(), static_cast<unsigned>(*port));
  std::fflush(stdout);
  return true;
}

}  // namespace llmux::app

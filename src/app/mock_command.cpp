#include <cstdio>

#include "app/commands.h"
#include "app/mock_instance.h"
#include "app/shutdown.h"
#include "app/process_setup.h"
#include "telemetry/log.h"

namespace llmux::app {

int runMockProvider(MockProviderOptions const& options) {
  auto address = prepareListeningCommand(options.listen);
  if (!address) return 2;
  net::WorkerPool workers(net::effectiveThreadCount(options.threads));
  MockInstance mock(workers, mock::MockOptions{options.accepted_keys}, options.journal);
  auto port = mock.listen(*address);
  if (!startListening(workers, *address, port)) return 1;

  std::atomic<bool> draining{false};
  serveUntilShutdown({&mock.server()}, {Millis(0), std::chrono::seconds(5)}, nullptr, draining);
  workers.stop();
  return 0;
}

}  // namespace llmux::app

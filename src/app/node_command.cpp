#include <cstdio>

#include "app/commands.h"
#include "app/process_setup.h"
#include "app/shutdown.h"
#include "config/env.h"
#include "net/worker_pool.h"
#include "node/node_agent.h"

namespace llmux::app {

int runNode(NodeOptions const& options) {
  auto address = prepareListeningCommand(options.listen);
  if (!address) return 2;
  if (!config::isVariableName(options.token_env)) {
    std::fprintf(stderr, "--token-env: not an environment variable name\n");
    return 2;
  }
  auto token = config::processEnvironment()(options.token_env);
  if (!token) {
    std::fprintf(stderr, "--token-env: %s is not set\n", options.token_env.c_str());
    return 2;
  }
  net::WorkerPool workers(net::effectiveThreadCount(options.threads));
  auto agent = node::NodeAgent::create(
      workers, {*token, options.source_address, options.tls_cert_file, options.tls_key_file});
  if (!agent) {
    std::fprintf(stderr, "%s\n", agent.error().message.c_str());
    return 2;
  }
  auto port = (*agent)->listen(*address);
  if (!startListening(workers, *address, port)) return 1;
  waitForStopSignal();
  (*agent)->stop();
  workers.stop();
  return 0;
}

}  // namespace llmux::app

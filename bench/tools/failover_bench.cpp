// llmux-failover-bench: how long the gateway takes from an upstream's 429 to the fallback request
// (bench/README.md, figure 8). Plain POSIX sockets on purpose: it must not share code (or bugs)
// with the gateway it measures.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "failover_run.h"
#include "http_wire.h"

int main(int argc, char** argv) {
  using namespace llmux::bench;
  CLI::App cli{
      "Runs a 429-answering upstream and a fallback upstream, sends requests through the gateway "
      "one at a time, and measures 429 written -> fallback request arrived"};
  FailoverOptions options;
  std::string gateway;
  cli.add_option("--gateway", gateway, "HOST:PORT of the gateway");
  cli.add_option("--key", options.gateway_key, "the gateway key (Authorization: Bearer)");
  cli.add_option("--model", options.model, "model of the requests")->capture_default_str();
  cli.add_option("--storm-port", options.storm_port, "port of the 429 upstream (0: any)")
      ->capture_default_str();
  cli.add_option("--fallback-port", options.fallback_port, "port of the fallback (0: any)")
      ->capture_default_str();
  cli.add_option("--requests", options.requests, "recorded requests")->capture_default_str();
  cli.add_option("--warmup", options.warmup, "unrecorded requests first")->capture_default_str();
  cli.add_option("--timeout-ms", options.timeout_ms, "per request")->capture_default_str();
  cli.add_option("--json", options.json_file, "write the figures and samples to this file");
  cli.add_flag("--serve-only", options.serve_only,
               "only run the two upstreams until stdin closes (no requests)");
  CLI11_PARSE(cli, argc, argv);

  if (!options.serve_only) {
    if (!parseEndpoint(gateway, options.gateway)) {
      std::fprintf(stderr, "--gateway: expected HOST:PORT, got '%s'\n", gateway.c_str());
      return 2;
    }
    if (options.gateway_key.empty() || options.requests < 1 || options.warmup < 0) {
      std::fprintf(stderr, "--key is required, --requests >= 1, --warmup >= 0\n");
      return 2;
    }
  }
  return runFailover(options);
}

// llmux-attack-bench: memory and service under hostile clients (bench/README.md, figure 9).
// Plain POSIX sockets on purpose: it must not share code (or bugs) with the gateway it measures.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "attack_run.h"
#include "http_wire.h"

int main(int argc, char** argv) {
  using namespace llmux::bench;
  CLI::App cli{
      "Opens hostile connections against a gateway (anonymous and slow authenticated uploads "
      "declaring large bodies, header floods) while one client keeps sending real requests; "
      "samples the gateway's RSS"};
  AttackOptions options;
  std::string gateway;
  cli.add_option("--gateway", gateway, "HOST:PORT of the gateway")->required();
  cli.add_option("--pid", options.gateway_pid, "the gateway's pid (RSS)")->required();
  cli.add_option("--key", options.key, "a valid gateway key")->required();
  cli.add_option("--model", options.model, "model of the legitimate requests")->capture_default_str();
  cli.add_option("--anonymous", options.anonymous, "connections without a key")->capture_default_str();
  cli.add_option("--slow-authenticated", options.slow_authenticated,
                 "connections with the key trickling their body")->capture_default_str();
  cli.add_option("--header-flood", options.header_flood, "connections flooding headers")
      ->capture_default_str();
  cli.add_option("--flood-headers", options.flood_headers, "fields per flooding head")
      ->capture_default_str();
  cli.add_option("--declared", options.declared, "declared body size")->capture_default_str();
  cli.add_option("--trickle-ms", options.trickle_ms, "one body byte per attacker this often")
      ->capture_default_str();
  cli.add_option("--duration-ms", options.duration_ms, "length of the attack")->capture_default_str();
  cli.add_option("--legit-interval-ms", options.legit_interval_ms, "pause between requests")
      ->capture_default_str();
  cli.add_option("--timeout-ms", options.timeout_ms, "per legitimate request")->capture_default_str();
  cli.add_option("--json", options.json_file, "write the figures to this file");
  CLI11_PARSE(cli, argc, argv);
  if (!parseEndpoint(gateway, options.gateway)) {
    std::fprintf(stderr, "--gateway: expected HOST:PORT, got '%s'\n", gateway.c_str());
    return 2;
  }
  return runAttack(options);
}

// llmux command line: serve, check-config, mock-provider, node, version.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "app/commands.h"
#include "app/version.h"

int main(int argc, char** argv) {
  CLI::App cli{"llmux: an LLM API gateway (OpenAI Chat, OpenAI Responses, Anthropic, Gemini)"};
  cli.require_subcommand(1);

  std::string serve_config;
  auto* serve = cli.add_subcommand(
      "serve", "Run the gateway. Without --config: the embedded default (mock demo channels plus a "
               "channel per provider key found in the environment).");
  serve->add_option("--config,-c", serve_config, "YAML configuration file (SIGHUP reloads it)");

  std::string check_path;
  auto* check = cli.add_subcommand(
      "check-config", "Validate a configuration file: prints every error with its path, exits 2 "
                      "if there is any; when valid, the upstream URLs of every channel.");
  check->add_option("file", check_path, "YAML configuration file")->required();

  llmux::app::MockProviderOptions mock;
  auto* mock_cmd = cli.add_subcommand(
      "mock-provider", "Run the built-in mock LLM provider (OpenAI Chat, Responses and media "
                       "endpoints, Anthropic, Gemini; faults on request; see "
                       "docs/mock-provider.md).");
  mock_cmd->add_option("--listen,-l", mock.listen, "address to listen on (host:port, port 0 = any)")
      ->capture_default_str();
  mock_cmd->add_option("--threads", mock.threads, "worker threads (0 = one per core)");
  mock_cmd->add_flag("!--no-journal", mock.journal,
                     "do not record requests for GET /_mock/journal (benchmarks)");
  mock_cmd->add_option("--accept-key", mock.accepted_keys,
                       "accept only these keys (repeatable; default: any key)");

  llmux::app::NodeOptions node;
  auto* node_cmd = cli.add_subcommand(
      "node", "Run an egress node: the gateway's upstream connections leave from this machine "
              "(docs/egress.md).");
  node_cmd->add_option("--listen,-l", node.listen, "address to listen on (host:port)")->required();
  node_cmd->add_option("--token-env", node.token_env,
                       "environment variable holding the token the gateway must present")
      ->required();
  node_cmd->add_option("--source-address", node.source_address,
                       "local IP address upstream connections leave from (default: any)");
  node_cmd->add_option("--tls-cert", node.tls_cert_file, "PEM certificate chain: serve TLS");
  node_cmd->add_option("--tls-key", node.tls_key_file, "PEM private key of --tls-cert");
  node_cmd->add_option("--threads", node.threads, "worker threads (0 = one per core)");

  auto* version = cli.add_subcommand("version", "Print the version.");

  CLI11_PARSE(cli, argc, argv);

  if (*serve) return llmux::app::runServe(serve_config);
  if (*check) return llmux::app::runCheckConfig(check_path);
  if (*mock_cmd) return llmux::app::runMockProvider(mock);
  if (*node_cmd) return llmux::app::runNode(node);
  if (*version) {
    std::printf("llmux %s\n", llmux::app::kVersion);
    return 0;
  }
  return 1;
}

// jemalloc settings (the binary links it, see cmake/dependencies.cmake): memory freed after a
// burst of connections goes back to the system within about a second instead of staying at its
// peak; a background thread does the purging so request threads never pay for it.
extern "C" {
// NOLINTNEXTLINE: the name and type are jemalloc's configuration hook.
char const* malloc_conf = "background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0";
}

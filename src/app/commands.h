#pragma once

#include <string>
#include <vector>

namespace llmux::app {

/// `llmux serve [--config FILE]`: runs the gateway until SIGTERM/SIGINT. Returns the exit code.
int runServe(std::string const& config_path);

/// `llmux check-config FILE`: validates a configuration; prints every issue with its path and
/// returns 2 when there is any, 0 otherwise.
int runCheckConfig(std::string const& config_path);

struct MockProviderOptions {
  std::string listen = "127.0.0.1:9090";
  unsigned threads = 0;
  bool journal = true;
  std::vector<std::string> accepted_keys;
};

/// `llmux mock-provider --listen ADDR`: runs the mock provider until SIGTERM/SIGINT.
int runMockProvider(MockProviderOptions const& options);

struct NodeOptions {
  std::string listen;
  std::string token_env;        ///< the environment variable holding the node's token
  std::string source_address;
  std::string tls_cert_file;
  std::string tls_key_file;
  unsigned threads = 0;
};

/// `llmux node --listen ADDR --token-env VAR`: runs an egress agent until SIGTERM/SIGINT.
int runNode(NodeOptions const& options);

}  // namespace llmux::app

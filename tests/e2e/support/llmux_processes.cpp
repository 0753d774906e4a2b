#include "e2e/support/llmux_processes.h"

#include <charconv>
#include <cstdlib>
#include <regex>

#include "e2e/support/config_writer.h"

namespace llmux::e2e {

std::string llmuxBinary() {
  if (char const* env = std::getenv("LLMUX_BINARY"); env != nullptr && *env != '\0') return env;
#ifdef LLMUX_E2E_BINARY
  return LLMUX_E2E_BINARY;
#else
  return {};
#endif
}

Result<std::uint16_t> waitForListeningPort(ChildProcess& child, Millis timeout) {
  static std::regex const kListening(R"(listening on [^ ]+:(\d{1,5}))");
  auto line = child.waitForLineMatching(kListening, timeout);
  if (!line) {
    Error error = line.takeError();
    error.message = "no 'listening on' line: " + error.message;
    return error;
  }
  std::smatch match;
  std::regex_match(line->text, match, kListening);
  std::string digits = match[1].str();
  unsigned port = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (port == 0 || port > 65535) {
    return makeError(ErrorKind::Internal, "bad port in '" + line->text + "'");
  }
  return static_cast<std::uint16_t>(port);
}

std::string RunningServer::baseUrl() const {
  return loopbackUrl(port);
}

Result<RunningServer> startListening(ChildOptions options, Millis timeout) {
  auto child = ChildProcess::spawn(std::move(options));
  if (!child) return child.takeError();
  auto port = waitForListeningPort(*child, timeout);
  if (!port) return port.takeError();
  return RunningServer{std::move(*child), *port};
}

ChildOptions mockProviderOptions(std::string const& binary, std::vector<std::string> extra_args) {
  ChildOptions options{binary, {"mock-provider", "--listen", "127.0.0.1:0"}};
  options.args.insert(options.args.end(), extra_args.begin(), extra_args.end());
  return options;
}

ChildOptions nodeOptions(std::string const& binary, std::string const& token,
                         std::vector<std::string> extra_args) {
  ChildOptions options{binary, {"node", "--listen", "127.0.0.1:0", "--token-env", "NODE_TOKEN",
                                "--threads", "1"}};
  options.args.insert(options.args.end(), extra_args.begin(), extra_args.end());
  options.env = {{"NODE_TOKEN", token}};
  return options;
}

ChildOptions gatewayOptions(std::string const& binary, std::string const& config_path,
                            std::vector<std::string> extra_args) {
  ChildOptions options{binary, {"serve", "--config", config_path}};
  options.args.insert(options.args.end(), extra_args.begin(), extra_args.end());
  // Hermetic: the gateway honours the proxies the environment names, and a test machine's own
  // must not route the tests' loopback upstreams (an empty value counts as unset).
  for (char const* name : {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY",
                           "all_proxy", "NO_PROXY", "no_proxy"}) {
    options.env.emplace_back(name, "");
  }
  return options;
}

}  // namespace llmux::e2e

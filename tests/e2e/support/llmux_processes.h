#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "e2e/support/child_process.h"

// Starting the llmux binary's two server verbs. Both print one line
// "listening on 127.0.0.1:<port>" on stdout once they accept connections.
namespace llmux::e2e {

inline constexpr Millis kStartupTimeout{15'000};

/// The llmux binary under test: $LLMUX_BINARY when set, else the path the build configured,
/// else "" (the binary was not part of the build).
std::string llmuxBinary();

/// The port of the child's "listening on <host>:<port>" line.
Result<std::uint16_t> waitForListeningPort(ChildProcess& child, Millis timeout = kStartupTimeout);

/// A started server process and the loopback port it accepts connections on.
struct RunningServer {
  ChildProcess process;
  std::uint16_t port = 0;

  std::string baseUrl() const;  ///< "http://127.0.0.1:<port>"
};

/// Spawns `options` and waits for its listening line.
Result<RunningServer> startListening(ChildOptions options, Millis timeout = kStartupTimeout);

/// `<binary> mock-provider --listen 127.0.0.1:0 <extra_args...>`.
ChildOptions mockProviderOptions(std::string const& binary,
                                 std::vector<std::string> extra_args = {});

/// `<binary> node --listen 127.0.0.1:0 --token-env NODE_TOKEN --threads 1 <extra_args...>` with
/// NODE_TOKEN=`token` in its environment.
ChildOptions nodeOptions(std::string const& binary, std::string const& token,
                         std::vector<std::string> extra_args = {});

/// `<binary> serve --config <config_path> <extra_args...>`.
ChildOptions gatewayOptions(std::string const& binary, std::string const& config_path,
                            std::vector<std::string> extra_args = {});

}  // namespace llmux::e2e

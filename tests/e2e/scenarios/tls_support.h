#pragma once

// TLS in end-to-end scenarios: a test CA and server certificates made with the openssl command
// line, and nginx terminating TLS in front of a plain upstream (the mock provider, say).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "e2e/support/e2e_test.h"

namespace llmux::e2e {

/// Whether something accepts connections on 127.0.0.1:`port`.
bool acceptsOnLoopback(std::uint16_t port);

class TlsE2eTest : public E2eTest {
 protected:
  /// Runs a shell command in the test's folder; fails the test on a non-zero exit.
  void sh(std::string const& command);

  /// A CA (ca.pem, ca.key) and, for each name, a server certificate signed by it
  /// (<name>.pem, <name>.key) with that name as its DNS subject alternative name.
  void makeCertificates(std::vector<std::string> const& names = {"localhost", "other.example"});

  /// nginx serving TLS on each (port, certificate name), proxying to 127.0.0.1:`upstream_port`;
  /// its access log (nginx-access.log) has "<connection> <requests on it>" per request.
  void startTlsFront(std::uint16_t upstream_port,
                     std::vector<std::pair<std::uint16_t, std::string>> const& servers);

  std::string caFile() { return temp().path() + "/ca.pem"; }
};

}  // namespace llmux::e2e

// Upstreams over TLS: certificate verification (system store or a channel's own CA bundle), SNI
// and host name checks. nginx terminates TLS in front of the mock provider with certificates this
// test makes with the openssl command line.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "lifecycle_support.h"
#include "tls_support.h"

namespace llmux::e2e {
namespace {

using namespace lifecycle;

using TlsUpstreamTest = TlsE2eTest;

TEST_F(TlsUpstreamTest, VerifiesTheUpstreamCertificateAndItsHostName) {
  makeCertificates();
  if (HasFatalFailure()) return;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::uint16_t good_port = freePort();
  std::uint16_t other_port = freePort();
  startTlsFront(mock->port, {{good_port, "localhost"}, {other_port, "other.example"}});
  if (HasFatalFailure()) return;

  std::string ca = temp().path() + "/ca.pem";
  GatewayConfig config;
  config.gateway_keys = {{"dev", kGatewayKey}};
  ChannelSpec trusted = chatChannel("trusted", mock->port, {"via-trusted"});
  trusted.base_url = "https://localhost:" + std::to_string(good_port);
  trusted.extra_yaml = "tls_ca_file: " + yamlQuote(ca) + "\n";
  ChannelSpec system_store = chatChannel("system-store", mock->port, {"via-system-store"});
  system_store.base_url = "https://localhost:" + std::to_string(good_port);
  ChannelSpec wrong_name = chatChannel("wrong-name", mock->port, {"via-wrong-name"});
  wrong_name.base_url = "https://localhost:" + std::to_string(other_port);
  wrong_name.extra_yaml = "tls_ca_file: " + yamlQuote(ca) + "\n";
  config.channels = {trusted, system_store, wrong_name};
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // Trusted CA, matching name (sent as SNI: nginx picks the certificate by it): served.
  auto ok = chat(gateway->port, "via-trusted");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->status(), 200) << ok->body;
  EXPECT_NE(ok->body.find("You said"), std::string::npos) << ok->body;
  // Twice on the same pooled TLS connection.
  auto again = chat(gateway->port, "via-trusted");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status(), 200);

  // The test CA is not in the system store: the handshake is refused, nothing is sent.
  auto untrusted = chat(gateway->port, "via-system-store");
  ASSERT_TRUE(untrusted.ok()) << untrusted.error().message;
  EXPECT_EQ(untrusted->status(), 502) << untrusted->body;

  // A valid certificate for another name: refused too.
  auto mismatch = chat(gateway->port, "via-wrong-name");
  ASSERT_TRUE(mismatch.ok()) << mismatch.error().message;
  EXPECT_EQ(mismatch->status(), 502) << mismatch->body;
}

// The idle check on a pooled connection (one peek) must not mistake a healthy TLS connection for
// a closed one: requests on one client connection (one worker, one pool) share one upstream
// TLS connection, as nginx's $connection_requests shows.
TEST_F(TlsUpstreamTest, APooledTlsConnectionIsReused) {
  makeCertificates();
  if (HasFatalFailure()) return;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::uint16_t good_port = freePort();
  startTlsFront(mock->port, {{good_port, "localhost"}});
  if (HasFatalFailure()) return;

  GatewayConfig config;
  config.gateway_keys = {{"dev", std::string(kGatewayKey)}};
  ChannelSpec trusted = chatChannel("trusted", mock->port, {"via-trusted"});
  trusted.base_url = "https://localhost:" + std::to_string(good_port);
  trusted.extra_yaml = "tls_ca_file: " + yamlQuote(temp().path() + "/ca.pem") + "\n";
  config.channels = {trusted};
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  for (int i = 0; i < 3; ++i) {
    auto response =
        client->request("POST", "/v1/chat/completions", chatHeaders(), chatBody("via-trusted"));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << response->body;
  }
  std::string log;
  ASSERT_TRUE(eventually([&] {
    std::ifstream in(temp().path() + "/nginx-access.log");
    log.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return std::count(log.begin(), log.end(), '\n') >= 3;
  })) << log;
  // "<connection> <requests on it>": one connection, its first, second and third request.
  auto connection = log.substr(0, log.find(' '));
  EXPECT_EQ(log, connection + " 1\n" + connection + " 2\n" + connection + " 3\n");
}

}  // namespace
}  // namespace llmux::e2e

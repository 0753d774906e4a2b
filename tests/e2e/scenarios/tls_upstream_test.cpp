// Upstreams over TLS: certificate verification (system store or a channel's own CA bundle), SNI
// and host name checks. nginx terminates TLS in front of the mock provider with certificates this
// test makes with the openssl command line.
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>

#include "lifecycle_support.h"

namespace llmux::e2e {
namespace {

using namespace lifecycle;

bool accepts(std::uint16_t port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

class TlsUpstreamTest : public E2eTest {
 protected:
  /// Runs a shell command in the test's folder; fails the test on a non-zero exit.
  void sh(std::string const& command) {
    ChildOptions options;
    options.program = "/bin/sh";
    options.args = {"-c", "cd '" + temp().path() + "' && " + command};
    auto process = spawn(std::move(options));
    ASSERT_TRUE(process.ok()) << process.error().message;
    auto exit = (*process)->waitExit(Millis(20'000));
    ASSERT_TRUE(exit.ok()) << exit.error().message;
    ASSERT_EQ(exit->code, 0) << command << "\n" << (*process)->output(Stream::Stderr);
  }

  /// A CA, and two server certificates signed by it: one for localhost, one for other.example.
  void makeCertificates() {
    sh("openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=llmux-test-ca "
       "-keyout ca.key -out ca.pem 2>/dev/null");
    for (std::string name : {"localhost", "other.example"}) {
      sh("openssl req -newkey rsa:2048 -nodes -subj /CN=" + name + " -keyout " + name +
         ".key -out " + name + ".csr 2>/dev/null && printf 'subjectAltName=DNS:" + name +
         "' > " + name + ".ext && openssl x509 -req -in " + name + ".csr -CA ca.pem -CAkey ca.key "
         "-CAcreateserial -days 2 -extfile " + name + ".ext -out " + name + ".pem 2>/dev/null");
    }
  }

  /// nginx serving TLS on two ports (one certificate each), proxying to the mock.
  void startNginx(std::uint16_t mock_port, std::uint16_t good_port, std::uint16_t other_port) {
    std::string dir = temp().path();
    std::string conf = "daemon off; master_process off; worker_processes 1;\n"
                       "error_log " + dir + "/nginx-error.log; pid " + dir + "/nginx.pid;\n"
                       "events { worker_connections 64; }\nhttp {\n"
                       " log_format reuse '$connection $connection_requests';\n"
                       " access_log " + dir + "/nginx-access.log reuse;\n"
                       " client_body_temp_path " + dir + "/nginx-body; proxy_temp_path " + dir + "/nginx-proxy;\n"
                       " fastcgi_temp_path " + dir + "/nginx-fcgi; uwsgi_temp_path " + dir + "/nginx-uwsgi;\n"
                       " scgi_temp_path " + dir + "/nginx-scgi;\n";
    auto server = [&](std::uint16_t port, std::string const& name) {
      return " server {\n  listen 127.0.0.1:" + std::to_string(port) + " ssl;\n  ssl_certificate " + dir +
             "/" + name + ".pem; ssl_certificate_key " + dir + "/" + name + ".key;\n"
             "  location / { proxy_pass http://127.0.0.1:" + std::to_string(mock_port) +
             "; proxy_http_version 1.1; proxy_buffering off; }\n }\n";
    };
    conf += server(good_port, "localhost") + server(other_port, "other.example") + "}\n";
    std::string path = writeTempFile(conf, ".conf");
    ChildOptions options;
    options.program = access("/usr/sbin/nginx", X_OK) == 0 ? "/usr/sbin/nginx" : "nginx";
    options.args = {"-c", path, "-p", dir};
    auto nginx = spawn(std::move(options));
    ASSERT_TRUE(nginx.ok()) << nginx.error().message;
    ASSERT_TRUE(eventually([&] { return accepts(good_port) && accepts(other_port); }))
        << (*nginx)->output(Stream::Stderr);
  }
};

TEST_F(TlsUpstreamTest, VerifiesTheUpstreamCertificateAndItsHostName) {
  makeCertificates();
  if (HasFatalFailure()) return;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::uint16_t good_port = freePort();
  std::uint16_t other_port = freePort();
  startNginx(mock->port, good_port, other_port);
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
  startNginx(mock->port, good_port, freePort());
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

// The operator's surfaces (docs/security.md): /admin/* and /metrics on their own addresses, off
// the client port; the metrics token; failed token attempts limited per address.
#include <gtest/gtest.h>

#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"
#include "e2e/support/socket_io.h"

namespace llmux::e2e {
namespace {

constexpr char kGatewayKey[] = "sk-operator-test-tenant";
constexpr char kAdminToken[] = "adm-operator-token-0001";
constexpr char kMetricsToken[] = "met-operator-token-0001";

Result<Response> get(std::uint16_t port, std::string_view target, HeaderList headers = {}) {
  auto client = HttpClient::connect(port);
  if (!client) return client.error();
  return client->request("GET", target, headers);
}

HeaderList bearer(std::string_view token) {
  HeaderList headers;
  headers.add("Authorization", "Bearer " + std::string(token));
  return headers;
}

class OperatorTest : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    auto mock = startMockProvider();
    ASSERT_TRUE(mock.ok()) << mock.error().message;
    admin_port_ = freePort();
    metrics_port_ = freePort();
    std::string yaml =
        "listen: 127.0.0.1:0\n"
        "admin_listen: 127.0.0.1:" + std::to_string(admin_port_) + "\n"
        "metrics_listen: 127.0.0.1:" + std::to_string(metrics_port_) + "\n"
        "admin_token: " + std::string(kAdminToken) + "\n"
        "metrics_token: " + std::string(kMetricsToken) + "\n"
        "gateway_keys: [{name: dev, key: " + std::string(kGatewayKey) + "}]\n"
        "channels:\n"
        "  - {name: m, protocol: openai-chat, base_url: \"" + mock->baseUrl() +
        "\", keys: [k1], models: [gpt-4o-mini]}\n";
    auto gateway = startGatewayYaml(yaml);
    ASSERT_TRUE(gateway.ok()) << gateway.error().message;
    client_port_ = gateway->port;
  }
  std::uint16_t client_port_ = 0;
  std::uint16_t admin_port_ = 0;
  std::uint16_t metrics_port_ = 0;
};

TEST_F(OperatorTest, EachRouteIsServedOnItsOwnAddressOnly) {
  // The client port: the API, never the operator's routes.
  auto chat = HttpClient::connect(client_port_);
  ASSERT_TRUE(chat.ok());
  HeaderList headers = bearer(kGatewayKey);
  headers.add("Content-Type", "application/json");
  auto answer = chat->request("POST", "/v1/chat/completions", headers,
                              R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200);
  EXPECT_EQ(get(client_port_, "/admin/freezes", bearer(kAdminToken))->status(), 404);
  EXPECT_EQ(get(client_port_, "/metrics", bearer(kMetricsToken))->status(), 404);
  EXPECT_EQ(get(client_port_, "/healthz")->status(), 200);

  // The admin address: the admin API, nothing else.
  auto freezes = get(admin_port_, "/admin/freezes", bearer(kAdminToken));
  ASSERT_TRUE(freezes.ok()) << freezes.error().message;
  EXPECT_EQ(freezes->status(), 200) << freezes->body;
  EXPECT_EQ(get(admin_port_, "/v1/models", bearer(kGatewayKey))->status(), 404);
  EXPECT_EQ(get(admin_port_, "/metrics", bearer(kMetricsToken))->status(), 404);
  EXPECT_EQ(get(admin_port_, "/readyz")->status(), 200);

  // The metrics address: /metrics with its bearer token only.
  auto open = get(metrics_port_, "/metrics");
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->status(), 401);
  HeaderList admin_header;
  admin_header.add("x-admin-token", kMetricsToken);
  EXPECT_EQ(get(metrics_port_, "/metrics", admin_header)->status(), 401) << "a bearer token only";
  auto metrics = get(metrics_port_, "/metrics", bearer(kMetricsToken));
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metrics->status(), 200);
  EXPECT_NE(metrics->body.find("llmux_requests_total"), std::string::npos);
  EXPECT_EQ(get(metrics_port_, "/admin/freezes", bearer(kAdminToken))->status(), 404);
}

TEST_F(OperatorTest, TheConsoleIsOnTheAdminAddressAndReadsNoBigBodyBeforeSigningIn) {
  EXPECT_EQ(get(client_port_, "/console/")->status(), 404) << "not on the client port";
  auto page = get(admin_port_, "/console/");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->status(), 200);
  EXPECT_EQ(get(metrics_port_, "/console/")->status(), 404);

  // A sign-in declaring a body far over 4 KiB is refused on its head, before any byte is read.
  auto raw = HttpClient::connect(admin_port_);
  ASSERT_TRUE(raw.ok());
  ASSERT_TRUE(raw->sendRaw("POST /console/session HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                           "Content-Length: 1000000000\r\n\r\n{\"token\":").ok());
  auto head = raw->readHead();
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 413);
  // A token padded to 5,000 bytes is over the limit too: 413, not a token check.
  HeaderList json;
  json.add("Content-Type", "application/json");
  auto client = HttpClient::connect(admin_port_);
  ASSERT_TRUE(client.ok());
  auto padded = client->request("POST", "/console/session", json,
                                R"({"token":")" + std::string(5000, 'a') + R"("})");
  ASSERT_TRUE(padded.ok());
  EXPECT_EQ(padded->status(), 413);
  // Header-injection attempts in the cookie are just unknown sessions.
  HeaderList forged;
  forged.add("Cookie", "llmux_console=../../etc; llmux_console=%0d%0aSet-Cookie:%20x");
  EXPECT_EQ(get(admin_port_, "/admin/freezes", forged)->status(), 401);
}

TEST_F(OperatorTest, GuessingATokenAtTheConsolesSignInIsLimitedToo) {
  auto signIn = [&](std::string const& token) {
    auto client = HttpClient::connect(admin_port_);
    EXPECT_TRUE(client.ok());
    HeaderList json;
    json.add("Content-Type", "application/json");
    return client->request("POST", "/console/session", json, R"({"token":")" + token + R"("})");
  };
  for (int i = 0; i < 10; ++i) {
    auto wrong = signIn("adm-guess-" + std::to_string(i));
    ASSERT_TRUE(wrong.ok());
    EXPECT_EQ(wrong->status(), 401) << i;
    EXPECT_TRUE(wrong->header("Set-Cookie").empty());
  }
  auto blocked = signIn(kAdminToken);
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(blocked->status(), 429) << blocked->body;
  EXPECT_FALSE(blocked->header("retry-after").empty());
  EXPECT_EQ(get(admin_port_, "/admin/freezes", bearer(kAdminToken))->status(), 429)
      << "one count for the sign-in and the tokens";
}

TEST_F(OperatorTest, GuessingATokenIsLimitedPerAddress) {
  for (int i = 0; i < 10; ++i) {
    auto wrong = get(admin_port_, "/admin/freezes", bearer("adm-guess-" + std::to_string(i)));
    ASSERT_TRUE(wrong.ok());
    EXPECT_EQ(wrong->status(), 403) << i;
  }
  // Past ten failures in a minute the address waits, even with the right token.
  auto blocked = get(admin_port_, "/admin/freezes", bearer(kAdminToken));
  ASSERT_TRUE(blocked.ok());
  EXPECT_EQ(blocked->status(), 429) << blocked->body;
  EXPECT_FALSE(blocked->header("retry-after").empty());
  EXPECT_EQ(get(metrics_port_, "/metrics", bearer(kMetricsToken))->status(), 429)
      << "one count for every operator token";
  // The API is not an operator surface: tenants are unaffected.
  HeaderList headers = bearer(kGatewayKey);
  EXPECT_EQ(get(client_port_, "/v1/models", headers)->status(), 200);
}

}  // namespace
}  // namespace llmux::e2e

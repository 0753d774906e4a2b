// Secrets never leave (docs/security.md): a channel key echoed by an upstream's error page or
// Location never reaches the client, the logs or the request log; a client leaving before the
// first byte is a record, not an error line quoting its URL; headers of the upstream's site and
// account stay at the gateway. (Every e2e scenario is also swept for configured secrets when it
// ends: e2e/support/secret_sweep.h.)
#include <gtest/gtest.h>

#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/provider_answers.h"
#include "e2e/scenarios/security_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e {
namespace {

using failover::parseObject;
using failover::waitForAccessLine;

constexpr char kGatewayKey[] = "sk-gw-tenant-7f3a9c";
// A Google-style key with characters that change under percent-encoding.
constexpr char kChannelKey[] = "AIzaSy-Ch4nnel/K3y+secret=0";
constexpr char kChannelKeyEncoded[] = "AIzaSy-Ch4nnel%2FK3y%2Bsecret%3D0";

std::string queryChannelYaml(std::string const& base_url, std::string const& access_log) {
  return "listen: 127.0.0.1:0\n"
         "gateway_keys: [{name: tenant, key: " + std::string(kGatewayKey) + "}]\n"
         "log: {access_log: " + access_log + "}\n"
         "channels:\n"
         "  - name: gem\n"
         "    protocol: gemini\n"
         "    base_url: " + base_url + "\n"
         "    auth: query:key\n"
         "    keys: [\"" + std::string(kChannelKey) + "\"]\n"
         "    models: [m]\n";
}

/// An upstream whose error page and Location quote the request target, as many servers do.
std::string echoingNotFound(RecordedRequest const& request) {
  std::string target = request.request_line.substr(5, request.request_line.rfind(' ') - 5);
  return RecordingUpstream::jsonResponse(
      R"({"error":{"code":404,"message":"Cannot POST )" + target + R"(","status":"NOT_FOUND"}})",
      404, "Location: https://upstream.example" + target + "\r\n");
}

void expectNoChannelKey(std::string_view where, std::string_view text) {
  EXPECT_EQ(text.find(kChannelKey), std::string_view::npos) << where << ": " << text;
  EXPECT_EQ(text.find(kChannelKeyEncoded), std::string_view::npos) << where << ": " << text;
}

TEST_F(E2eTest, AQueryChannelsKeyEchoedByItsUpstreamNeverReachesTheClient) {
  RecordingUpstream upstream(echoingNotFound);
  auto gateway = startGatewayYaml(queryChannelYaml(upstream.baseUrl(), "access.log"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // The key went upstream percent-encoded, so the page did quote it.
  HeaderList gemini;
  gemini.add("Content-Type", "application/json");
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok());
  auto passthrough = client->request(
      "POST", "/v1beta/models/m:generateContent?key=" + std::string(kGatewayKey), gemini,
      R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})");
  ASSERT_TRUE(passthrough.ok()) << passthrough.error().message;
  ASSERT_EQ(upstream.requests().size(), 1u);
  EXPECT_NE(upstream.requests()[0].request_line.find(std::string("key=") + kChannelKeyEncoded),
            std::string::npos) << upstream.requests()[0].request_line;
  EXPECT_EQ(passthrough->status(), 404);
  expectNoChannelKey("relayed body", passthrough->body);
  expectNoChannelKey("relayed Location", passthrough->header("location"));
  EXPECT_NE(passthrough->body.find("key=[redacted]"), std::string::npos) << passthrough->body;

  // A client of another protocol gets the error translated: the message is cleaned too.
  HeaderList chat;
  chat.add("Authorization", std::string("Bearer ") + kGatewayKey);
  chat.add("Content-Type", "application/json");
  chat.add("X-Request-Id", "translated-404");
  auto translated = client->request("POST", "/v1/chat/completions", chat,
                                    R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(translated.ok()) << translated.error().message;
  EXPECT_EQ(translated->status(), 404);
  expectNoChannelKey("translated body", translated->body);

  auto line = waitForAccessLine(temp().path() + "/access.log", "translated-404");
  ASSERT_TRUE(line.ok()) << line.error().message;
  expectNoChannelKey("access log error", line->at("error").as_string());
  // The logs, the request log and /metrics are swept for both keys when the test ends.
}

TEST_F(E2eTest, AClientLeavingBeforeTheFirstByteIsRecordedWithoutLoggingItsUrl) {
  // An upstream that takes its time, long enough for the client to give up.
  RecordingUpstream upstream([](RecordedRequest const& request) {
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    return providerAnswer(request);
  });
  auto gateway = startGatewayYaml(queryChannelYaml(upstream.baseUrl(), "access.log"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok());
  HeaderList headers;
  headers.add("Content-Type", "application/json");
  headers.add("X-Request-Id", "gave-up-early");
  ASSERT_TRUE(client
                  ->sendRequest("POST",
                                "/v1beta/models/m:streamGenerateContent?alt=sse&key=" +
                                    std::string(kGatewayKey),
                                headers, R"({"contents":[{"role":"user","parts":[{"text":"hi"}]}]})")
                  .ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  client->closeNow(CloseMode::Reset);

  auto line = waitForAccessLine(temp().path() + "/access.log", "gave-up-early", Millis(5'000));
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("status").as_int64(), 499);
  EXPECT_EQ(line->at("error").as_string(), "client_gone");
  std::string err = gateway->process->output(Stream::Stderr);
  EXPECT_EQ(err.find("without answering"), std::string::npos) << err;
  EXPECT_EQ(err.find("key="), std::string::npos) << err;
}

TEST_F(E2eTest, HeadersOfTheUpstreamsSiteAndAccountStayAtTheGateway) {
  RecordingUpstream upstream([](RecordedRequest const& request) {
    std::string answer = providerAnswer(request);
    std::string extra =
        "Set-Cookie: __cf_bm=operator-session; path=/; HttpOnly\r\n"
        "Alt-Svc: h3=\":443\"; ma=86400\r\n"
        "Strict-Transport-Security: max-age=31536000\r\n"
        "openai-organization: org-operator\r\n"
        "openai-project: proj_operator\r\n"
        "X-LLMux-Attempts: 42\r\n"
        "x-ratelimit-remaining-requests: 4999\r\n"
        "x-ratelimit-remaining-tokens: 799000\r\n"
        "openai-processing-ms: 12\r\n";
    return answer.insert(answer.find("\r\n") + 2, extra);
  });
  for (bool expose : {false, true}) {
    std::string yaml = "listen: 127.0.0.1:0\n"
                       "gateway_keys: [{name: tenant, key: " + std::string(kGatewayKey) + "}]\n"
                       "channels:\n"
                       "  - name: oai\n"
                       "    protocol: openai-chat\n"
                       "    base_url: " + upstream.baseUrl() + "\n"
                       "    keys: [sk-operator-0123456789]\n"
                       "    models: [m]\n" +
                       (expose ? "    expose_rate_limit_headers: true\n" : "");
    auto gateway = startGatewayYaml(yaml);
    ASSERT_TRUE(gateway.ok()) << gateway.error().message;
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok());
    HeaderList headers;
    headers.add("Authorization", std::string("Bearer ") + kGatewayKey);
    headers.add("Content-Type", "application/json");
    auto response = client->request("POST", "/v1/chat/completions", headers,
                                    R"({"model":"m","messages":[{"role":"user","content":"hi"}]})");
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    for (std::string_view name : {"set-cookie", "alt-svc", "strict-transport-security",
                                  "openai-organization", "openai-project"}) {
      EXPECT_FALSE(response->head.headers.has(name)) << name;
    }
    EXPECT_NE(response->header("x-llmux-attempts"), "42") << "an upstream cannot speak for llmux";
    EXPECT_EQ(response->header("openai-processing-ms"), "12");
    EXPECT_EQ(response->head.headers.has("x-ratelimit-remaining-requests"), expose);
    EXPECT_EQ(response->head.headers.has("x-ratelimit-remaining-tokens"), expose);
  }
}

}  // namespace
}  // namespace llmux::e2e

// One choke point for what goes on the wire (docs/security.md): a CR, LF or NUL in a value taken
// from a client's headers or body, a preset, a channel header or a secret never makes an upstream
// parse a second request, nor a header line the value's author chose. The upstream here is a
// strict raw HTTP/1.1 parser that records every byte.
#include <gtest/gtest.h>

#include "e2e/scenarios/provider_answers.h"
#include "e2e/scenarios/security_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e {
namespace {

using security::linesWith;

constexpr char kGatewayKey[] = "sk-gw-wire";
// What a tenant put in a body field to smuggle a request with the channel's key, JSON-escaped.
constexpr char kHostileJson[] =
    R"(abc\r\n\r\nPOST /v1/smuggled HTTP/1.1\r\nHost: evil\r\nX-Pad: )";

std::string configFor(std::string const& base_url, std::string_view protocol,
                      std::string_view preset) {
  return "listen: 127.0.0.1:0\n"
         "gateway_keys: [{name: tenant, key: " + std::string(kGatewayKey) + "}]\n"
         "channels:\n"
         "  - name: upstream\n"
         "    protocol: " + std::string(protocol) + "\n"
         "    base_url: " + base_url + "\n"
         "    keys: [sk-channel-secret]\n"
         "    models: [m]\n"
         "    client_preset: " + std::string(preset) + "\n";
}

/// Asserts the upstream parsed exactly one request, none of whose lines the hostile value wrote.
void expectOneCleanRequest(RecordingUpstream const& upstream) {
  auto requests = upstream.requests();
  ASSERT_EQ(requests.size(), 1u) << upstream.receivedBytes();
  EXPECT_EQ(upstream.garbage(), "") << "the upstream's parser was desynchronised";
  std::string bytes = upstream.receivedBytes();
  // (The body may quote the value, JSON-escaped: only raw line breaks around it would matter.)
  EXPECT_EQ(bytes.find("\nPOST /v1/smuggled"), std::string::npos) << linesWith(bytes, "smuggled");
  for (auto const& line : requests[0].header_lines) {
    EXPECT_FALSE(line.starts_with("Host: evil")) << line;
    EXPECT_FALSE(line.starts_with("X-Pad")) << line;
  }
}

struct BodyFieldCase {
  std::string name;
  std::string target;            ///< the client's route
  std::string body;              ///< with the hostile value in one field
  std::string channel_protocol;  ///< the channel's (the preset decides what is spoken)
  std::string preset;
  std::string session_header;    ///< where the preset puts the session id
};

std::vector<BodyFieldCase> bodyFieldCases() {
  std::string const hostile = kHostileJson;
  return {
      {"chat_user_to_claude_code", "/v1/chat/completions",
       R"({"model":"m","messages":[{"role":"user","content":"hi"}],"user":")" + hostile + R"("})",
       "anthropic", "claude-code", "x-claude-code-session-id"},
      {"chat_prompt_cache_key_to_claude_code", "/v1/chat/completions",
       R"({"model":"m","messages":[{"role":"user","content":"hi"}],"prompt_cache_key":")" + hostile + R"("})",
       "anthropic", "claude-code", "x-claude-code-session-id"},
      {"responses_prompt_cache_key_to_claude_code", "/v1/responses",
       R"({"model":"m","input":"hi","prompt_cache_key":")" + hostile + R"("})", "anthropic",
       "claude-code", "x-claude-code-session-id"},
      {"anthropic_metadata_user_id_to_codex", "/v1/messages",
       R"({"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}],"metadata":{"user_id":")" +
           hostile + R"("}})",
       "openai-chat", "codex-cli", "session-id"},
      {"chat_user_to_codex", "/v1/chat/completions",
       R"({"model":"m","messages":[{"role":"user","content":"hi"}],"user":")" + hostile + R"("})",
       "openai-chat", "codex-cli", "thread-id"},
  };
}

void PrintTo(BodyFieldCase const& c, std::ostream* out) { *out << c.name; }

class WireChokePointTest : public E2eTest, public ::testing::WithParamInterface<BodyFieldCase> {};

TEST_P(WireChokePointTest, ABodyFieldNeverWritesAHeaderLineUpstream) {
  BodyFieldCase const& c = GetParam();
  RecordingUpstream upstream(providerAnswer);
  auto gateway = startGatewayYaml(configFor(upstream.baseUrl(), c.channel_protocol, c.preset));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok()) << client.error().message;
  HeaderList headers;
  headers.add("Authorization", std::string("Bearer ") + kGatewayKey);
  headers.add("x-goog-api-key", kGatewayKey);
  headers.add("Content-Type", "application/json");
  headers.add("anthropic-version", "2023-06-01");
  auto response = client->request("POST", c.target, headers, c.body);
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  expectOneCleanRequest(upstream);
  auto requests = upstream.requests();
  ASSERT_EQ(requests.size(), 1u);
  if (!c.session_header.empty()) {
    // The session still ties the requests of one conversation together, as a hash.
    std::string session = requests[0].header(c.session_header);
    EXPECT_TRUE(session.starts_with("sha256-")) << c.session_header << ": " << session;
  }
}

INSTANTIATE_TEST_SUITE_P(Sources, WireChokePointTest, ::testing::ValuesIn(bodyFieldCases()),
                         [](auto const& info) { return info.param.name; });

TEST_F(E2eTest, AClientHeaderWithABareCarriageReturnOrAFoldNeverReachesTheUpstreamAsALine) {
  RecordingUpstream upstream(providerAnswer);
  auto gateway = startGatewayYaml(configFor(upstream.baseUrl(), "anthropic", "claude-code"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::string const body = R"({"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]})";
  // Raw bytes: a bare CR inside a session id header, an obs-fold continuing a header, a NUL.
  std::vector<std::string> injections = {
      "X-Claude-Code-Session-Id: abc\rX-Injected: 1\r\n",
      "anthropic-beta: tools\r\n X-Injected: 1\r\n",
      std::string("X-Session-Id: abc\0X-Injected: 1\r\n", 32),
  };
  for (auto const& injection : injections) {
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok()) << client.error().message;
    std::string request = "POST /v1/messages HTTP/1.1\r\nHost: gw\r\nx-api-key: " +
                          std::string(kGatewayKey) +
                          "\r\nContent-Type: application/json\r\nanthropic-version: 2023-06-01\r\n" +
                          injection + "Content-Length: " + std::to_string(body.size()) +
                          "\r\n\r\n" + body;
    ASSERT_TRUE(client->sendRaw(request).ok());
    auto response = client->readResponse();
    ASSERT_TRUE(response.ok()) << response.error().message;
    // Refused as malformed (400), or served with the value kept inside its own line.
    EXPECT_TRUE(response->status() == 400 || response->status() == 200) << response->status();
  }
  EXPECT_EQ(upstream.garbage(), "");
  for (auto const& request : upstream.requests()) {
    for (auto const& line : request.header_lines) {
      EXPECT_FALSE(line.starts_with("X-Injected")) << line;
      EXPECT_FALSE(line.starts_with(" ")) << "a fold reached the upstream: " << line;
    }
  }
}

class ConfigurationWireTest : public E2eTest {
 protected:
  /// `llmux <verb> <config>` with `env`, to completion: its exit code and stderr.
  std::pair<int, std::string> run(std::string_view verb, std::string const& path,
                                  std::vector<std::pair<std::string, std::string>> env) {
    ChildOptions options;
    options.program = binary();
    options.args = {std::string(verb), verb == "serve" ? "--config" : path};
    if (verb == "serve") options.args.push_back(path);
    options.env = std::move(env);
    auto process = spawn(std::move(options));
    if (!process) return {-1, process.error().message};
    auto status = (*process)->waitExit(Millis(10'000));
    if (!status) return {-1, status.error().message};
    return {status->code, (*process)->output(Stream::Stderr)};
  }
};

TEST_F(ConfigurationWireTest, AChannelHeaderOrASecretWithALineBreakIsRefusedAtLoad) {
  RecordingUpstream upstream(providerAnswer);
  std::string const yaml =
      "listen: 127.0.0.1:0\n"
      "gateway_keys: [{name: tenant, key: " + std::string(kGatewayKey) + "}]\n"
      "channels:\n"
      "  - name: upstream\n"
      "    protocol: anthropic\n"
      "    base_url: " + upstream.baseUrl() + "\n"
      "    keys: [{key_env: LLMUX_TEST_CHANNEL_KEY}]\n"
      "    models: [m]\n"
      "    headers: {X-Team: \"${LLMUX_TEST_TEAM}\"}\n";
  std::string path = writeTempFile(yaml);
  std::vector<std::pair<std::string, std::string>> env = {
      {"LLMUX_TEST_CHANNEL_KEY", "sk-channel-secret\n"},
      {"LLMUX_TEST_TEAM", "blue\r\n\r\nPOST /v1/smuggled HTTP/1.1\r\nX-Pad: "}};
  for (std::string_view verb : {"check-config", "serve"}) {
    auto [code, err] = run(verb, path, env);
    EXPECT_EQ(code, 2) << verb << ": " << err;
    EXPECT_NE(err.find("channels[0].keys[0].key_env: the secret ends with a line break"), std::string::npos)
        << verb << ": " << err;
    EXPECT_NE(err.find("channels[0].headers.X-Team: header value must not contain control characters"),
              std::string::npos) << verb << ": " << err;
    EXPECT_EQ(err.find("sk-channel-secret"), std::string::npos) << "never the secret: " << err;
  }
  EXPECT_EQ(upstream.connections(), 0u);
}

}  // namespace
}  // namespace llmux::e2e

// Requests llmux refuses itself, each in the client protocol's own error shape and status, and
// never forwarded: bad or missing gateway keys, bad JSON, missing or unknown models, models of
// another protocol, unknown paths and wrong methods.
#include <gtest/gtest.h>

#include "e2e/support/e2e_test.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

/// The error `type` (OpenAI, Anthropic) or `status` (Gemini) each protocol uses for `status`.
std::string expectedType(Protocol protocol, int status) {
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses:
      return "invalid_request_error";
    case Protocol::Anthropic:
      return status == 401   ? "authentication_error"
             : status == 404 ? "not_found_error"
                             : "invalid_request_error";
    case Protocol::Gemini:
      return status == 401 ? "UNAUTHENTICATED" : status == 404 ? "NOT_FOUND" : "INVALID_ARGUMENT";
  }
  return {};
}

/// Sends a generation request for `model` with `body` and checks the refusal.
ErrorBody expectRefusal(std::uint16_t gateway_port, Protocol protocol, HeaderList const& headers,
                        std::string_view model, std::string_view body, int status) {
  auto response =
      call(gateway_port, "POST", generationTarget(protocol, model, false), headers, body);
  ErrorBody error;
  EXPECT_TRUE(response.ok()) << response.error().message;
  if (!response.ok()) return error;
  EXPECT_TRUE(isProtocolError(protocol, status, *response, &error));
  EXPECT_EQ(error.type, expectedType(protocol, status)) << response->body;
  EXPECT_FALSE(response->header("x-request-id").empty());
  return error;
}

void expectNothingForwarded(std::uint16_t mock_port) {
  auto journal = fetchJournal(mock_port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty()) << journal->size() << " requests reached the upstream, first "
                                << journal->front().path;
}

TEST_F(E2eTest, MissingOrWrongGatewayKeyIs401InEachProtocolShape) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    Lane const& l = lane(protocol);
    std::string body = minimalBody(protocol, l.model, false);
    expectRefusal(gateway->port, protocol, clientHeaders(protocol, ""), l.model, body, 401);
    std::string wrong = "sk-not-a-gateway-key-0000";
    ErrorBody error =
        expectRefusal(gateway->port, protocol, clientHeaders(protocol, wrong), l.model, body, 401);
    EXPECT_EQ(error.message.find(wrong), std::string::npos) << error.message;
    if (protocol == Protocol::OpenAiChat || protocol == Protocol::OpenAiResponses) {
      EXPECT_EQ(error.code, "invalid_api_key");
    }
    // A channel's upstream key is not a gateway key.
    expectRefusal(gateway->port, protocol, clientHeaders(protocol, l.channel_key), l.model, body,
                  401);
  }
  expectNothingForwarded(mock->port);
}

TEST_F(E2eTest, EachClientKeyPlacementIsAccepted) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& anthropic = lane(Protocol::Anthropic);
  Lane const& gemini = lane(Protocol::Gemini);
  std::string key(kGatewayKey);

  struct Case {
    std::string what;
    Protocol protocol;
    std::string target;
    HeaderList headers;
  };
  std::vector<Case> cases;
  cases.push_back({"anthropic x-api-key", Protocol::Anthropic, "/v1/messages",
                   clientHeaders(Protocol::Anthropic)});
  HeaderList bearer;
  bearer.add("Authorization", "Bearer " + key);
  bearer.add("anthropic-version", "2023-06-01");
  cases.push_back({"anthropic bearer", Protocol::Anthropic, "/v1/messages", bearer});
  cases.push_back({"gemini x-goog-api-key", Protocol::Gemini,
                   generationTarget(Protocol::Gemini, gemini.model, false),
                   clientHeaders(Protocol::Gemini)});
  cases.push_back({"gemini ?key=", Protocol::Gemini,
                   generationTarget(Protocol::Gemini, gemini.model, false) + "?key=" + key,
                   clientHeaders(Protocol::Gemini, "")});
  for (auto const& c : cases) {
    SCOPED_TRACE(c.what);
    ASSERT_TRUE(clearJournal(mock->port).ok());
    std::string body = minimalBody(c.protocol, lane(c.protocol).model, false);
    auto response = call(gateway->port, "POST", c.target, c.headers, body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << response->body;
    auto journal = waitForJournal(mock->port, 1);
    ASSERT_TRUE(journal.ok()) << journal.error().message;
    JournalEntry const& entry = journal->front();
    EXPECT_EQ(entry.query, "");
    if (c.protocol == Protocol::Anthropic) {
      EXPECT_EQ(entry.headers.get("x-api-key"), anthropic.channel_key);
      EXPECT_FALSE(entry.headers.has("authorization"));
    } else {
      EXPECT_EQ(entry.headers.get("x-goog-api-key"), gemini.channel_key);
    }
  }
}

TEST_F(E2eTest, MalformedJsonIs400InEachProtocolShape) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    Lane const& l = lane(protocol);
    std::string good = minimalBody(protocol, l.model, false);
    for (std::string bad : {good.substr(0, good.size() - 3),     // cut short
                            good + "}",                          // trailing garbage
                            "{\"model\":\"" + l.model + "\",}",  // trailing comma
                            std::string("not json at all"), std::string()}) {
      SCOPED_TRACE(bad);
      expectRefusal(gateway->port, protocol, clientHeaders(protocol), l.model, bad, 400);
    }
  }
  expectNothingForwarded(mock->port);
}

TEST_F(E2eTest, MissingModelOrBadStreamFlagIs400) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  struct Case {
    Protocol protocol;
    std::string body;
    std::string says;
  };
  std::vector<Case> cases = {
      {Protocol::OpenAiChat, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", "model"},
      {Protocol::OpenAiResponses, "{\"input\":\"Hi\",\"metadata\":{\"model\":\"gpt-5\"}}", "model"},
      {Protocol::Anthropic,
       "{\"max_tokens\":10,\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}", "model"},
      {Protocol::OpenAiChat, "[{\"model\":\"gpt-4o-mini\"}]", ""},
      {Protocol::OpenAiChat, "{\"model\":42,\"messages\":[]}", "model"},
      {Protocol::Anthropic,
       "{\"model\":\"claude-sonnet-4-5\",\"max_tokens\":10,\"stream\":\"yes\",\"messages\":[]}",
       "stream"},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.body);
    ErrorBody error =
        expectRefusal(gateway->port, c.protocol, clientHeaders(c.protocol), "", c.body, 400);
    EXPECT_NE(error.message.find(c.says), std::string::npos) << error.message;
  }
  expectNothingForwarded(mock->port);
}

TEST_F(E2eTest, UnknownModelIs404NamingTheModel) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    std::string model = "no-such-model-" + std::string(protocolName(protocol));
    ErrorBody error = expectRefusal(gateway->port, protocol, clientHeaders(protocol), model,
                                    minimalBody(protocol, model, false), 404);
    EXPECT_NE(error.message.find(model), std::string::npos) << error.message;
    if (protocol == Protocol::OpenAiChat || protocol == Protocol::OpenAiResponses) {
      EXPECT_EQ(error.code, "model_not_found");
    }
  }
  expectNothingForwarded(mock->port);
}

// A model only channels of another protocol serve is reached through translation: the upstream
// gets a request in its own protocol (path, renamed model), the client an answer in its own.
TEST_F(E2eTest, ModelOfAnotherProtocolIsServedThroughTranslation) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  struct Case {
    Protocol client;
    Protocol serving;
  };
  for (Case c :
       {Case{Protocol::OpenAiChat, Protocol::Anthropic},
        Case{Protocol::Anthropic, Protocol::Gemini}, Case{Protocol::Gemini, Protocol::OpenAiChat},
        Case{Protocol::OpenAiResponses, Protocol::OpenAiChat},
        Case{Protocol::OpenAiChat, Protocol::OpenAiResponses}}) {
    SCOPED_TRACE(std::string(protocolName(c.client)) + " asking for a model of " +
                 std::string(protocolName(c.serving)));
    for (bool renamed : {false, true}) {
      Lane const& serving = lane(c.serving);
      std::string model = renamed ? serving.alias : serving.model;
      std::string upstream_model = renamed ? serving.alias_target : serving.model;
      ASSERT_TRUE(clearJournal(mock->port).ok());
      auto response = call(gateway->port, "POST", generationTarget(c.client, model, false),
                           clientHeaders(c.client), minimalBody(c.client, model, false));
      ASSERT_TRUE(response.ok()) << response.error().message;
      EXPECT_EQ(response->status(), 200) << response->body;
      EXPECT_NE(response->body.find("You said"), std::string::npos) << response->body;
      auto journal = waitForJournal(mock->port, 1);
      ASSERT_TRUE(journal.ok()) << journal.error().message;
      auto const& entry = journal->front();
      EXPECT_EQ(entry.path, upstreamPath(c.serving, upstream_model, false)) << "the serving protocol's path";
      EXPECT_EQ(entry.status, 200) << "the mock validates requests like the provider: " << entry.response_body;
    }
  }
}

TEST_F(E2eTest, UnknownPathIs404) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  HeaderList headers = clientHeaders(Protocol::OpenAiChat);
  for (std::string target : {"/v1/completions", "/v2/chat/completions", "/v1/chat/completions/x",
                             "/", "/v1beta/models/gemini-2.5-flash:embedContent"}) {
    SCOPED_TRACE(target);
    auto response = call(gateway->port, "POST", target, headers, "{}");
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 404) << response->body;
    auto doc = parseJson(response->body);
    ASSERT_TRUE(doc.has_value()) << response->body;
    ASSERT_TRUE(doc->is_object()) << response->body;
    EXPECT_NE(response->body.find(target.substr(0, target.find(':'))), std::string::npos)
        << response->body;
    if (!target.starts_with("/v1beta")) {
      EXPECT_TRUE(isProtocolError(Protocol::OpenAiChat, 404, *response));
    }
  }
  expectNothingForwarded(mock->port);
}

TEST_F(E2eTest, WrongMethodIs405WithAllow) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  struct Case {
    std::string method;
    std::string target;
    Protocol shape;
    std::string allow;
  };
  std::vector<Case> cases = {
      {"GET", "/v1/chat/completions", Protocol::OpenAiChat, "POST"},
      {"PUT", "/v1/responses", Protocol::OpenAiResponses, "POST"},
      {"GET", "/v1/messages", Protocol::Anthropic, "POST"},
      {"GET", "/v1beta/models/gemini-2.5-flash:generateContent", Protocol::Gemini, "POST"},
      {"POST", "/v1/models", Protocol::OpenAiChat, "GET"},
      {"DELETE", "/v1beta/models", Protocol::Gemini, "GET"},
      {"POST", "/healthz", Protocol::OpenAiChat, "GET"},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.method + " " + c.target);
    auto response = call(gateway->port, c.method, c.target, clientHeaders(c.shape),
                         c.method == "POST" || c.method == "PUT" ? "{}" : "");
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_TRUE(isProtocolError(c.shape, 405, *response));
    EXPECT_EQ(response->header("allow"), c.allow);
  }
  expectNothingForwarded(mock->port);
}

}  // namespace
}  // namespace llmux::e2e

// The other endpoints: model lists in three shapes, token counts forwarded to their channels,
// health and readiness probes, Prometheus metrics, and every route without its /v1 prefix.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <thread>

#include "e2e/support/e2e_test.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

/// The lane channels plus a second chat channel overlapping the first on one model.
GatewayConfig configWithBackup(std::uint16_t mock_port) {
  GatewayConfig config = laneConfig(mock_port);
  ChannelSpec backup;
  backup.name = "chat-backup";
  backup.protocol = Protocol::OpenAiChat;
  backup.base_url = loopbackUrl(mock_port);
  backup.keys = {"sk-up-backup-51aa"};
  backup.models = {"gpt-4o-mini", "gpt-4.1"};
  backup.model_map = {{"quick", "gpt-4.1-mini"}};
  config.channels.push_back(backup);
  return config;
}

std::multiset<std::string> expectedModelIds() {
  return {"gpt-4o-mini",      "fast",  "gpt-5",   "smart", "claude-sonnet-4-5", "sonnet",
          "gemini-2.5-flash", "flash", "gpt-4.1", "quick"};
}

std::string idsText(std::multiset<std::string> const& ids) {
  std::string out;
  for (auto const& id : ids) out += id + " ";
  return out;
}

TEST_F(E2eTest, ModelListsShowEveryModelAndAliasInEachShape) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(configWithBackup(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto const expected = expectedModelIds();

  {  // OpenAI, with and without the /v1 prefix
    HeaderList headers = clientHeaders(Protocol::OpenAiChat);
    auto response = call(gateway->port, "GET", "/v1/models", headers);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    EXPECT_NE(response->header("content-type").find("application/json"), std::string_view::npos);
    auto doc = parseJson(response->body);
    ASSERT_TRUE(doc && doc->is_object()) << response->body;
    EXPECT_EQ(doc->at("object").as_string(), "list");
    std::multiset<std::string> ids;
    for (auto const& m : doc->at("data").as_array()) {
      auto const& o = m.as_object();
      ids.insert(std::string(o.at("id").as_string()));
      EXPECT_EQ(o.at("object").as_string(), "model");
      EXPECT_TRUE(o.at("created").is_number());
      EXPECT_TRUE(o.at("owned_by").is_string());
    }
    EXPECT_EQ(ids, expected) << idsText(ids);
    auto bare = call(gateway->port, "GET", "/models", headers);
    ASSERT_TRUE(bare.ok()) << bare.error().message;
    EXPECT_EQ(bare->status(), 200);
    EXPECT_EQ(bare->body, response->body);
  }
  {  // Anthropic, chosen by the anthropic-version header
    auto response = call(gateway->port, "GET", "/v1/models", clientHeaders(Protocol::Anthropic));
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto doc = parseJson(response->body);
    ASSERT_TRUE(doc && doc->is_object()) << response->body;
    auto const& data = doc->at("data").as_array();
    std::multiset<std::string> ids;
    for (auto const& m : data) {
      auto const& o = m.as_object();
      ids.insert(std::string(o.at("id").as_string()));
      EXPECT_EQ(o.at("type").as_string(), "model");
      EXPECT_TRUE(o.at("display_name").is_string());
      EXPECT_TRUE(o.at("created_at").is_string());
    }
    EXPECT_EQ(ids, expected) << idsText(ids);
    EXPECT_EQ(doc->at("has_more").as_bool(), false);
    ASSERT_FALSE(data.empty());
    EXPECT_EQ(doc->at("first_id"), data.front().at("id"));
    EXPECT_EQ(doc->at("last_id"), data.back().at("id"));
  }
  {  // Gemini
    auto response = call(gateway->port, "GET", "/v1beta/models", clientHeaders(Protocol::Gemini));
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto doc = parseJson(response->body);
    ASSERT_TRUE(doc && doc->is_object()) << response->body;
    std::multiset<std::string> ids;
    for (auto const& m : doc->at("models").as_array()) {
      std::string name(m.at("name").as_string());
      ASSERT_TRUE(name.starts_with("models/")) << name;
      ids.insert(name.substr(7));
      auto const& methods = m.at("supportedGenerationMethods").as_array();
      EXPECT_NE(std::find(methods.begin(), methods.end(), json::value("generateContent")),
                methods.end());
    }
    EXPECT_EQ(ids, expected) << idsText(ids);
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty());
}

TEST_F(E2eTest, ModelListsRequireTheGatewayKey) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  struct Case {
    std::string target;
    Protocol shape;
  };
  for (Case c : {Case{"/v1/models", Protocol::OpenAiChat}, Case{"/v1/models", Protocol::Anthropic},
                 Case{"/v1beta/models", Protocol::Gemini}}) {
    SCOPED_TRACE(c.target + " as " + std::string(protocolName(c.shape)));
    for (std::string key : {std::string(), std::string("sk-wrong-key")}) {
      auto response = call(gateway->port, "GET", c.target, clientHeaders(c.shape, key));
      ASSERT_TRUE(response.ok()) << response.error().message;
      EXPECT_TRUE(isProtocolError(c.shape, 401, *response));
    }
  }
}

TEST_F(E2eTest, AnthropicCountTokensIsForwarded) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::Anthropic);
  std::string shape =
      "{ \"messages\": [{\"role\":\"user\",\"content\":\"Count \\u00e9 me\"}], \"model\": \"@\","
      "\"system\" : \"s\"}";
  for (std::string target : {"/v1/messages/count_tokens", "/messages/count_tokens"}) {
    SCOPED_TRACE(target);
    ASSERT_TRUE(clearJournal(mock->port).ok());
    std::string body = shape;
    body.replace(body.find('@'), 1, l.alias);
    std::string expected = shape;
    expected.replace(expected.find('@'), 1, l.alias_target);
    auto response = call(gateway->port, "POST", target, clientHeaders(Protocol::Anthropic), body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto journal = waitForJournal(mock->port, 1);
    ASSERT_TRUE(journal.ok()) << journal.error().message;
    EXPECT_EQ(journal->front().path, "/v1/messages/count_tokens");
    EXPECT_EQ(journal->front().body, expected);
    EXPECT_EQ(journal->front().headers.get("x-api-key"), l.channel_key);
    EXPECT_EQ(response->body, journal->front().response_body);
    auto doc = parseJson(response->body);
    ASSERT_TRUE(doc && doc->is_object()) << response->body;
    EXPECT_TRUE(doc->as_object().contains("input_tokens"));
  }
}

TEST_F(E2eTest, GeminiCountTokensIsForwarded) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& l = lane(Protocol::Gemini);
  std::string body =
      "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":\"Count me \\u00fc\"}]}]}";
  for (auto const& [model, upstream] :
       {std::pair{l.model, l.model}, std::pair{l.alias, l.alias_target}}) {
    SCOPED_TRACE(model);
    ASSERT_TRUE(clearJournal(mock->port).ok());
    auto response = call(gateway->port, "POST", "/v1beta/models/" + model + ":countTokens",
                         clientHeaders(Protocol::Gemini), body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto journal = waitForJournal(mock->port, 1);
    ASSERT_TRUE(journal.ok()) << journal.error().message;
    EXPECT_EQ(journal->front().path, "/v1beta/models/" + upstream + ":countTokens");
    EXPECT_EQ(journal->front().body, body);
    EXPECT_EQ(journal->front().headers.get("x-goog-api-key"), l.channel_key);
    EXPECT_EQ(response->body, journal->front().response_body);
    auto doc = parseJson(response->body);
    ASSERT_TRUE(doc && doc->is_object()) << response->body;
    EXPECT_TRUE(doc->as_object().contains("totalTokens"));
  }
}

TEST_F(E2eTest, HealthAndReadinessAnswerWithoutAKey) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (std::string target : {"/healthz", "/readyz"}) {
    SCOPED_TRACE(target);
    auto response = call(gateway->port, "GET", target);
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 200) << response->body;
    EXPECT_TRUE(parseJson(response->body).has_value()) << response->body;
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_TRUE(journal->empty());
}

/// The value of the sample `series` (name and labels as written) in a Prometheus text body.
std::optional<double> sampleValue(std::string_view text, std::string_view series) {
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    std::string_view line = text.substr(at, end == std::string_view::npos ? end : end - at);
    if (line.size() > series.size() && line.starts_with(series) && line[series.size()] == ' ') {
      return std::stod(std::string(line.substr(series.size() + 1)));
    }
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return std::nullopt;
}

TEST_F(E2eTest, MetricsCountRequestsByRouteProtocolStatusAndChannel) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  Lane const& chat = lane(Protocol::OpenAiChat);
  Lane const& anthropic = lane(Protocol::Anthropic);
  for (int i = 0; i < 2; ++i) {
    auto r =
        call(gateway->port, "POST", "/v1/chat/completions", clientHeaders(Protocol::OpenAiChat),
             minimalBody(Protocol::OpenAiChat, chat.alias, false));
    ASSERT_TRUE(r.ok() && r->status() == 200);
  }
  auto streamed = call(gateway->port, "POST", "/v1/messages", clientHeaders(Protocol::Anthropic),
                       minimalBody(Protocol::Anthropic, anthropic.model, true));
  ASSERT_TRUE(streamed.ok() && streamed->status() == 200);
  auto missing = call(gateway->port, "POST", generationTarget(Protocol::Gemini, "nope", false),
                      clientHeaders(Protocol::Gemini), minimalBody(Protocol::Gemini, "", false));
  ASSERT_TRUE(missing.ok() && missing->status() == 404);

  std::vector<std::pair<std::string, double>> expected = {
      {"llmux_requests_total{route=\"/v1/chat/completions\",protocol=\"openai-chat\","
       "status=\"200\",channel=\"chat-main\"}",
       2},
      {"llmux_requests_total{route=\"/v1/messages\",protocol=\"anthropic\",status=\"200\","
       "channel=\"anthropic-main\"}",
       1},
      {"llmux_requests_total{route=\"/v1beta/models/{model}:generateContent\",protocol=\"gemini\","
       "status=\"404\",channel=\"\"}",
       1},
      {"llmux_upstream_attempts_total{channel=\"chat-main\",outcome=\"ok\"}", 2},
      {"llmux_upstream_attempts_total{channel=\"anthropic-main\",outcome=\"ok\"}", 1},
  };
  // Requests are counted once answered: poll briefly for the last one to be accounted.
  std::string text;
  auto deadline = MonoClock::now() + Millis(3'000);
  for (;;) {
    auto metrics = call(gateway->port, "GET", "/metrics");
    ASSERT_TRUE(metrics.ok()) << metrics.error().message;
    ASSERT_EQ(metrics->status(), 200);
    EXPECT_NE(metrics->header("content-type").find("text/plain"), std::string_view::npos);
    text = metrics->body;
    bool all = true;
    for (auto const& [series, value] : expected) all = all && sampleValue(text, series) == value;
    if (all || MonoClock::now() > deadline) break;
    std::this_thread::sleep_for(Millis(20));
  }
  for (auto const& [series, value] : expected) {
    EXPECT_EQ(sampleValue(text, series), std::optional<double>(value)) << series << "\n" << text;
  }
  EXPECT_NE(text.find("# TYPE llmux_requests_total counter"), std::string::npos);
  EXPECT_TRUE(holdsNoSecret("/metrics", text, allSecrets()));
}

TEST_F(E2eTest, EveryRouteAnswersWithoutItsVersionPrefix) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(laneConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  struct Case {
    Protocol protocol;
    std::string target;
    std::string upstream_path;
  };
  std::vector<Case> cases = {
      {Protocol::OpenAiChat, "/chat/completions", "/v1/chat/completions"},
      {Protocol::OpenAiResponses, "/responses", "/v1/responses"},
      {Protocol::Anthropic, "/messages", "/v1/messages"},
      {Protocol::Gemini, "/models/gemini-2.5-flash:generateContent",
       "/v1beta/models/gemini-2.5-flash:generateContent"},
      {Protocol::Gemini, "/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
       "/v1beta/models/gemini-2.5-flash:streamGenerateContent"},
  };
  for (auto const& c : cases) {
    SCOPED_TRACE(c.target);
    ASSERT_TRUE(clearJournal(mock->port).ok());
    std::string body = minimalBody(c.protocol, lane(c.protocol).model, false);
    auto response = call(gateway->port, "POST", c.target, clientHeaders(c.protocol), body);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto journal = waitForJournal(mock->port, 1);
    ASSERT_TRUE(journal.ok()) << journal.error().message;
    EXPECT_EQ(journal->front().path, c.upstream_path);
    EXPECT_EQ(journal->front().body, body);
    EXPECT_EQ(response->body, journal->front().response_body);
  }
}

}  // namespace
}  // namespace llmux::e2e

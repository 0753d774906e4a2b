// A protocol row's own `chat_path` (docs/configuration.md#chat_path-and-models_path): a provider
// serving a protocol on a path of its own (Zhipu's /api/paas/v4/chat/completions, Volcengine
// Ark's /api/v3/..., a Vertex-style Gemini path) gets every request there, passthrough and
// translated, with the base URL's own path not put in front of it. The upstream is a
// RecordingUpstream that answers only on the configured paths, so a request anywhere else fails.
#include <gtest/gtest.h>

#include <array>

#include "e2e/scenarios/provider_answers.h"
#include "e2e/support/e2e_test.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

/// One channel per protocol, each on a path of its own.
struct PathLane {
  Protocol protocol;
  std::string channel;
  std::string model;
  std::string chat_path;  ///< as configured
  std::string extra_yaml;
};

constexpr char kVertexKey[] = "vertex-up-key-4c1e";

std::array<PathLane, 4> const& pathLanes() {
  static std::array<PathLane, 4> const kLanes = {{
      {Protocol::OpenAiChat, "zhipu", "glm-4.6", "/api/paas/v4/chat/completions", ""},
      {Protocol::OpenAiResponses, "ark", "doubao-seed-1-6", "/api/v3/responses", ""},
      {Protocol::Anthropic, "anthropic-relay", "claude-relay", "/api/anthropic/v1/messages", ""},
      {Protocol::Gemini, "vertex", "gemini-vertex",
       "/v1/projects/p1/locations/us-central1/publishers/google/models/{model}",
       "auth: query:key\n"},
  }};
  return kLanes;
}

PathLane const& pathLane(Protocol protocol) {
  for (PathLane const& lane : pathLanes()) {
    if (lane.protocol == protocol) return lane;
  }
  return pathLanes().front();
}

/// Where a generation request for `lane` must arrive (Gemini: the model and the method in it,
/// and the channel key in the query).
std::string expectedTarget(PathLane const& lane, bool stream) {
  if (lane.protocol != Protocol::Gemini) return lane.chat_path;
  std::string path = lane.chat_path.substr(0, lane.chat_path.find('{')) + lane.model;
  if (!stream) return path + ":generateContent?key=" + kVertexKey;
  return path + ":streamGenerateContent?alt=sse&key=" + kVertexKey;
}

/// "POST /path?query HTTP/1.1" -> "/path?query".
std::string targetOf(RecordedRequest const& request) {
  std::string_view line = request.request_line;
  auto start = line.find(' ') + 1;
  return std::string(line.substr(start, line.rfind(' ') - start));
}

std::string pathOf(RecordedRequest const& request) {
  std::string target = targetOf(request);
  return target.substr(0, target.find('?'));
}

/// A provider's answer when the request came on a configured path; 404 anywhere else.
std::string answerOnConfiguredPaths(RecordedRequest const& request) {
  std::string const path = pathOf(request);
  if (path.ends_with(":streamGenerateContent")) {
    std::string const event =
        "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"hi\"}]},"
        "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":3,"
        "\"candidatesTokenCount\":1,\"totalTokenCount\":4}}\r\n\r\n";
    return "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: " +
           std::to_string(event.size()) + "\r\n\r\n" + event;
  }
  if (path == pathLane(Protocol::Anthropic).chat_path + "/count_tokens") {
    return RecordingUpstream::jsonResponse(R"({"input_tokens":3})");
  }
  for (PathLane const& lane : pathLanes()) {
    std::string const expected = expectedTarget(lane, false);
    if (path == expected.substr(0, expected.find('?'))) return providerAnswerIn(lane.protocol);
  }
  return RecordingUpstream::jsonResponse(R"({"error":"not a configured path"})", 404);
}

/// Every lane on `upstream`, its base URL with a path that must not be used.
GatewayConfig pathConfig(RecordingUpstream const& upstream) {
  GatewayConfig config;
  config.gateway_keys = {{std::string(kGatewayKeyName), std::string(kGatewayKey)}};
  for (PathLane const& lane : pathLanes()) {
    ChannelSpec channel;
    channel.name = lane.channel;
    channel.protocol = lane.protocol;
    channel.base_url = upstream.baseUrl() + "/not-prepended";
    channel.keys = {lane.protocol == Protocol::Gemini ? kVertexKey : "sk-up-" + lane.channel};
    channel.models = {lane.model};
    channel.extra_yaml = "chat_path: " + yamlQuote(lane.chat_path) + "\n" + lane.extra_yaml;
    config.channels.push_back(std::move(channel));
  }
  return config;
}

/// Sends a generation request for `model` in `client` protocol; the upstream request it caused.
Result<RecordedRequest> generate(std::uint16_t port, RecordingUpstream const& upstream,
                                 Protocol client, std::string const& model, bool stream,
                                 Response* answer) {
  std::size_t before = upstream.requests().size();
  auto response = call(port, "POST", generationTarget(client, model, stream), clientHeaders(client),
                       minimalBody(client, model, stream));
  if (!response) return response.takeError();
  *answer = std::move(*response);
  auto requests = upstream.requests();
  if (requests.size() != before + 1) {
    return makeError(ErrorKind::Internal, "expected one upstream request, got " +
                                              std::to_string(requests.size() - before));
  }
  return requests.back();
}

TEST_F(E2eTest, PassthroughArrivesOnTheRowsChatPath) {
  RecordingUpstream upstream(answerOnConfiguredPaths);
  auto gateway = startGateway(pathConfig(upstream));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (PathLane const& lane : pathLanes()) {
    Response answer;
    auto request = generate(gateway->port, upstream, lane.protocol, lane.model, false, &answer);
    ASSERT_TRUE(request.ok()) << lane.channel << ": " << request.error().message;
    EXPECT_EQ(targetOf(*request), expectedTarget(lane, false)) << lane.channel;
    EXPECT_EQ(answer.status(), 200) << lane.channel << ": " << answer.body;
  }
  // Anthropic's token count goes next to its messages path.
  std::string const body = minimalBody(Protocol::Anthropic, "claude-relay", false);
  auto count = call(gateway->port, "POST", "/v1/messages/count_tokens",
                    clientHeaders(Protocol::Anthropic), body);
  ASSERT_TRUE(count.ok()) << count.error().message;
  EXPECT_EQ(count->status(), 200) << count->body;
  EXPECT_EQ(targetOf(upstream.requests().back()), "/api/anthropic/v1/messages/count_tokens");
}

TEST_F(E2eTest, GeminiStreamsGoToTheRowsChatPathWithTheStreamMethod) {
  RecordingUpstream upstream(answerOnConfiguredPaths);
  auto gateway = startGateway(pathConfig(upstream));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  PathLane const& vertex = pathLane(Protocol::Gemini);
  for (Protocol client : {Protocol::Gemini, Protocol::OpenAiChat}) {  // passthrough, translated
    Response answer;
    auto request = generate(gateway->port, upstream, client, vertex.model, true, &answer);
    ASSERT_TRUE(request.ok()) << protocolName(client) << ": " << request.error().message;
    EXPECT_EQ(targetOf(*request), expectedTarget(vertex, true)) << protocolName(client);
    EXPECT_EQ(answer.status(), 200) << protocolName(client) << ": " << answer.body;
    EXPECT_NE(answer.body.find("hi"), std::string::npos) << answer.body;
  }
}

TEST_F(E2eTest, TranslatedRequestsArriveOnTheServingRowsChatPath) {
  RecordingUpstream upstream(answerOnConfiguredPaths);
  auto gateway = startGateway(pathConfig(upstream));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto const& lanes = pathLanes();
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    PathLane const& serving = lanes[i];
    Protocol client = lanes[(i + 1) % lanes.size()].protocol;  // another protocol: translated
    Response answer;
    auto request = generate(gateway->port, upstream, client, serving.model, false, &answer);
    ASSERT_TRUE(request.ok()) << serving.channel << ": " << request.error().message;
    EXPECT_EQ(targetOf(*request), expectedTarget(serving, false))
        << protocolName(client) << " client on " << serving.channel;
    EXPECT_EQ(answer.status(), 200) << serving.channel << ": " << answer.body;
    EXPECT_NE(answer.body.find("hi"), std::string::npos) << "translated back: " << answer.body;
  }
}

}  // namespace
}  // namespace llmux::e2e

#include "protocol/upstream_path.h"

#include <gtest/gtest.h>

#include "protocol/percent_encoding.h"

namespace llmux::protocol {
namespace {

Route route(std::string_view method, std::string_view path) {
  return matchRoute(method, path).route;
}

TEST(UpstreamPath, StandardPathsBehindAnyPrefix) {
  struct Case {
    std::string_view prefix;
    std::string_view client_path;
    std::string_view expected;
  };
  Case const cases[] = {
      {"", "/chat/completions", "/v1/chat/completions"},
      {"/", "/v1/chat/completions", "/v1/chat/completions"},
      {"/v1", "/v1/chat/completions", "/v1/chat/completions"},
      {"/v1/", "/v1/responses", "/v1/responses"},
      {"/relay/v1", "/v1/chat/completions", "/relay/v1/chat/completions"},
      {"/relay", "/chat/completions", "/relay/v1/chat/completions"},
      {"/openai/apiv1", "/responses", "/openai/apiv1/v1/responses"},
      {"", "/v1/messages", "/v1/messages"},
      {"/anthropic", "/messages/count_tokens", "/anthropic/v1/messages/count_tokens"},
      {"/api/v1", "/v1/messages/count_tokens", "/api/v1/messages/count_tokens"},
  };
  for (auto const& c : cases) {
    EXPECT_EQ(upstreamPath(c.prefix, route("POST", c.client_path), "ignored"), c.expected)
        << c.prefix << " + " << c.client_path;
  }
}

TEST(UpstreamPath, GeminiPutsTheUpstreamModelInThePath) {
  Route stream = route("POST", "/v1beta/models/client-name:streamGenerateContent");
  Route unary = route("POST", "/models/client-name:generateContent");
  EXPECT_EQ(upstreamPath("", stream, "gemini-2.5-flash"),
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent");
  EXPECT_EQ(upstreamPath("", unary, "gemini-2.5-flash"),
            "/v1beta/models/gemini-2.5-flash:generateContent");
  EXPECT_EQ(upstreamPath("/v1beta", unary, "g"), "/v1beta/models/g:generateContent");
  EXPECT_EQ(upstreamPath("/proxy/v1beta/", unary, "g"), "/proxy/v1beta/models/g:generateContent");
  EXPECT_EQ(upstreamPath("/v1", unary, "g"), "/v1/models/g:generateContent");  // v1 is kept
  EXPECT_EQ(upstreamPath("/google", stream, "g"), "/google/v1beta/models/g:streamGenerateContent");
  // A configured "models/" prefix is not doubled; other reserved bytes are encoded.
  EXPECT_EQ(upstreamPath("", unary, "models/gemini-pro"),
            "/v1beta/models/gemini-pro:generateContent");
  EXPECT_EQ(upstreamPath("", unary, "tuned model:v1/x"),
            "/v1beta/models/tuned%20model%3Av1%2Fx:generateContent");
  Route count = route("POST", "/v1beta/models/client-name:countTokens");
  EXPECT_EQ(upstreamPath("/v1beta", count, "gemini-2.5-pro"),
            "/v1beta/models/gemini-2.5-pro:countTokens");
}

TEST(UpstreamPath, RoutesThatAreNeverForwardedGiveNothing) {
  EXPECT_EQ(upstreamPath("/v1", route("GET", "/v1/models"), "m"), "");
  EXPECT_EQ(upstreamPath("", route("GET", "/healthz"), "m"), "");
}

TEST(UpstreamPath, ARowsChatPathIsUsedAsWrittenWithoutThePrefix) {
  RowPaths zhipu{.prefix = "/ignored", .chat = "/api/paas/v4/chat/completions"};
  EXPECT_EQ(upstreamPath(zhipu, route("POST", "/v1/chat/completions"), "glm-4.6"),
            "/api/paas/v4/chat/completions");
  RowPaths ark{.prefix = "/api/v3", .chat = "/api/v3/responses"};
  EXPECT_EQ(upstreamPath(ark, route("POST", "/v1/responses"), "m"), "/api/v3/responses");
  RowPaths anthropic{.prefix = "", .chat = "/api/anthropic/v1/messages"};
  EXPECT_EQ(upstreamPath(anthropic, route("POST", "/v1/messages"), "m"),
            "/api/anthropic/v1/messages");
  EXPECT_EQ(upstreamPath(anthropic, route("POST", "/v1/messages/count_tokens"), "m"),
            "/api/anthropic/v1/messages/count_tokens");
}

TEST(UpstreamPath, AGeminiChatPathGetsTheModelAndTheMethod) {
  RowPaths vertex{.prefix = "/ignored",
                  .chat = "/v1/projects/p1/locations/us-central1/publishers/google/models/{model}"};
  std::string const root = "/v1/projects/p1/locations/us-central1/publishers/google/models/";
  Route const unary = route("POST", "/v1beta/models/x:generateContent");
  EXPECT_EQ(upstreamPath(vertex, unary, "gemini-2.5-pro"), root + "gemini-2.5-pro:generateContent");
  EXPECT_EQ(upstreamPath(vertex, route("POST", "/v1beta/models/x:streamGenerateContent"), "g"),
            root + "g:streamGenerateContent");
  EXPECT_EQ(upstreamPath(vertex, route("POST", "/v1beta/models/x:countTokens"), "g"),
            root + "g:countTokens");
  EXPECT_EQ(upstreamPath(vertex, unary, "models/a b"), root + "a%20b:generateContent")
      << "the model is one encoded segment, as on the standard path";
}

TEST(UpstreamPath, ModelListsStandardOrTheRowsOwn) {
  EXPECT_EQ(modelsPath(Protocol::OpenAiChat, {}), "/v1/models");
  EXPECT_EQ(modelsPath(Protocol::OpenAiResponses, {.prefix = "/relay/v1/"}), "/relay/v1/models");
  EXPECT_EQ(modelsPath(Protocol::Anthropic, {.prefix = "/anthropic"}), "/anthropic/v1/models");
  EXPECT_EQ(modelsPath(Protocol::Gemini, {}), "/v1beta/models");
  EXPECT_EQ(modelsPath(Protocol::Gemini, {.prefix = "/google/v1"}), "/google/v1/models");
  EXPECT_EQ(modelsPath(Protocol::OpenAiChat, {.prefix = "/x", .models = "/api/paas/v4/models"}),
            "/api/paas/v4/models");
}

TEST(UpstreamPath, ChatPathTemplatesAsAnOperatorReadsThem) {
  EXPECT_EQ(chatPathTemplate(Protocol::OpenAiChat, {.prefix = "/relay"}),
            "/relay/v1/chat/completions");
  EXPECT_EQ(chatPathTemplate(Protocol::Anthropic, {.chat = "/api/anthropic/v1/messages"}),
            "/api/anthropic/v1/messages");
  EXPECT_EQ(chatPathTemplate(Protocol::Gemini, {}), "/v1beta/models/{model}:generateContent");
  EXPECT_EQ(chatPathTemplate(Protocol::Gemini, {.chat = "/g/models/{model}"}),
            "/g/models/{model}:generateContent");
}

TEST(PercentEncoding, RoundTripsAndRejectsMalformedEscapes) {
  EXPECT_EQ(percentEncodeSegment("aZ09-._~"), "aZ09-._~");
  EXPECT_EQ(percentEncodeSegment("a b/c:d%\xC3\xA9"), "a%20b%2Fc%3Ad%25%C3%A9");
  for (std::string_view s : {"", "plain", "with space", "sl/ash", "\xFF\x00 bytes", "100%"}) {
    auto decoded = percentDecode(percentEncodeSegment(s));
    ASSERT_TRUE(decoded) << s;
    EXPECT_EQ(*decoded, s);
  }
  EXPECT_EQ(percentDecode("a%2fb%2Fc+d"), "a/b/c+d");
  EXPECT_FALSE(percentDecode("%"));
  EXPECT_FALSE(percentDecode("abc%4"));
  EXPECT_FALSE(percentDecode("%G0"));
}

}  // namespace
}  // namespace llmux::protocol

namespace llmux::protocol {
namespace {

TEST(UpstreamPath, MediaRoutesGoToTheirStandardPathOrTheConfiguredOne) {
  auto at = [](std::string_view prefix, std::string_view media, std::string_view method,
               std::string_view path) {
    return upstreamPath(RowPaths{.prefix = prefix, .media = media}, matchRoute(method, path).route, "m");
  };
  EXPECT_EQ(at("", "", "POST", "/images/generations"), "/v1/images/generations");
  EXPECT_EQ(at("/relay/v1", "", "POST", "/v1/images/edits"), "/relay/v1/images/edits");
  EXPECT_EQ(at("/relay", "", "POST", "/v1/audio/speech"), "/relay/v1/audio/speech");
  EXPECT_EQ(at("", "", "POST", "/v1/audio/transcriptions"), "/v1/audio/transcriptions");
  EXPECT_EQ(at("", "", "POST", "/v1/embeddings"), "/v1/embeddings");
  EXPECT_EQ(at("", "", "POST", "/v1/videos"), "/v1/videos");
  EXPECT_EQ(at("", "", "GET", "/v1/videos/video_9"), "/v1/videos/video_9");
  EXPECT_EQ(at("/x", "", "GET", "/v1/videos/video_9/content"), "/x/v1/videos/video_9/content");
  // A configured path is used as written, without the prefix; jobs live below it.
  EXPECT_EQ(at("/relay", "/api/v3/images/generations", "POST", "/v1/images/generations"),
            "/api/v3/images/generations");
  EXPECT_EQ(at("/relay", "/api/v3/videos/", "GET", "/v1/videos/video_9/content"),
            "/api/v3/videos/video_9/content");
  EXPECT_EQ(at("", "/api/v3/videos", "POST", "/v1/videos"), "/api/v3/videos");
}

}  // namespace
}  // namespace llmux::protocol

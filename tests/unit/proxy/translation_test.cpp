#include "proxy/translation.h"

#include <gtest/gtest.h>

namespace llmux::proxy {
namespace {

TEST(Translation, TargetRoutesAreTheProtocolsGenerationEndpoints) {
  EXPECT_EQ(targetRoute(Protocol::OpenAiChat, "m", false).kind, protocol::RouteKind::ChatCompletions);
  EXPECT_EQ(targetRoute(Protocol::OpenAiResponses, "m", true).kind, protocol::RouteKind::Responses);
  EXPECT_EQ(targetRoute(Protocol::Anthropic, "m", true).kind, protocol::RouteKind::Messages);
  auto gemini = targetRoute(Protocol::Gemini, "gemini-2.5-pro", true);
  EXPECT_EQ(gemini.kind, protocol::RouteKind::GeminiGenerate);
  EXPECT_EQ(gemini.gemini_model, "gemini-2.5-pro");
  EXPECT_TRUE(gemini.gemini_stream);
}

TEST(Translation, OnlyAStreamedGeminiRequestGetsAQuery) {
  EXPECT_EQ(translatedQuery(Protocol::Gemini, true), "alt=sse");
  EXPECT_EQ(translatedQuery(Protocol::Gemini, false), "");
  EXPECT_EQ(translatedQuery(Protocol::Anthropic, true), "");
}

}  // namespace
}  // namespace llmux::proxy

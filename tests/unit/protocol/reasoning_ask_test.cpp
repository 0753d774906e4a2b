// What each protocol's request asks of the model's reasoning, read during inspection.
#include "protocol/reasoning_ask.h"

#include <gtest/gtest.h>

#include "protocol/inspect.h"

namespace llmux::protocol {
namespace {

using Mode = ReasoningAsk::Mode;

ReasoningAsk askOf(std::string_view path, std::string_view body) {
  RouteLookup lookup = matchRoute("POST", path);
  EXPECT_EQ(lookup.match, RouteMatch::Found) << path;
  auto profile = inspectRequest(lookup.route, body);
  EXPECT_TRUE(profile.ok()) << (profile.ok() ? "" : profile.error().message);
  return profile.ok() ? profile->reasoning : ReasoningAsk{};
}

ReasoningAsk chat(std::string_view fields) {
  return askOf("/v1/chat/completions",
               std::string(R"({"model":"o3","messages":[{"role":"user","content":"hi"}])") +
                   std::string(fields) + "}");
}
ReasoningAsk responses(std::string_view fields) {
  return askOf("/v1/responses",
               std::string(R"({"model":"o3","input":"hi")") + std::string(fields) + "}");
}
ReasoningAsk anthropic(std::string_view fields) {
  return askOf("/v1/messages", std::string(R"({"model":"claude","max_tokens":4096,"messages":[])") +
                                   std::string(fields) + "}");
}
ReasoningAsk gemini(std::string_view generation_config) {
  return askOf(
      "/v1beta/models/gemini-2.5-pro:streamGenerateContent",
      std::string(R"({"contents":[],"generationConfig":)") + std::string(generation_config) + "}");
}

TEST(ReasoningAsk, NothingAskedIsUnstated) {
  EXPECT_EQ(chat(""), ReasoningAsk{});
  EXPECT_EQ(responses(""), ReasoningAsk{});
  EXPECT_EQ(anthropic(""), ReasoningAsk{});
  EXPECT_EQ(gemini(R"({"temperature":0.2})"), ReasoningAsk{});
  EXPECT_EQ(responses(R"(,"reasoning":null)"), ReasoningAsk{});
  // A member of another protocol means nothing here.
  EXPECT_EQ(chat(R"(,"thinking":{"type":"enabled","budget_tokens":4096})"), ReasoningAsk{});
  EXPECT_EQ(anthropic(R"(,"reasoning_effort":"high")"), ReasoningAsk{});
}

TEST(ReasoningAsk, OpenAiChatReasoningEffort) {
  EXPECT_EQ(chat(R"(,"reasoning_effort":"low")"), (ReasoningAsk{Mode::On, "low", {}}));
  EXPECT_EQ(chat(R"(,"reasoning_effort":"xhigh")"), (ReasoningAsk{Mode::On, "xhigh", {}}));
  EXPECT_EQ(chat(R"(,"reasoning_effort":"none")"), (ReasoningAsk{Mode::Off, "", {}}));
  EXPECT_EQ(chat(R"(,"reasoning_effort":null)"), ReasoningAsk{});
}

TEST(ReasoningAsk, OpenAiResponsesReasoningObject) {
  EXPECT_EQ(responses(R"(,"reasoning":{"effort":"medium","summary":"auto"})"),
            (ReasoningAsk{Mode::On, "medium", {}}));
  EXPECT_EQ(responses(R"(,"reasoning":{"summary":"auto"})"), (ReasoningAsk{Mode::On, "", {}}))
      << "reasoning without an effort: the model's default effort";
  EXPECT_EQ(responses(R"(,"reasoning":{"effort":"none"})"), (ReasoningAsk{Mode::Off, "", {}}));
}

TEST(ReasoningAsk, AnthropicThinkingAndOutputConfigEffort) {
  EXPECT_EQ(anthropic(R"(,"thinking":{"type":"enabled","budget_tokens":10000})"),
            (ReasoningAsk{Mode::On, "", 10000}));
  EXPECT_EQ(anthropic(R"(,"thinking":{"type":"adaptive"})"), (ReasoningAsk{Mode::On, "", {}}));
  EXPECT_EQ(anthropic(R"(,"thinking":{"type":"adaptive"},"output_config":{"effort":"high"})"),
            (ReasoningAsk{Mode::On, "high", {}}));
  EXPECT_EQ(anthropic(R"(,"output_config":{"effort":"low"},"thinking":{"type":"adaptive"})"),
            (ReasoningAsk{Mode::On, "low", {}}))
      << "in either order";
  EXPECT_EQ(anthropic(R"(,"thinking":{"type":"disabled"})"), (ReasoningAsk{Mode::Off, "", {}}));
  EXPECT_EQ(anthropic(R"(,"output_config":{"effort":"high"})").mode, Mode::Unstated)
      << "an effort without thinking";
}

TEST(ReasoningAsk, GeminiThinkingConfig) {
  EXPECT_EQ(gemini(R"({"thinkingConfig":{"thinkingBudget":8192}})"),
            (ReasoningAsk{Mode::On, "", 8192}));
  EXPECT_EQ(gemini(R"({"thinkingConfig":{"thinkingBudget":-1}})"), (ReasoningAsk{Mode::On, "", {}}))
      << "dynamic: the model decides";
  EXPECT_EQ(gemini(R"({"thinkingConfig":{"thinkingBudget":0,"includeThoughts":true}})"),
            (ReasoningAsk{Mode::Off, "", {}}));
  EXPECT_EQ(gemini(R"({"thinkingConfig":{"thinkingLevel":"high"}})"),
            (ReasoningAsk{Mode::On, "high", {}}));
  EXPECT_EQ(gemini(R"({"thinkingConfig":{"includeThoughts":true}})"),
            (ReasoningAsk{Mode::On, "", {}}));
  EXPECT_EQ(gemini(R"({"thinkingConfig":{"includeThoughts":false}})"), ReasoningAsk{});
  EXPECT_EQ(
      askOf("/v1beta/models/g:generateContent",
            R"({"contents":[],"generation_config":{"thinking_config":{"thinking_budget":1024}}})"),
      (ReasoningAsk{Mode::On, "", 1024}))
      << "the snake_case spelling Google also accepts";
}

TEST(ReasoningAsk, MalformedValuesAskNothing) {
  EXPECT_EQ(chat(R"(,"reasoning_effort":3)"), ReasoningAsk{});
  EXPECT_EQ(responses(R"(,"reasoning":"high")"), ReasoningAsk{});
  EXPECT_EQ(anthropic(R"(,"thinking":{"type":"enabled","budget_tokens":"lots"})"),
            (ReasoningAsk{Mode::On, "", {}}));
  EXPECT_EQ(gemini(R"({"thinkingConfig":[1,2]})"), ReasoningAsk{});
}

}  // namespace
}  // namespace llmux::protocol

// What a request needs from its model: tools, images and the prompt size estimate, per protocol.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "protocol/request_needs.h"
#include "test_data.h"

namespace llmux::protocol {
namespace {

TEST(RequestNeeds, PlainChatNeedsNothingButItsSize) {
  std::string body = R"({"model":"m","messages":[{"role":"user","content":"hello there"}]})";
  auto needs = needsOf(Protocol::OpenAiChat, body);
  EXPECT_FALSE(needs.tools);
  EXPECT_FALSE(needs.vision);
  EXPECT_EQ(needs.prompt_tokens, static_cast<std::int64_t>(body.size() / 4));
}

TEST(RequestNeeds, ToolsMustBeANonEmptyArray) {
  EXPECT_TRUE(needsOf(Protocol::OpenAiChat,
                      R"({"messages":[],"tools":[{"type":"function","function":{"name":"f"}}]})")
                  .tools);
  EXPECT_FALSE(needsOf(Protocol::OpenAiChat, R"({"messages":[],"tools":[ ]})").tools);
  EXPECT_FALSE(needsOf(Protocol::OpenAiChat, R"({"messages":[],"tools":null})").tools);
  EXPECT_TRUE(needsOf(Protocol::OpenAiResponses, R"({"input":"x","tools":[{"type":"function","name":"f"}]})")
                  .tools);
  EXPECT_TRUE(needsOf(Protocol::Anthropic, R"({"messages":[],"tools":[{"name":"f","input_schema":{}}]})")
                  .tools);
  // A tool mentioned only inside a message is not an offer.
  EXPECT_FALSE(needsOf(Protocol::Anthropic,
                       R"({"messages":[{"role":"user","content":"\"tools\":[1]"}]})").tools);
}

TEST(RequestNeeds, GeminiToolsNeedFunctionDeclarations) {
  EXPECT_TRUE(needsOf(Protocol::Gemini,
                      R"({"contents":[],"tools":[{"functionDeclarations":[{"name":"f"}]}]})").tools);
  EXPECT_TRUE(needsOf(Protocol::Gemini,
                      R"({"contents":[],"tools":[{"googleSearch":{}},{"function_declarations":[{"name":"f"}]}]})")
                  .tools);
  EXPECT_FALSE(needsOf(Protocol::Gemini, R"({"contents":[],"tools":[{"googleSearch":{}}]})").tools);
  EXPECT_FALSE(needsOf(Protocol::Gemini, R"({"contents":[],"tools":[{"functionDeclarations":[]}]})").tools);
}

TEST(RequestNeeds, ChatImageParts) {
  std::string body = R"({"messages":[{"role":"user","content":[{"type":"text","text":"what is it"},)"
                     R"({"type":"image_url","image_url":{"url":"https://x.example/a.png"}}]}]})";
  EXPECT_TRUE(needsOf(Protocol::OpenAiChat, body).vision);
  // The word in text is not an image.
  EXPECT_FALSE(needsOf(Protocol::OpenAiChat,
                       R"({"messages":[{"role":"user","content":"{\"type\":\"image_url\"}"}]})")
                   .vision);
}

TEST(RequestNeeds, ResponsesInputImage) {
  EXPECT_TRUE(needsOf(Protocol::OpenAiResponses,
                      R"({"input":[{"role":"user","content":[{"type":"input_image","image_url":"https://x/a.png"}]}]})")
                  .vision);
  EXPECT_FALSE(needsOf(Protocol::OpenAiResponses, R"({"input":"describe an image"})").vision);
}

TEST(RequestNeeds, AnthropicImageBlocksAnywhereInMessages) {
  EXPECT_TRUE(needsOf(Protocol::Anthropic,
                      R"({"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://x/a.png"}}]}]})")
                  .vision);
  // Inside a tool result.
  EXPECT_TRUE(needsOf(Protocol::Anthropic,
                      R"({"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t",)"
                      R"("content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]}]}]})")
                  .vision);
  // An image type in a tool's schema does not count: tools are not the conversation.
  EXPECT_FALSE(needsOf(Protocol::Anthropic,
                       R"({"messages":[],"tools":[{"name":"f","input_schema":{"type":"image"}}]})")
                   .vision);
}

TEST(RequestNeeds, GeminiInlineAndFileData) {
  EXPECT_TRUE(needsOf(Protocol::Gemini,
                      R"({"contents":[{"role":"user","parts":[{"inlineData":{"mimeType":"image/jpeg","data":"AAAA"}}]}]})")
                  .vision);
  EXPECT_TRUE(needsOf(Protocol::Gemini,
                      R"({"contents":[{"parts":[{"file_data":{"mime_type":"image/png","file_uri":"gs://b/a"}}]}]})")
                  .vision);
  // Audio or PDF data is not vision.
  EXPECT_FALSE(needsOf(Protocol::Gemini,
                       R"({"contents":[{"parts":[{"inlineData":{"mimeType":"audio/wav","data":"AAAA"}}]}]})")
                   .vision);
  EXPECT_FALSE(needsOf(Protocol::Gemini,
                       R"({"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"responseMimeType":"image/png"}})")
                   .vision);
}

TEST(RequestNeeds, Base64DataIsNotCountedAsPrompt) {
  std::string const blob(40'000, 'A');
  std::string const head = R"({"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":")";
  std::string const tail = R"("}}]}]})";
  std::string body = head + blob + tail;
  auto needs = needsOf(Protocol::Anthropic, body);
  EXPECT_TRUE(needs.vision);
  EXPECT_EQ(needs.prompt_tokens, static_cast<std::int64_t>((head.size() + tail.size()) / 4));

  std::string uri_body = R"({"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,)" +
                         blob + R"("}}]}]})";
  EXPECT_LT(needsOf(Protocol::OpenAiChat, uri_body).prompt_tokens, 100);
}

TEST(RequestNeeds, NotJsonGetsOnlyTheSize) {
  auto needs = needsOf(Protocol::OpenAiChat, "not json at all, 36 bytes long......");
  EXPECT_FALSE(needs.tools);
  EXPECT_FALSE(needs.vision);
  EXPECT_EQ(needs.prompt_tokens, 9);
  EXPECT_EQ(needsOf(Protocol::Anthropic, "").prompt_tokens, 0);
}

TEST(RequestNeeds, EscapedQuotesDoNotConfuseTheWalk) {
  std::string body = R"({"messages":[{"role":"user","content":[{"type":"text","text":"a \"quoted\\\" \\"},)"
                     R"({"type":"image_url","image_url":{"url":"https://x/a.png"}}]}]})";
  EXPECT_TRUE(needsOf(Protocol::OpenAiChat, body).vision);
}

/// The body of a captured client request (tests/data/protocol/clients).
std::string capturedBody(std::string const& name) {
  auto capture = boost::json::parse(test::readFile(test::dataDir() / "clients" / name));
  auto const& body = capture.as_object().at("body");
  return body.is_string() ? std::string(body.as_string()) : boost::json::serialize(body);
}

TEST(RequestNeeds, RealClientsOfferTools) {
  auto claude = needsOf(Protocol::Anthropic, capturedBody("claude-cli.request.json"));
  EXPECT_TRUE(claude.tools);
  EXPECT_FALSE(claude.vision);
  EXPECT_GT(claude.prompt_tokens, 1000);
  EXPECT_TRUE(needsOf(Protocol::OpenAiResponses, capturedBody("codex-cli.request.json")).tools);
  EXPECT_TRUE(needsOf(Protocol::Gemini, capturedBody("gemini-cli.request.json")).tools);
}

}  // namespace
}  // namespace llmux::protocol

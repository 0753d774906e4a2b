// Provider file ids, audio and video across protocols (translate/media.h and the request
// encoders): what a target cannot take is left out and named, never sent to cause a 400.
#include "translate/media.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "translate/codec.h"

namespace llmux::translate {
namespace {

namespace json = boost::json;

bool named(std::vector<std::string> const& dropped, std::string_view name) {
  return std::find(dropped.begin(), dropped.end(), name) != dropped.end();
}

Request fromGemini(std::string_view parts) {
  auto r = decodeRequest(
      Protocol::Gemini,
      R"({"contents":[{"role":"user","parts":[{"text":"listen"},)" + std::string(parts) + "]}]}",
      "gemini-2.5-pro", false);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message);
  return r.ok() ? std::move(*r) : Request{};
}

EncodedRequest encoded(Protocol target, Request const& r) {
  auto body = encodeRequestReporting(target, r, "model");
  EXPECT_TRUE(body.ok()) << (body.ok() ? "" : body.error().message);
  return body.ok() ? std::move(*body) : EncodedRequest{};
}

TEST(Media, FileIdsOnlyGoWhereTheirProviderIs) {
  Block chat_file{
      .type = BlockType::Document, .file_id = "file-abc", .file_origin = Protocol::OpenAiChat};
  EXPECT_TRUE(fileIdUsable(chat_file, Protocol::OpenAiChat));
  EXPECT_TRUE(fileIdUsable(chat_file, Protocol::OpenAiResponses)) << "one OpenAI Files API";
  EXPECT_FALSE(fileIdUsable(chat_file, Protocol::Anthropic));
  EXPECT_FALSE(fileIdUsable(chat_file, Protocol::Gemini));
  Block unknown{.type = BlockType::Image, .file_id = "file-abc"};
  EXPECT_FALSE(fileIdUsable(unknown, Protocol::OpenAiResponses)) << "no origin, no trust";
}

TEST(Media, AGeminiFileUriIsNotSentToOpenAiAsAFileId) {
  Request r = fromGemini(R"({"fileData":{"mimeType":"image/png","fileUri":"files/abc123"}})");
  ASSERT_EQ(r.messages.at(0).blocks.at(1).file_origin, Protocol::Gemini);
  for (Protocol target : {Protocol::OpenAiResponses, Protocol::OpenAiChat, Protocol::Anthropic}) {
    EncodedRequest out = encoded(target, r);
    EXPECT_EQ(out.body.find("files/abc123"), std::string::npos) << out.body;
    EXPECT_TRUE(named(out.dropped, "file_id")) << protocolName(target);
  }
}

TEST(Media, OpenAiFileIdsCrossBetweenChatAndResponses) {
  auto chat = decodeRequest(Protocol::OpenAiChat,
                            R"({"model":"m","messages":[{"role":"user","content":[
                                {"type":"text","text":"sum up"},
                                {"type":"file","file":{"file_id":"file-pdf1"}}]}]})",
                            "", false);
  ASSERT_TRUE(chat.ok());
  EncodedRequest responses = encoded(Protocol::OpenAiResponses, *chat);
  EXPECT_EQ(json::serialize(json::parse(responses.body).at("input").at(0).at("content").at(1)),
            R"({"type":"input_file","file_id":"file-pdf1"})");

  auto from_responses = decodeRequest(Protocol::OpenAiResponses,
                                      R"({"model":"m","input":[{"role":"user","content":[
                                          {"type":"input_file","file_id":"file-pdf2"},
                                          {"type":"input_image","file_id":"file-img"}]}]})",
                                      "", false);
  ASSERT_TRUE(from_responses.ok());
  EncodedRequest to_chat = encoded(Protocol::OpenAiChat, *from_responses);
  json::array content = json::parse(to_chat.body).at("messages").at(0).at("content").as_array();
  ASSERT_EQ(content.size(), 1u) << to_chat.body;
  EXPECT_EQ(json::serialize(content[0]), R"({"type":"file","file":{"file_id":"file-pdf2"}})");
  EXPECT_TRUE(named(to_chat.dropped, "file_id")) << "Chat takes images by URL only";
}

TEST(Media, GeminiAudioBecomesChatInputAudioAndIsDroppedWhereThereIsNoPart) {
  Request r = fromGemini(
      R"({"inlineData":{"mimeType":"audio/wav","data":"UklGRiQA"}},)"
      R"({"inlineData":{"mimeType":"audio/mp3","data":"SUQzBAAA"}},)"
      R"({"inlineData":{"mimeType":"audio/ogg","data":"T2dnUwAC"}},)"
      R"({"inlineData":{"mimeType":"video/mp4","data":"AAAAIGZ0"}},)"
      R"({"fileData":{"mimeType":"video/mp4","fileUri":"https://example.com/clip.mp4"}})");
  ASSERT_EQ(r.messages.at(0).blocks.size(), 6u);

  EncodedRequest chat = encoded(Protocol::OpenAiChat, r);
  json::array content = json::parse(chat.body).at("messages").at(0).at("content").as_array();
  ASSERT_EQ(content.size(), 3u) << chat.body;
  EXPECT_EQ(json::serialize(content[1]),
            R"({"type":"input_audio","input_audio":{"data":"UklGRiQA","format":"wav"}})");
  EXPECT_EQ(json::serialize(content[2]),
            R"({"type":"input_audio","input_audio":{"data":"SUQzBAAA","format":"mp3"}})");
  EXPECT_TRUE(named(chat.dropped, "audio")) << "Chat takes WAV and MP3 only";
  EXPECT_TRUE(named(chat.dropped, "video"));

  for (Protocol target : {Protocol::OpenAiResponses, Protocol::Anthropic}) {
    EncodedRequest out = encoded(target, r);
    EXPECT_EQ(out.body.find("audio/"), std::string::npos) << out.body;
    EXPECT_EQ(out.body.find("video/"), std::string::npos) << out.body;
    EXPECT_EQ(out.body.find("clip.mp4"), std::string::npos) << out.body;
    EXPECT_TRUE(named(out.dropped, "audio")) << protocolName(target);
    EXPECT_TRUE(named(out.dropped, "video")) << protocolName(target);
  }

  // Gemini takes them all.
  EncodedRequest gemini = encoded(Protocol::Gemini, r);
  EXPECT_EQ(json::parse(gemini.body).at("contents").at(0).at("parts").as_array().size(), 6u);
  EXPECT_TRUE(gemini.dropped.empty());
}

TEST(Media, AudioInAToolResultDoesNotReachAnthropic) {
  Request r;
  r.messages = {
      Message{Role::User, {Block{.type = BlockType::Text, .text = "q"}}},
      Message{Role::Assistant,
              {Block{.type = BlockType::ToolCall, .id = "t1", .name = "rec", .arguments = "{}"}}}};
  Block answer{.type = BlockType::ToolResult, .id = "t1", .name = "rec"};
  answer.content = {Block{.type = BlockType::Text, .text = "recorded"},
                    Block{.type = BlockType::Document, .media_type = "audio/wav", .data = "UklG"}};
  r.messages.push_back(Message{Role::User, {answer}});
  EncodedRequest out = encoded(Protocol::Anthropic, r);
  EXPECT_EQ(out.body.find("audio/wav"), std::string::npos) << out.body;
  EXPECT_TRUE(named(out.dropped, "tool_result.content"));
}

}  // namespace
}  // namespace llmux::translate

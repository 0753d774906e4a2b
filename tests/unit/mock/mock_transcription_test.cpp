// POST …/v1/audio/transcriptions: every response format, streaming, and the refusals.
#include <gtest/gtest.h>

#include "conformance_support.h"
#include "media_test_support.h"
#include "mock/audio_bytes.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::errorOf;
using testing::FormField;
using testing::formPost;
using testing::jsonOf;

/// Two seconds of WAV, as a recorder would upload it.
std::string twoSecondWav() {
  return fakeAudio(AudioFormat::Wav, 2000, 7);
}

MockReply transcribe(MockProvider& mock, std::string model, std::vector<FormField> extra = {},
                     std::string file = twoSecondWav()) {
  std::vector<FormField> fields = {{"file", std::move(file), "speech.wav", "audio/wav"},
                                   {"model", std::move(model), "", ""}};
  for (auto& field : extra) fields.push_back(std::move(field));
  return mock.handle(formPost("/v1/audio/transcriptions", fields));
}

TEST(MockTranscription, JsonWithDurationUsageForWhisper) {
  MockProvider mock;
  MockReply reply = transcribe(mock, "whisper-1");
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value body = jsonOf(reply);
  std::string text(body.at("text").as_string());
  EXPECT_FALSE(text.empty());
  EXPECT_TRUE(text.back() == '.');
  EXPECT_EQ(body.at("usage").at("type"), "duration");
  EXPECT_EQ(body.at("usage").at("seconds"), 2);  // read from the WAV header
  // Deterministic, and another file gets another transcript.
  EXPECT_EQ(transcribe(mock, "whisper-1").body(), reply.body());
  json::value other =
      jsonOf(transcribe(mock, "whisper-1", {}, fakeAudio(AudioFormat::Wav, 2000, 8)));
  EXPECT_NE(other.at("text"), body.at("text"));
}

TEST(MockTranscription, JsonWithTokenUsageForGpt4oModels) {
  MockProvider mock;
  json::value body =
      jsonOf(transcribe(mock, "gpt-4o-transcribe", {{"prompt", "Names: Ada, Linus.", "", ""}}));
  json::value const& usage = body.at("usage");
  EXPECT_EQ(usage.at("type"), "tokens");
  EXPECT_EQ(usage.at("input_token_details").at("audio_tokens"), 20);  // 10 a second
  EXPECT_EQ(usage.at("input_token_details").at("text_tokens"), 5);    // 18 bytes / 4 + 1
  EXPECT_EQ(usage.at("input_tokens"), 25);
  EXPECT_EQ(usage.at("total_tokens").as_int64(), 25 + usage.at("output_tokens").as_int64());
}

TEST(MockTranscription, TextSrtAndVtt) {
  MockProvider mock;
  std::string text(jsonOf(transcribe(mock, "whisper-1")).at("text").as_string());
  MockReply plain = transcribe(mock, "whisper-1", {{"response_format", "text", "", ""}});
  EXPECT_EQ(plain.headers.get("content-type"), "text/plain; charset=utf-8");
  EXPECT_EQ(plain.body(), text + "\n");
  std::string srt = transcribe(mock, "whisper-1", {{"response_format", "srt", "", ""}}).body();
  EXPECT_TRUE(srt.starts_with("1\n00:00:00,000 --> 00:00:")) << srt;
  EXPECT_NE(srt.find(" --> 00:00:02,000\n"), std::string::npos) << srt;
  std::string vtt = transcribe(mock, "whisper-1", {{"response_format", "vtt", "", ""}}).body();
  EXPECT_TRUE(vtt.starts_with("WEBVTT\n\n00:00:00.000 --> 00:00:")) << vtt;
  EXPECT_TRUE(transcribe(mock, "gpt-4o-mini-transcribe", {{"response_format", "text", "", ""}})
                  .body()
                  .ends_with(".\n"));
}

TEST(MockTranscription, VerboseJsonWithWordsAndSegments) {
  MockProvider mock;
  json::value body = jsonOf(transcribe(mock, "whisper-1",
                                       {{"response_format", "verbose_json", "", ""},
                                        {"timestamp_granularities[]", "word", "", ""},
                                        {"timestamp_granularities[]", "segment", "", ""},
                                        {"language", "fr", "", ""}}));
  EXPECT_EQ(body.at("task"), "transcribe");
  EXPECT_EQ(body.at("language"), "french");
  EXPECT_EQ(body.at("duration"), 2.0);
  auto const& words = body.at("words").as_array();
  ASSERT_FALSE(words.empty());
  EXPECT_EQ(words.front().at("start"), 0.0);
  EXPECT_EQ(words.back().at("end"), 2.0);
  auto const& segments = body.at("segments").as_array();
  ASSERT_FALSE(segments.empty());
  EXPECT_EQ(segments[0].at("id"), 0);
  EXPECT_TRUE(segments[0].at("text").as_string().starts_with(" "));
  EXPECT_FALSE(segments[0].at("tokens").as_array().empty());
  json::value words_only = jsonOf(transcribe(mock, "whisper-1",
                                             {{"response_format", "verbose_json", "", ""},
                                              {"timestamp_granularities[]", "word", "", ""}}));
  EXPECT_FALSE(words_only.as_object().contains("segments"));
}

TEST(MockTranscription, DiarizedJsonForDiarizeModels) {
  MockProvider mock;
  json::value body = jsonOf(transcribe(mock, "gpt-4o-transcribe-diarize",
                                       {{"response_format", "diarized_json", "", ""}}));
  auto const& segment = body.at("segments").at(0);
  EXPECT_EQ(segment.at("type"), "transcript.text.segment");
  EXPECT_EQ(segment.at("speaker"), "A");
  EXPECT_EQ(body.at("usage").at("type"), "tokens");
}

TEST(MockTranscription, StreamsDeltasThenDone) {
  MockProvider mock;
  MockReply reply = transcribe(mock, "gpt-4o-mini-transcribe", {{"stream", "true", "", ""}});
  EXPECT_TRUE(reply.streaming);
  auto events = testing::parseSse(reply.body());
  ASSERT_GE(events.size(), 3u);
  std::string joined;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    EXPECT_EQ(events[i].json.at("type"), "transcript.text.delta");
    joined += events[i].json.at("delta").as_string();
  }
  EXPECT_EQ(events.back().json.at("type"), "transcript.text.done");
  EXPECT_EQ(events.back().json.at("text"), joined.c_str());
  EXPECT_EQ(events.back().json.at("usage").at("type"), "tokens");
  // whisper-1 does not stream: the API ignores `stream` for it.
  EXPECT_FALSE(transcribe(mock, "whisper-1", {{"stream", "true", "", ""}}).streaming);
}

TEST(MockTranscription, AnyFileCountsAs128Kbits) {
  MockProvider mock;
  json::value body = jsonOf(transcribe(mock, "whisper-1", {}, std::string(48000, 'm')));
  EXPECT_EQ(body.at("usage").at("seconds"), 3);
}

TEST(MockTranscription, AMultiMegabyteUploadIsRead) {
  MockProvider mock;
  std::string big(5u << 20, '\0');
  for (std::size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i >> 12);
  MockReply reply = transcribe(mock, "whisper-1", {}, big);
  ASSERT_EQ(reply.status, 200) << reply.body().substr(0, 200);
  EXPECT_EQ(jsonOf(reply).at("usage").at("seconds"), 328);  // 5 MiB at 16000 bytes a second
}

TEST(MockTranscription, Refusals) {
  MockProvider mock;
  MockReply no_file =
      mock.handle(formPost("/v1/audio/transcriptions", {{"model", "whisper-1", "", ""}}));
  EXPECT_EQ(no_file.status, 400);
  EXPECT_EQ(errorOf(no_file)["message"], "Missing required parameter: 'file'.");
  MockReply text_file = mock.handle(formPost(
      "/v1/audio/transcriptions", {{"file", "abc", "", ""}, {"model", "whisper-1", "", ""}}));
  EXPECT_EQ(errorOf(text_file)["message"],
            "Invalid type for 'file': expected a file, but got a string instead.");
  MockReply no_model = mock.handle(
      formPost("/v1/audio/transcriptions", {{"file", twoSecondWav(), "a.wav", "audio/wav"}}));
  EXPECT_EQ(errorOf(no_model)["message"], "Missing required parameter: 'model'.");
  MockReply srt = transcribe(mock, "gpt-4o-transcribe", {{"response_format", "srt", "", ""}});
  EXPECT_EQ(srt.status, 400);
  EXPECT_EQ(errorOf(srt)["message"],
            "response_format 'srt' is not compatible with model 'gpt-4o-transcribe'.");
  EXPECT_EQ(errorOf(srt)["param"], "response_format");
  EXPECT_EQ(errorOf(transcribe(mock, "whisper-1",
                               {{"response_format", "diarized_json", "", ""}}))["code"],
            "unsupported_value");
  EXPECT_EQ(errorOf(transcribe(mock, "whisper-1", {{"response_format", "mp3", "", ""}}))["code"],
            "invalid_value");
  MockReply empty = transcribe(mock, "whisper-1", {}, "");
  EXPECT_EQ(errorOf(empty)["message"], "Audio file might be corrupted or unsupported");
  EXPECT_EQ(errorOf(transcribe(mock, "whisper-1", {{"temperature", "2", "", ""}}))["code"],
            "decimal_above_max_value");
  EXPECT_EQ(errorOf(transcribe(mock, "whisper-1", {{"temperature", "warm", "", ""}}))["code"],
            "invalid_type");
  EXPECT_EQ(errorOf(transcribe(mock, "whisper-1", {{"stream", "yes", "", ""}}))["code"],
            "invalid_type");
  EXPECT_EQ(errorOf(transcribe(mock, "whisper-1",
                               {{"timestamp_granularities[]", "line", "", ""}}))["code"],
            "invalid_value");
  MockReply json_body =
      mock.handle(testing::jsonPost("/v1/audio/transcriptions", R"({"model":"whisper-1"})"));
  EXPECT_EQ(errorOf(json_body)["code"], "unsupported_content_type");
}

}  // namespace
}  // namespace llmux::mock

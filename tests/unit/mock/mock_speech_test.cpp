// POST …/v1/audio/speech: audio of each format, streamed in chunks, and the speech refusals.
#include <gtest/gtest.h>

#include "conformance_support.h"
#include "media_test_support.h"
#include "mock/checksums.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::errorOf;
using testing::jsonPost;
using testing::readBe;
using testing::readLe;

MockReply speak(MockProvider& mock, std::string extra, std::string input = "Hello there") {
  return mock.handle(jsonPost("/v1/audio/speech", R"({"model":"gpt-4o-mini-tts","voice":"alloy",)" +
                                                      extra + R"("input":")" + input + "\"}"));
}

TEST(MockSpeech, Mp3ByDefaultInSeveralChunks) {
  MockProvider mock;
  MockReply reply = speak(mock, "");
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_EQ(reply.headers.get("content-type"), "audio/mpeg");
  EXPECT_TRUE(reply.streaming);  // chunked, as the API streams audio
  EXPECT_GE(reply.chunks.size(), 3u);
  std::string audio = reply.body();
  ASSERT_FALSE(audio.empty());
  ASSERT_EQ(audio.size() % 144, 0u);
  for (std::size_t at = 0; at < audio.size(); at += 144) {
    ASSERT_EQ(audio.substr(at, 4), std::string("\xFF\xFB\x18\xC4", 4)) << at;
  }
  EXPECT_EQ(speak(mock, "").body(), audio);  // deterministic
}

TEST(MockSpeech, WavIsAValidRiffFileWhoseLengthFollowsInputAndSpeed) {
  MockProvider mock;
  std::string wav = speak(mock, R"("response_format":"wav",)").body();
  ASSERT_GE(wav.size(), 44u);
  EXPECT_EQ(wav.substr(0, 4), "RIFF");
  EXPECT_EQ(readLe(wav, 4, 4), wav.size() - 8);
  EXPECT_EQ(wav.substr(8, 8), "WAVEfmt ");
  EXPECT_EQ(readLe(wav, 20, 2), 1u);      // PCM
  EXPECT_EQ(readLe(wav, 22, 2), 1u);      // mono
  EXPECT_EQ(readLe(wav, 24, 4), 24000u);  // sample rate
  EXPECT_EQ(readLe(wav, 34, 2), 16u);     // bits
  EXPECT_EQ(wav.substr(36, 4), "data");
  EXPECT_EQ(readLe(wav, 40, 4), wav.size() - 44);
  // 200 ms + 15 ms x 11 characters at 48 bytes a millisecond; twice as fast, half as long.
  EXPECT_EQ(wav.size() - 44, 365u * 48);
  std::string fast = speak(mock, R"("response_format":"wav","speed":2,)").body();
  EXPECT_EQ(fast.size() - 44, 182u * 48);  // 182.5 ms, in whole milliseconds
  std::string pcm = speak(mock, R"("response_format":"pcm",)").body();
  EXPECT_EQ(pcm, wav.substr(44));  // the same samples without the header
  EXPECT_EQ(speak(mock, R"("response_format":"pcm",)").headers.get("content-type"), "audio/pcm");
}

TEST(MockSpeech, OpusIsOggWithValidPages) {
  MockProvider mock;
  MockReply reply = speak(mock, R"("response_format":"opus",)");
  EXPECT_EQ(reply.headers.get("content-type"), "audio/opus");
  std::string ogg = reply.body();
  int pages = 0;
  for (std::size_t at = 0; at < ogg.size(); ++pages) {
    ASSERT_EQ(ogg.substr(at, 4), "OggS") << at;
    std::size_t segments = static_cast<unsigned char>(ogg.at(at + 26));
    std::size_t length = 27 + segments;
    for (std::size_t i = 0; i < segments; ++i)
      length += static_cast<unsigned char>(ogg.at(at + 27 + i));
    std::string page = ogg.substr(at, length);
    auto crc = static_cast<std::uint32_t>(readLe(page, 22, 4));
    page.replace(22, 4, std::string(4, '\0'));
    EXPECT_EQ(crc, oggCrc32(page)) << "page " << pages;
    if (pages == 0) {
      EXPECT_EQ(page.substr(28, 8), "OpusHead");
    } else if (pages == 1) {
      EXPECT_EQ(page.substr(28, 8), "OpusTags");
    }
    at += length;
  }
  EXPECT_GE(pages, 3);
}

TEST(MockSpeech, FlacAndAacFrames) {
  MockProvider mock;
  MockReply flac = speak(mock, R"("response_format":"flac",)");
  EXPECT_EQ(flac.headers.get("content-type"), "audio/flac");
  std::string f = flac.body();
  EXPECT_EQ(f.substr(0, 4), "fLaC");
  EXPECT_EQ(static_cast<unsigned char>(f[4]), 0x80);  // the last (only) block: STREAMINFO
  EXPECT_EQ(readBe(f, 18, 8) >> 44, 24000u);
  // Frames follow, each 11 bytes: 4 header bytes, the frame number, CRC-8, subframe, CRC-16.
  std::string frame = f.substr(42, 11);
  EXPECT_EQ(frame.substr(0, 4), std::string("\xFF\xF8\xC7\x08", 4));
  EXPECT_EQ(static_cast<unsigned char>(frame[5]), flacCrc8(frame.substr(0, 5)));
  EXPECT_EQ(readBe(frame, 9, 2), flacCrc16(frame.substr(0, 9)));
  EXPECT_EQ((f.size() - 42) % 11, 0u);

  MockReply aac = speak(mock, R"("response_format":"aac",)");
  EXPECT_EQ(aac.headers.get("content-type"), "audio/aac");
  std::string a = aac.body();
  ASSERT_EQ(a.size() % 11, 0u);
  EXPECT_EQ(a.substr(0, 2), std::string("\xFF\xF1", 2));
  EXPECT_EQ((readBe(a, 3, 3) >> 5) & 0x1FFF, 11u);  // ADTS frame length
}

TEST(MockChecksums, MatchTheirCheckValues) {
  std::string_view check = "123456789";
  EXPECT_EQ(crc32(check), 0xCBF43926u);
  EXPECT_EQ(oggCrc32(check), 0x89A1897Fu);
  EXPECT_EQ(flacCrc8(check), 0xF4u);
  EXPECT_EQ(flacCrc16(check), 0xFEE8u);
  EXPECT_EQ(adler32("Wikipedia"), 0x11E60398u);
}

TEST(MockSpeech, SseCarriesTheSameAudioInDeltaEvents) {
  MockProvider mock;
  std::string audio = speak(mock, R"("response_format":"wav",)").body();
  MockReply reply = speak(mock, R"("response_format":"wav","stream_format":"sse",)");
  EXPECT_TRUE(reply.headers.get("content-type").starts_with("text/event-stream"));
  auto events = testing::parseSse(reply.body());
  ASSERT_GE(events.size(), 2u);
  std::string joined;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    EXPECT_EQ(events[i].json.at("type"), "speech.audio.delta");
    joined += testing::decodeBase64(events[i].json.at("audio").as_string());
  }
  EXPECT_EQ(joined, audio);
  json::value const& done = events.back().json;
  EXPECT_EQ(done.at("type"), "speech.audio.done");
  EXPECT_EQ(done.at("usage").at("total_tokens").as_int64(),
            done.at("usage").at("input_tokens").as_int64() +
                done.at("usage").at("output_tokens").as_int64());
}

TEST(MockSpeech, CustomVoiceObject) {
  MockProvider mock;
  MockReply reply = mock.handle(jsonPost(
      "/v1/audio/speech", R"({"model":"tts-1","input":"Hi","voice":{"id":"voice_1234"}})"));
  EXPECT_EQ(reply.status, 200) << reply.body();
}

TEST(MockSpeech, ChunkPacingAndStreamFaultsKeepTheBytesAudio) {
  MockProvider mock;
  MockRequest paced =
      jsonPost("/v1/audio/speech", R"({"model":"tts-1","input":"Hello there","voice":"alloy"})");
  paced.headers.add("x-mock-chunk-delay", "40");
  MockReply reply = mock.handle(paced);
  for (auto const& chunk : reply.chunks) EXPECT_EQ(chunk.delay, 40ms);

  MockRequest slow = paced;
  slow.headers.set("x-mock-fault", "slow-first-token=300, keep-alive=100, stall=50");
  slow.headers.remove("x-mock-chunk-delay");
  MockReply stalled = mock.handle(slow);
  ASSERT_EQ(stalled.chunks.size(), 1u);  // no keep-alive fits in audio: the head chunk only
  EXPECT_EQ(stalled.chunks[0].delay, 300ms);
  EXPECT_EQ(stalled.ending, MockEnding::Stall);
  EXPECT_EQ(stalled.chunks[0].bytes.substr(0, 2), std::string("\xFF\xFB", 2));
}

TEST(MockSpeech, Refusals) {
  MockProvider mock;
  struct Case {
    std::string body;
    std::string message;
  };
  for (Case const& c : std::initializer_list<Case>{
           {R"({"model":"tts-1","input":"x"})", "Missing required parameter: 'voice'."},
           {R"({"model":"tts-1","voice":"alloy"})", "Missing required parameter: 'input'."},
           {R"({"input":"x","voice":"alloy"})", "Missing required parameter: 'model'."},
           {R"({"model":"tts-1","voice":"alloy","input":")" + std::string(4097, 'a') + "\"}",
            "Invalid 'input': string too long. Expected a string with maximum length 4096, but "
            "got a string with length 4097 instead."},
           {R"({"model":"tts-1","voice":"alloy","input":"x","speed":5})",
            "Invalid 'speed': decimal above maximum value. Expected a value <= 4, but got 5 "
            "instead."},
           {R"({"model":"tts-1","voice":"alloy","input":"x","speed":0.1})",
            "Invalid 'speed': decimal below minimum value. Expected a value >= 0.25, but got 0.1 "
            "instead."},
           {R"({"model":"tts-1","voice":"alloy","input":"x","response_format":"ogg"})",
            "Invalid value: 'ogg'. Supported values are: 'mp3', 'opus', 'aac', 'flac', 'wav', "
            "and 'pcm'."},
       }) {
    MockReply reply = mock.handle(jsonPost("/v1/audio/speech", c.body));
    EXPECT_EQ(reply.status, 400) << c.body.substr(0, 60);
    EXPECT_EQ(errorOf(reply)["message"], c.message.c_str()) << c.body.substr(0, 60);
  }
}

}  // namespace
}  // namespace llmux::mock

// Arbitrary and damaged input: the Gemini decoders never crash, never emit events out of order,
// always end a stream with exactly one MessageStop or Error, and hold bounded memory.
#include <gtest/gtest.h>

#include <random>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"

namespace llmux::translate::gemini {
namespace {

using testing::dumpEvents;
using testing::randomSplits;
using testing::readGeminiFixture;
using testing::sseFromChunkLines;

void expectOneEnding(std::vector<Event> const& events, std::string const& what) {
  ASSERT_FALSE(events.empty()) << what;
  int endings = 0;
  int open = -1;
  for (auto const& e : events) {
    if (e.type == EventType::MessageStop || e.type == EventType::Error) ++endings;
    if (e.type == EventType::BlockStart) {
      EXPECT_EQ(open, -1) << what << "\n" << dumpEvents(events);
      open = e.index;
    }
    if (e.type == EventType::BlockStop) open = -1;
  }
  EXPECT_EQ(endings, 1) << what << "\n" << dumpEvents(events);
  EXPECT_TRUE(events.back().type == EventType::MessageStop || events.back().type == EventType::Error)
      << what;
}

std::vector<std::string> seeds() {
  return {readGeminiFixture("pydantic-ai--sse_thoughts.response.sse"),
          readGeminiFixture("pydantic-ai--sse_function_call_thought_signature.i0.response.sse"),
          readGeminiFixture("llm-gemini--stream_json_array_function_call.i0.response.json"),
          sseFromChunkLines(readGeminiFixture("vercel-ai--google-stream-tool-call-arguments.chunks.txt"))};
}

TEST(GeminiRobustness, DamagedStreamsEndCleanly) {
  std::mt19937 rng(7);
  auto bodies = seeds();
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    for (int round = 0; round < 200; ++round) {
      std::string damaged = bodies[b];
      int edits = 1 + round % 5;
      for (int i = 0; i < edits && !damaged.empty(); ++i) {
        std::size_t at = rng() % damaged.size();
        switch ((round + i) % 3) {
          case 0: damaged[at] = static_cast<char>(rng() & 0xFF); break;
          case 1: damaged.erase(at, 1 + rng() % 8); break;
          default: damaged.resize(at); break;
        }
      }
      auto events = testing::decodeGeminiStream(damaged, randomSplits(round, 97));
      expectOneEnding(events, "seed " + std::to_string(b) + " round " + std::to_string(round));
    }
  }
}

TEST(GeminiRobustness, RandomBytes) {
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {
    std::string bytes(rng() % 400, '\0');
    for (auto& c : bytes) c = static_cast<char>(rng() & 0xFF);
    if (round % 3 == 0) bytes = "data: " + bytes;
    if (round % 3 == 1) bytes = "[" + bytes;
    auto events = testing::decodeGeminiStream(bytes, randomSplits(round, 13));
    expectOneEnding(events, "round " + std::to_string(round));
  }
}

TEST(GeminiRobustness, DamagedBodiesAreRejectedNotCrashed) {
  std::mt19937 rng(5);
  std::vector<std::string> bodies = {
      readGeminiFixture("pydantic-ai--sse_function_call_thought_signature.i1.request.json"),
      readGeminiFixture("pydantic-ai--thoughts_nonstream.response.json")};
  int accepted = 0;
  for (int round = 0; round < 300; ++round) {
    std::string damaged = bodies[round % 2];
    std::uniform_int_distribution<std::size_t> at(0, damaged.size() - 1);
    damaged[at(rng)] = "{}[]\":,0a\\"[rng() % 11];
    auto request = decodeRequest(damaged, "gemini-3-pro-preview", false);
    if (request.ok()) {
      ++accepted;
      auto encoded = encodeRequest(*request, "gemini-3-pro-preview");
      if (!encoded.ok()) {
        EXPECT_EQ(encoded.error().kind, ErrorKind::InvalidRequest);
      }
    } else {
      EXPECT_EQ(request.error().kind, ErrorKind::InvalidRequest);
    }
    auto response = decodeResponse(damaged);
    if (response.ok()) (void)encodeResponse(*response, EncodeOptions{});
  }
  EXPECT_GT(accepted, 0) << "some damage leaves a valid request (a changed letter in a text)";
}

TEST(GeminiRobustness, DeepNestingIsRefused) {
  std::string deep = "data: " + std::string(5000, '[') + "\r\n\r\n";
  auto events = testing::decodeGeminiStream(deep);
  expectOneEnding(events, "deep SSE");
  EXPECT_EQ(events.back().type, EventType::Error);
  auto array = testing::decodeGeminiStream("[{\"a\":" + std::string(5000, '[') + "]");
  expectOneEnding(array, "deep array");
  EXPECT_FALSE(decodeRequest("{\"contents\":" + std::string(5000, '['), "m", false).ok());
}

}  // namespace
}  // namespace llmux::translate::gemini

// Fault injection (x-mock-fault, fault-* models, x-mock-chunk-delay) and determinism.
#include "mock/mock_faults.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "conformance_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::join;
using testing::kindSequence;
using testing::makeRequest;
using testing::parseJson;
using testing::parseSse;

std::string chatBody(std::string_view model = "gpt-4o", bool stream = false) {
  return std::string(R"({"model":")") + std::string(model) + R"(","stream":)" +
         (stream ? "true" : "false") +
         R"(,"messages":[{"role":"user","content":"Tell me a story"}]})";
}

std::string anthropicBody(std::string_view model = "claude-sonnet-4-5", bool stream = true) {
  return std::string(R"({"model":")") + std::string(model) + R"(","max_tokens":256,"stream":)" +
         (stream ? "true" : "false") +
         R"(,"messages":[{"role":"user","content":"Tell me a story"}]})";
}

MockRequest chat(std::string_view fault, bool stream = false) {
  MockRequest request =
      makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", chatBody("gpt-4o", stream));
  if (!fault.empty()) request.headers.add("x-mock-fault", fault);
  return request;
}

json::value errorOf(MockReply const& reply) {
  return parseJson(reply.body()).at("error");
}

TEST(FaultSpec, Spellings) {
  auto fault = parseFault("429");
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->kind, FaultKind::Status);
  EXPECT_EQ(fault->status, 429);
  EXPECT_EQ(fault->retry_after_s, 1);
  EXPECT_EQ(parseFault("429=7")->retry_after_s, 7);
  EXPECT_EQ(parseFault("529")->status, 529);
  EXPECT_EQ(parseFault("slow-first-byte")->duration, 3000ms);
  EXPECT_EQ(parseFault("slow-first-token=250")->duration, 250ms);
  EXPECT_EQ(parseFault("stall")->duration, 60000ms);
  EXPECT_EQ(parseFault("cut")->kind, FaultKind::Cut);
  EXPECT_EQ(parseFault("context-overflow")->kind, FaultKind::ContextOverflow);
  auto nth = parseFault("fail-nth=3:503@a");
  ASSERT_TRUE(nth);
  EXPECT_EQ(nth->kind, FaultKind::FailNth);
  EXPECT_EQ(nth->nth, 3);
  EXPECT_EQ(nth->status, 503);
  EXPECT_EQ(nth->counter_key, "fail-nth=3:503@a");
  EXPECT_EQ(parseFault("fail-nth=2")->status, 500);
  auto every = parseFault("fail-every=4:429=0@primary");
  ASSERT_TRUE(every);
  EXPECT_EQ(every->kind, FaultKind::FailEvery);
  EXPECT_EQ(every->nth, 4);
  EXPECT_EQ(every->status, 429);
  EXPECT_EQ(every->retry_after_s, 0);
  EXPECT_EQ(every->counter_key, "fail-every=4:429=0@primary");
  EXPECT_EQ(parseFault("fail-every=3")->status, 500);
  EXPECT_EQ(parseFault("fail-every=3:429")->retry_after_s, 1);
  EXPECT_EQ(parseFault("keep-alive=100")->kind, FaultKind::KeepAlive);
  EXPECT_EQ(parseFault("keep-alive=100")->duration, 100ms);
  for (std::string_view bad :
       {"bogus", "500=3", "600", "399", "fail-nth=0", "fail-nth", "fail-nth=2:200",
        "slow-first-token=abc", "cut=1", "fail-every=0", "fail-every", "fail-every=4:cut",
        "fail-every=4:503=2", "keep-alive", "keep-alive=0"}) {
    EXPECT_FALSE(parseFault(bad)) << bad;
  }
}

TEST(FaultInjection, RateLimitWithRetryAfter) {
  MockProvider mock;
  MockReply reply = mock.handle(chat("429=7", true));
  EXPECT_EQ(reply.status, 429);
  EXPECT_FALSE(reply.streaming);  // a real 429 even for a stream request
  EXPECT_EQ(reply.headers.get("retry-after"), "7");
  EXPECT_EQ(reply.headers.get("x-ratelimit-remaining-requests"), "0");
  EXPECT_EQ(errorOf(reply).at("code"), "rate_limit_exceeded");

  MockRequest anthropic = makeRequest(Protocol::Anthropic, "/v1/messages", anthropicBody());
  anthropic.headers.add("x-mock-fault", "429=3");
  reply = mock.handle(anthropic);
  EXPECT_EQ(reply.status, 429);
  EXPECT_EQ(reply.headers.get("retry-after"), "3");
  EXPECT_EQ(errorOf(reply).at("type"), "rate_limit_error");
}

TEST(FaultInjection, ServerErrorsByModelName) {
  MockProvider mock;
  MockReply chat500 =
      mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", chatBody("fault-500")));
  EXPECT_EQ(chat500.status, 500);
  EXPECT_EQ(errorOf(chat500).at("type"), "server_error");

  MockReply overloaded =
      mock.handle(makeRequest(Protocol::Anthropic, "/v1/messages", anthropicBody("fault-529")));
  EXPECT_EQ(overloaded.status, 529);
  EXPECT_EQ(errorOf(overloaded).at("type"), "overloaded_error");
  EXPECT_EQ(errorOf(overloaded).at("message"), "Overloaded");

  MockReply unavailable =
      mock.handle(makeRequest(Protocol::Gemini, "/v1beta/models/fault-503:generateContent",
                              R"({"contents":[{"parts":[{"text":"hi"}]}]})"));
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(errorOf(unavailable).at("status"), "UNAVAILABLE");

  MockReply responses = mock.handle(makeRequest(Protocol::OpenAiResponses, "/v1/responses",
                                                R"({"model":"fault-429","input":"hi"})"));
  EXPECT_EQ(responses.status, 429);
  EXPECT_EQ(responses.headers.get("retry-after"), "1");
}

TEST(FaultInjection, UnknownSpecsAreRefused) {
  MockProvider mock;
  MockReply reply = mock.handle(chat("slow-everything"));
  EXPECT_EQ(reply.status, 400);
  EXPECT_NE(errorOf(reply).at("message").as_string().find("slow-everything"), std::string::npos);
  EXPECT_EQ(
      mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", chatBody("fault-nope")))
          .status,
      400);
}

TEST(FaultInjection, SlowFirstByteDelaysTheHead) {
  MockProvider mock;
  MockReply reply = mock.handle(chat("slow-first-byte=1500", true));
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.head_delay, 1500ms);
  for (auto const& chunk : reply.chunks) EXPECT_EQ(chunk.delay, 0ms);
  // Combined with an error status, the error is slow too.
  MockReply slow_error = mock.handle(chat("slow-first-byte=200, 503"));
  EXPECT_EQ(slow_error.status, 503);
  EXPECT_EQ(slow_error.head_delay, 200ms);
}

TEST(FaultInjection, SlowFirstTokenDelaysOnlyTheFirstContentEvent) {
  MockProvider mock;
  MockRequest request =
      makeRequest(Protocol::Anthropic, "/v1/messages", anthropicBody("fault-slow-first-token"));
  MockReply reply = mock.handle(request);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.head_delay, 0ms);
  std::size_t delayed = 0;
  for (std::size_t i = 0; i < reply.chunks.size(); ++i) {
    if (reply.chunks[i].delay == 0ms) continue;
    ++delayed;
    EXPECT_EQ(reply.chunks[i].delay, 3000ms);
    // message_start, content_block_start and ping go out at once; the first delta waits.
    EXPECT_EQ(testing::kindOf(Protocol::Anthropic, parseSse(reply.chunks[i].bytes).front()),
              "content_block_delta:text_delta");
    EXPECT_EQ(i, 3u);
  }
  EXPECT_EQ(delayed, 1u);

  MockReply whole = mock.handle(chat("slow-first-token=100"));
  EXPECT_EQ(whole.chunks.front().delay, 100ms);
}

TEST(FaultInjection, KeepAlivesFillTheWaitForTheFirstToken) {
  MockProvider mock;
  MockRequest request = makeRequest(Protocol::Anthropic, "/v1/messages", anthropicBody());
  request.headers.add("x-mock-fault", "slow-first-token=1000, keep-alive=300");
  MockReply reply = mock.handle(request);
  ASSERT_EQ(reply.status, 200);
  // message_start, content_block_start, ping at once; three pings 300 ms apart; the first delta
  // 100 ms after the last ping (1000 ms in all).
  ASSERT_GT(reply.chunks.size(), 7u);
  std::vector<std::chrono::milliseconds> delays;
  for (std::size_t i = 0; i < 7; ++i) delays.push_back(reply.chunks[i].delay);
  EXPECT_EQ(delays, (std::vector<std::chrono::milliseconds>{0ms, 0ms, 0ms, 300ms, 300ms, 300ms,
                                                            100ms}));
  for (std::size_t i = 3; i < 6; ++i) {
    EXPECT_EQ(reply.chunks[i].bytes, "event: ping\ndata: {\"type\": \"ping\"}\n\n");
  }
  EXPECT_EQ(testing::kindOf(Protocol::Anthropic, parseSse(reply.chunks[6].bytes).front()),
            "content_block_delta:text_delta");

  // OpenAI: SSE comments after the role chunk; Gemini SSE: comments before the first chunk.
  MockRequest chat_request = chat("slow-first-token=250, keep-alive=100", true);
  MockReply chat_reply = mock.handle(chat_request);
  ASSERT_GT(chat_reply.chunks.size(), 4u);
  EXPECT_EQ(chat_reply.chunks[1].bytes, ": keep-alive\n\n");
  EXPECT_EQ(chat_reply.chunks[1].delay, 100ms);
  EXPECT_EQ(chat_reply.chunks[2].bytes, ": keep-alive\n\n");
  EXPECT_EQ(chat_reply.chunks[3].delay, 50ms);
  EXPECT_EQ(testing::kindOf(Protocol::OpenAiChat, parseSse(chat_reply.chunks[3].bytes).front()),
            "content");
  MockRequest gemini =
      makeRequest(Protocol::Gemini, "/v1beta/models/gemini-2.5-flash:streamGenerateContent",
                  R"({"contents":[{"parts":[{"text":"hi"}]}]})", "alt=sse");
  gemini.headers.add("x-mock-fault", "slow-first-token=200, keep-alive=150");
  MockReply gemini_reply = mock.handle(gemini);
  ASSERT_GT(gemini_reply.chunks.size(), 1u);
  EXPECT_EQ(gemini_reply.chunks[0].bytes, ": keep-alive\r\n\r\n");
  EXPECT_EQ(gemini_reply.chunks[0].delay, 150ms);
  EXPECT_EQ(gemini_reply.chunks[1].delay, 50ms);

  // Without a slow first token, or on a whole body, keep-alive changes nothing.
  EXPECT_EQ(mock.handle(chat("keep-alive=100", true)).body(), mock.handle(chat("", true)).body());
  MockReply whole = mock.handle(chat("slow-first-token=250, keep-alive=100"));
  ASSERT_EQ(whole.chunks.size(), 1u);
  EXPECT_EQ(whole.chunks.front().delay, 250ms);
}

TEST(FaultInjection, StallKeepsTheHeadAndOneEvent) {
  MockProvider mock;
  MockReply reply = mock.handle(chat("stall=5000", true));
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.ending, MockEnding::Stall);
  EXPECT_EQ(reply.stall_for, 5000ms);
  EXPECT_EQ(join(kindSequence(Protocol::OpenAiChat, parseSse(reply.body()))), "role | content");
}

TEST(FaultInjection, CutEndsTheStreamAbruptly) {
  MockProvider mock;
  MockRequest request =
      makeRequest(Protocol::OpenAiResponses, "/v1/responses",
                  R"({"model":"fault-cut","stream":true,"input":"Tell me a story"})");
  MockReply reply = mock.handle(request);
  ASSERT_EQ(reply.status, 200);
  EXPECT_EQ(reply.ending, MockEnding::Cut);
  // The cut comes after the first token, not after the item's opening events.
  EXPECT_EQ(join(kindSequence(Protocol::OpenAiResponses, parseSse(reply.body()))),
            "response.created | response.in_progress | response.output_item.added:message | "
            "response.content_part.added | response.output_text.delta");
}

TEST(FaultInjection, StallOrCutOfAWholeBodySendsHalfOfItChunked) {
  MockProvider mock;
  std::string full = mock.handle(chat("")).body();
  MockReply reply = mock.handle(chat("cut"));
  EXPECT_TRUE(reply.streaming);
  EXPECT_EQ(reply.ending, MockEnding::Cut);
  EXPECT_EQ(reply.body(), full.substr(0, full.size() / 2));
}

TEST(FaultInjection, ContextOverflowInEachProvidersWording) {
  MockProvider mock;
  MockReply chat_reply = mock.handle(chat("context-overflow"));
  EXPECT_EQ(chat_reply.status, 400);
  EXPECT_EQ(errorOf(chat_reply).at("code"), "context_length_exceeded");
  EXPECT_TRUE(errorOf(chat_reply)
                  .at("message")
                  .as_string()
                  .starts_with("This model's maximum context length is 128000 tokens. However, "
                               "your messages resulted in "));

  MockRequest anthropic =
      makeRequest(Protocol::Anthropic, "/v1/messages", anthropicBody("fault-context-overflow"));
  MockReply reply = mock.handle(anthropic);
  EXPECT_EQ(reply.status, 400);
  std::string message(errorOf(reply).at("message").as_string());
  EXPECT_TRUE(message.starts_with("prompt is too long: ")) << message;
  EXPECT_TRUE(message.ends_with(" tokens > 200000 maximum")) << message;
  long long tokens = std::stoll(message.substr(20));
  EXPECT_GT(tokens, 200000);

  MockRequest gemini =
      makeRequest(Protocol::Gemini, "/v1beta/models/fault-context-overflow:streamGenerateContent",
                  R"({"contents":[{"parts":[{"text":"hi"}]}]})", "alt=sse");
  reply = mock.handle(gemini);
  EXPECT_EQ(reply.status, 400);
  EXPECT_TRUE(errorOf(reply).at("message").as_string().starts_with("The input token count ("));
  EXPECT_TRUE(errorOf(reply).at("message").as_string().ends_with(
      ") exceeds the maximum number of tokens allowed (1048576)."));
}

TEST(FaultInjection, FailNthFailsExactlyThatRequest) {
  MockProvider mock;
  std::vector<int> statuses;
  for (int i = 0; i < 5; ++i) statuses.push_back(mock.handle(chat("fail-nth=3")).status);
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 500, 200, 200}));
  // Counters are per spec: another spelling (status, tag) counts on its own.
  EXPECT_EQ(mock.handle(chat("fail-nth=1:429@b")).status, 429);
  EXPECT_EQ(mock.handle(chat("fail-nth=1:429@c")).status, 429);
  EXPECT_EQ(mock.handle(chat("fail-nth=1:429@b")).status, 200);
  // Each provider instance has its own counters.
  MockProvider other;
  EXPECT_EQ(other.handle(chat("fail-nth=1")).status, 500);
}

TEST(FaultInjection, FailEveryFailsAFixedShareOfRequests) {
  MockProvider mock;
  std::vector<int> statuses;
  for (int i = 0; i < 8; ++i) statuses.push_back(mock.handle(chat("fail-every=4:429=0")).status);
  EXPECT_EQ(statuses, (std::vector<int>{200, 200, 200, 429, 200, 200, 200, 429}));
  MockReply limited = mock.handle(chat("fail-every=1:429=0"));
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.headers.get("retry-after"), "0");
  EXPECT_EQ(errorOf(limited).at("code"), "rate_limit_exceeded");
  EXPECT_EQ(mock.handle(chat("fail-every=1")).status, 500);
  // Tags count apart: two channels each see every other request fail.
  std::vector<int> a, b;
  for (int i = 0; i < 4; ++i) {
    a.push_back(mock.handle(chat("fail-every=2:503@a")).status);
    b.push_back(mock.handle(chat("fail-every=2:503@b")).status);
  }
  EXPECT_EQ(a, (std::vector<int>{200, 503, 200, 503}));
  EXPECT_EQ(b, a);
}

TEST(FaultInjection, FailNthCountsExactlyUnderConcurrency) {
  MockProvider mock;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) failures += mock.handle(chat("fail-nth=120")).status == 500;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 1);
}

TEST(FaultInjection, ChunkDelayPacesEveryStreamChunk) {
  MockProvider mock;
  MockRequest request = chat("", true);
  request.headers.add("x-mock-chunk-delay", "40");
  MockReply reply = mock.handle(request);
  ASSERT_GT(reply.chunks.size(), 3u);
  for (auto const& chunk : reply.chunks) EXPECT_EQ(chunk.delay, 40ms);
  request.headers.set("x-mock-chunk-delay", "soon");
  EXPECT_EQ(mock.handle(request).status, 400);
}

TEST(MockDeterminism, SameRequestSameBytes) {
  MockProvider a, b;
  for (bool stream : {false, true}) {
    MockReply first = a.handle(chat("", stream));
    MockReply second = b.handle(chat("", stream));
    EXPECT_EQ(first.body(), second.body());
    ASSERT_EQ(first.headers.size(), second.headers.size());
    for (std::size_t i = 0; i < first.headers.size(); ++i) {
      EXPECT_EQ(first.headers[i].value, second.headers[i].value);
    }
  }
  MockReply other =
      a.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", chatBody("gpt-4o-mini")));
  EXPECT_NE(parseJson(other.body()).at("id"), parseJson(a.handle(chat("")).body()).at("id"));
}

}  // namespace
}  // namespace llmux::mock

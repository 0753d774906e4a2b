// Usage accounting, end to end: what the upstream reported (read here from the mock's journal, in
// its own protocol's conventions) normalised — input includes cache reads and writes, output
// includes reasoning, total = input + output — is what the access log records and what a client
// of another protocol is told, for passthrough and translation, streamed or not.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/sse_reader.h"

namespace llmux::e2e {
namespace {

using namespace failover;
namespace json = boost::json;

struct Tokens {
  std::int64_t input = 0, cache_read = 0, cache_write = 0, output = 0, reasoning = 0;
  bool operator==(Tokens const&) const = default;
};

std::ostream& operator<<(std::ostream& os, Tokens const& t) {
  return os << "{input " << t.input << ", cache_read " << t.cache_read << ", cache_write "
            << t.cache_write << ", output " << t.output << ", reasoning " << t.reasoning << "}";
}

std::int64_t intAt(json::value const* v) { return v && v->is_int64() ? v->as_int64() : 0; }

json::value const* path(json::object const& o, std::initializer_list<std::string_view> keys) {
  json::value const* v = nullptr;
  json::object const* cur = &o;
  for (auto key : keys) {
    if (!cur) return nullptr;
    v = cur->if_contains(key);
    cur = v && v->is_object() ? &v->as_object() : nullptr;
  }
  return v;
}

std::vector<json::object> dataObjects(std::string_view body) {
  std::vector<json::object> out;
  for (auto const& e : sseEventsOf(body)) {
    auto o = parseObject(e.data);
    if (o) out.push_back(std::move(*o));
  }
  return out;
}

/// The upstream's own report, normalised by this test on its own (REFERENCE.md §8).
Tokens upstreamTokens(Protocol upstream, std::string const& body, bool stream) {
  std::vector<json::object> docs;
  if (stream) {
    docs = dataObjects(body);
  } else if (auto o = parseObject(body)) {
    docs.push_back(std::move(*o));
  }
  Tokens t;
  for (auto const& d : docs) {
    switch (upstream) {
      case Protocol::OpenAiChat:
        if (auto const* u = d.if_contains("usage"); u && u->is_object()) {
          t.input = intAt(path(d, {"usage", "prompt_tokens"}));
          t.cache_read = intAt(path(d, {"usage", "prompt_tokens_details", "cached_tokens"}));
          t.output = intAt(path(d, {"usage", "completion_tokens"}));
          t.reasoning = intAt(path(d, {"usage", "completion_tokens_details", "reasoning_tokens"}));
        }
        break;
      case Protocol::OpenAiResponses: {
        json::object const* r = &d;
        if (auto const* inner = d.if_contains("response"); inner && inner->is_object()) {
          r = &inner->as_object();
        }
        if (auto const* u = r->if_contains("usage"); u && u->is_object()) {
          t.input = intAt(path(*r, {"usage", "input_tokens"}));
          t.cache_read = intAt(path(*r, {"usage", "input_tokens_details", "cached_tokens"}));
          t.output = intAt(path(*r, {"usage", "output_tokens"}));
          t.reasoning = intAt(path(*r, {"usage", "output_tokens_details", "reasoning_tokens"}));
        }
        break;
      }
      case Protocol::Anthropic: {
        json::value const* u = path(d, {"usage"});
        if (!u) u = path(d, {"message", "usage"});
        if (!u || !u->is_object()) break;
        auto const& usage = u->as_object();
        // Anthropic's input_tokens excludes the cache: the canonical input adds both back.
        if (usage.contains("input_tokens")) {
          t.cache_read = intAt(usage.if_contains("cache_read_input_tokens"));
          t.cache_write = intAt(usage.if_contains("cache_creation_input_tokens"));
          t.input = intAt(usage.if_contains("input_tokens")) + t.cache_read + t.cache_write;
        }
        if (usage.contains("output_tokens")) t.output = intAt(usage.if_contains("output_tokens"));
        break;
      }
      case Protocol::Gemini:
        if (auto const* u = d.if_contains("usageMetadata"); u && u->is_object()) {
          auto const& m = u->as_object();
          t.input = intAt(m.if_contains("promptTokenCount"));
          t.cache_read = intAt(m.if_contains("cachedContentTokenCount"));
          t.reasoning = intAt(m.if_contains("thoughtsTokenCount"));
          t.output = intAt(m.if_contains("candidatesTokenCount")) + t.reasoning;
        }
        break;
    }
  }
  return t;
}

Tokens loggedTokens(json::object const& line) {
  Tokens t;
  auto const& u = line.at("usage").as_object();
  t.input = u.at("input").as_int64();
  t.cache_read = u.at("cache_read").as_int64();
  t.cache_write = u.at("cache_write").as_int64();
  t.output = u.at("output").as_int64();
  t.reasoning = u.at("reasoning").as_int64();
  EXPECT_EQ(u.at("total").as_int64(), t.input + t.output);
  return t;
}

class Accounting : public E2eTest,
                   public ::testing::WithParamInterface<std::tuple<Protocol, Protocol, bool>> {};

TEST_P(Accounting, TheLogRecordsTheUpstreamsUsageNormalised) {
  auto [client, upstream, stream] = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string log = temp().path() + "/access.log";
  auto gw = startGateway(gatewayConfig({channel("only", upstream, mock->baseUrl(), {"k"})}, log));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  ClientCall call = clientCall(client, stream);
  if (client == Protocol::OpenAiChat && stream) {
    // Ask for the usage chunk, and mark a cache breakpoint the way OpenRouter-style clients do:
    // an Anthropic upstream then reports cache reads and writes.
    call.body = std::string(R"({"model":")") + kModel + R"(","stream":true,)" +
                R"("stream_options":{"include_usage":true},"messages":[{"role":"user","content":[)" +
                R"({"type":"text","text":"Hello with a cached prefix","cache_control":{"type":"ephemeral"}}]}]})";
  }
  auto response = callGateway(gw->port, call, "acct-1");
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  Tokens reported = upstreamTokens(upstream, journal->back().response_body, stream);
  ASSERT_GT(reported.input, 0) << journal->back().response_body;
  ASSERT_GT(reported.output, 0);

  auto line = waitForAccessLine(log, "acct-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  ASSERT_TRUE(line->at("usage").is_object()) << *line;
  EXPECT_EQ(loggedTokens(*line), reported) << *line;

  // A translated client is told the same numbers in its own conventions.
  if (client == Protocol::OpenAiChat && client != upstream) {
    std::vector<json::object> docs = stream ? dataObjects(response->body)
                                            : std::vector<json::object>{*parseObject(response->body)};
    ASSERT_FALSE(docs.empty());
    json::object const& last = docs.back();
    EXPECT_EQ(intAt(path(last, {"usage", "prompt_tokens"})), reported.input) << last;
    EXPECT_EQ(intAt(path(last, {"usage", "completion_tokens"})), reported.output);
    EXPECT_EQ(intAt(path(last, {"usage", "total_tokens"})), reported.input + reported.output);
    EXPECT_EQ(intAt(path(last, {"usage", "prompt_tokens_details", "cached_tokens"})),
              reported.cache_read);
    if (upstream == Protocol::Anthropic) EXPECT_GT(reported.cache_read, 0) << "the cache was used";
  }
}

std::string accountingName(
    ::testing::TestParamInfo<std::tuple<Protocol, Protocol, bool>> const& info) {
  auto [client, upstream, stream] = info.param;
  return shortName(client) + "_from_" + shortName(upstream) + (stream ? "_stream" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, Accounting,
    ::testing::Values(std::tuple{Protocol::OpenAiChat, Protocol::Anthropic, true},
                      std::tuple{Protocol::OpenAiChat, Protocol::Gemini, false},
                      std::tuple{Protocol::OpenAiResponses, Protocol::OpenAiChat, false},
                      std::tuple{Protocol::Gemini, Protocol::OpenAiResponses, true},
                      // Passthrough: the same side reader.
                      std::tuple{Protocol::Anthropic, Protocol::Anthropic, true},
                      std::tuple{Protocol::Gemini, Protocol::Gemini, false},
                      std::tuple{Protocol::OpenAiResponses, Protocol::OpenAiResponses, true},
                      std::tuple{Protocol::OpenAiChat, Protocol::OpenAiChat, false}),
    accountingName);

// A Gemini client that streams without alt=sse gets one JSON array, element by element, in
// Google's form, from an upstream of another protocol.
TEST_F(E2eTest, AGeminiJsonArrayStreamFromAnotherProtocol) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = startGateway(
      gatewayConfig({channel("chat", Protocol::OpenAiChat, mock->baseUrl(), {"k"})},
                    temp().path() + "/access.log"));
  ASSERT_TRUE(gw.ok()) << gw.error().message;
  ClientCall call = clientCall(Protocol::Gemini, true);
  call.target = std::string("/v1beta/models/") + kModel + ":streamGenerateContent";
  auto response = callGateway(gw->port, call);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  EXPECT_EQ(response->header("content-type"), "application/json");
  boost::system::error_code ec;
  json::value doc = json::parse(response->body, ec);
  ASSERT_FALSE(ec) << response->body;
  ASSERT_TRUE(doc.is_array());
  ASSERT_GE(doc.as_array().size(), 2u);
  auto const& last = doc.as_array().back().as_object();
  EXPECT_EQ(last.at("candidates").as_array()[0].at("finishReason").as_string(), "STOP");
  EXPECT_TRUE(last.contains("usageMetadata"));
}

}  // namespace
}  // namespace llmux::e2e

// Which header or body field ties a request to its session, per protocol.

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "protocol/session_key.h"
#include "test_data.h"

namespace llmux::protocol {
namespace {

HeaderList headersOf(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  HeaderList headers;
  for (auto const& [name, value] : fields) headers.add(name, value);
  return headers;
}

TEST(SessionKey, NoneWhenNothingIsSent) {
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiChat, {}, R"({"model":"m","messages":[]})"), "");
  EXPECT_EQ(sessionKeyOf(Protocol::Anthropic, {}, R"({"metadata":{}})"), "");
  EXPECT_EQ(sessionKeyOf(Protocol::Gemini, {}, R"({"contents":[]})"), "");
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiChat, {}, "not json"), "");
}

TEST(SessionKey, ExplicitHeaderWinsOverEverything) {
  auto headers = headersOf({{"session-id", "codex"}, {"X-Session-Id", "explicit"}});
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses, headers, R"({"prompt_cache_key":"body"})"),
            "explicit");
}

TEST(SessionKey, CodexHeadersInOrder) {
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses, headersOf({{"session_id", "a"}}), "{}"), "a");
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses, headersOf({{"session-id", "b"}}), "{}"), "b");
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses,
                         headersOf({{"conversation_id", "d"}, {"conversation-id", "c"}}), "{}"),
            "c");
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses, headersOf({{"conversation_id", "d"}}), "{}"), "d");
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses,
                         headersOf({{"conversation-id", "c"}, {"session_id", "a"}}), "{}"),
            "a");
}

TEST(SessionKey, EmptyHeaderValuesAreSkipped) {
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiChat, headersOf({{"x-session-id", ""}}),
                         R"({"user":"u-1"})"),
            "u-1");
}

TEST(SessionKey, AnthropicMetadataUserId) {
  EXPECT_EQ(sessionKeyOf(Protocol::Anthropic, {},
                         R"({"model":"m","metadata":{"user_id":"user_abc_session_\u0031"}})"),
            "user_abc_session_1");
  // Only the Anthropic shape: a top-level user is not read for Anthropic.
  EXPECT_EQ(sessionKeyOf(Protocol::Anthropic, {}, R"({"user":"u","prompt_cache_key":"k"})"), "");
  EXPECT_EQ(sessionKeyOf(Protocol::Anthropic, {}, R"({"metadata":{"user_id":42}})"), "");
}

TEST(SessionKey, OpenAiPromptCacheKeyThenUser) {
  for (Protocol protocol : {Protocol::OpenAiChat, Protocol::OpenAiResponses}) {
    EXPECT_EQ(sessionKeyOf(protocol, {}, R"({"user":"u","prompt_cache_key":"k"})"), "k");
    EXPECT_EQ(sessionKeyOf(protocol, {}, R"({"user":"u"})"), "u");
    EXPECT_EQ(sessionKeyOf(protocol, {}, R"({"user":"u","prompt_cache_key":""})"), "u");
    EXPECT_EQ(sessionKeyOf(protocol, {}, R"({"metadata":{"user_id":"x"}})"), "");
  }
}

TEST(SessionKey, GeminiReadsNothingFromTheBody) {
  EXPECT_EQ(sessionKeyOf(Protocol::Gemini, {}, R"({"user":"u","prompt_cache_key":"k"})"), "");
  EXPECT_EQ(sessionKeyOf(Protocol::Gemini, headersOf({{"x-session-id", "s"}}), "{}"), "s");
}

TEST(SessionKey, CappedAt256Bytes) {
  std::string const long_value(1000, 'x');
  auto from_header = sessionKeyOf(Protocol::Gemini, headersOf({{"x-session-id", long_value}}), "");
  EXPECT_EQ(from_header, std::string(kMaxSessionKeyBytes, 'x'));
  auto from_body = sessionKeyOf(Protocol::OpenAiChat, {}, R"({"user":")" + long_value + R"("})");
  EXPECT_EQ(from_body.size(), kMaxSessionKeyBytes);
}

/// A captured client request (tests/data/protocol/clients): its headers and body.
struct Capture {
  HeaderList headers;
  std::string body;
};

Capture captured(std::string const& name) {
  auto capture = boost::json::parse(test::readFile(test::dataDir() / "clients" / name)).as_object();
  Capture out;
  for (auto const& [field, value] : capture.at("headers").as_object()) {
    out.headers.add(field, value.as_string());
  }
  auto const& body = capture.at("body");
  out.body = body.is_string() ? std::string(body.as_string()) : boost::json::serialize(body);
  return out;
}

TEST(SessionKey, RealClients) {
  auto claude = captured("claude-cli.request.json");
  EXPECT_EQ(sessionKeyOf(Protocol::Anthropic, claude.headers, claude.body),
            "69cf496f-aea7-4898-8efa-ac118a8f4de4");  // x-claude-code-session-id
  HeaderList none;
  // Without the header, metadata.user_id (which embeds the same session id).
  EXPECT_NE(sessionKeyOf(Protocol::Anthropic, none, claude.body).find("69cf496f-aea7"),
            std::string::npos);
  auto codex = captured("codex-cli.request.json");
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses, codex.headers, codex.body),
            "01a22816-9097-7da3-ad2d-96af1ebc38cc");  // session-id header
  EXPECT_EQ(sessionKeyOf(Protocol::OpenAiResponses, none, codex.body),
            "01a22816-9097-7da3-ad2d-96af1ebc38cc");  // prompt_cache_key
  auto gemini = captured("gemini-cli.request.json");
  EXPECT_EQ(sessionKeyOf(Protocol::Gemini, gemini.headers, gemini.body), "");
}

}  // namespace
}  // namespace llmux::protocol

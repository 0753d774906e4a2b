// Client presets and protocol rows, end to end: what the upstream (the mock) receives.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
namespace json = boost::json;

class Presets : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

Result<JournalEntry> onlyEntry(std::uint16_t mock_port) {
  auto journal = waitForJournal(mock_port, 1);
  if (!journal) return journal.takeError();
  if (journal->size() != 1) {
    return makeError(ErrorKind::Internal, std::to_string(journal->size()) + " upstream requests");
  }
  return (*journal)[0];
}

// A channel written as OpenAI Chat with the codex-cli preset: an Anthropic client's request goes
// to its address as a Responses request with Codex's headers and defaults.
TEST_F(Presets, CodexPresetTurnsAChatChannelIntoACodexShapedResponsesUpstream) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  ChannelSpec relay = channel("codex-relay", Protocol::OpenAiChat, mock->baseUrl() + "/v1", {"k"});
  relay.extra_yaml = "client_preset: codex-cli\n";
  auto gw = startGateway(gatewayConfig({relay}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  ClientCall call;
  call.target = "/v1/messages";
  call.headers.add("x-api-key", kGatewayKey);
  call.headers.add("anthropic-version", "2023-06-01");
  call.headers.add("Content-Type", "application/json");
  call.headers.add("X-Session-Id", "sess-42");
  call.headers.add("User-Agent", "my-script/1.0");
  call.body = std::string(R"({"model":")") + kModel +
              R"(","max_tokens":128,"system":"Be brief.","messages":[{"role":"user","content":"Hi"}]})";
  auto response = callGateway(gw->port, call);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto answer = parseObject(response->body);
  ASSERT_TRUE(answer.ok());
  EXPECT_EQ(answer->at("type").as_string(), "message") << "the client gets its own protocol";

  auto entry = onlyEntry(mock->port);
  ASSERT_TRUE(entry.ok()) << entry.error().message;
  EXPECT_EQ(entry->path, "/v1/responses");
  EXPECT_EQ(entry->header("originator"), "codex_exec");
  EXPECT_TRUE(entry->header("user-agent").starts_with("codex_exec/")) << entry->header("user-agent");
  EXPECT_EQ(entry->header("session-id"), "sess-42");
  auto body = parseObject(entry->body);
  ASSERT_TRUE(body.ok()) << entry->body;
  EXPECT_EQ(body->at("instructions").as_string(), "Be brief.") << "the caller's system prompt";
  EXPECT_EQ(body->at("store").as_bool(), false);
  EXPECT_EQ(body->at("text").at("verbosity").as_string(), "medium");
  EXPECT_EQ(body->at("prompt_cache_key").as_string(), "sess-42");
  EXPECT_EQ(body->at("max_output_tokens").as_int64(), 128) << "the caller's limit";
}

// A Responses client on a codex-cli channel of its own protocol: passthrough, with only what is
// missing added; what the caller set is never changed.
TEST_F(Presets, OnPassthroughOnlyMissingFieldsAreAdded) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  ChannelSpec relay = channel("codex", Protocol::OpenAiResponses, mock->baseUrl(), {"k"});
  relay.extra_yaml = "client_preset: codex-cli\n";
  auto gw = startGateway(gatewayConfig({relay}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  ClientCall call = clientCall(Protocol::OpenAiResponses, false);
  call.body = std::string(R"({"model":")") + kModel +
              R"(","input":"Hi","store":true,"reasoning":{"effort":"high"},"metadata":{"a":"b"}})";
  auto response = callGateway(gw->port, call);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto entry = onlyEntry(mock->port);
  ASSERT_TRUE(entry.ok()) << entry.error().message;
  auto body = parseObject(entry->body);
  ASSERT_TRUE(body.ok()) << entry->body;
  EXPECT_EQ(body->at("store").as_bool(), true);
  EXPECT_EQ(body->at("reasoning").at("effort").as_string(), "high");
  EXPECT_EQ(body->at("reasoning").at("summary").as_string(), "auto");
  EXPECT_EQ(body->at("metadata").at("a").as_string(), "b") << "unknown fields survive";
  EXPECT_TRUE(body->at("instructions").is_string());
}

// A model-level claude-code preset on a Chat channel: Anthropic at the channel's address, with
// Claude Code's headers and ?beta=true, for that model only.
TEST_F(Presets, AModelPresetAppliesToThatModelOnly) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  ChannelSpec relay = channel("mixed", Protocol::OpenAiChat, mock->baseUrl(), {"k"});
  relay.models = {kModel, "plain-model"};
  relay.extra_yaml = std::string("model_presets: {") + kModel + ": claude-code}\n";
  auto gw = startGateway(gatewayConfig({relay}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, clientCall(Protocol::OpenAiChat, false));
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto entry = onlyEntry(mock->port);
  ASSERT_TRUE(entry.ok()) << entry.error().message;
  EXPECT_EQ(entry->path, "/v1/messages");
  EXPECT_EQ(entry->query, "beta=true");
  EXPECT_TRUE(entry->header("user-agent").starts_with("claude-cli/"));
  EXPECT_EQ(entry->header("x-app"), "cli");
  EXPECT_EQ(entry->upstreamKey(), "k");
  auto body = parseObject(entry->body);
  ASSERT_TRUE(body.ok()) << entry->body;
  EXPECT_EQ(body->at("max_tokens").as_int64(), 32000) << "Claude Code's limit, not the translator's";

  ASSERT_TRUE(clearJournal(mock->port).ok());
  ClientCall plain = clientCall(Protocol::OpenAiChat, false, "plain-model");
  auto passthrough = callGateway(gw->port, plain);
  ASSERT_TRUE(passthrough.ok()) << passthrough.error().message;
  ASSERT_EQ(passthrough->status(), 200) << passthrough->body;
  auto other = onlyEntry(mock->port);
  ASSERT_TRUE(other.ok()) << other.error().message;
  EXPECT_EQ(other->path, "/v1/chat/completions");
  EXPECT_EQ(other->body, plain.body) << "no preset: the client's bytes";
}

// A relay speaking two protocols at two paths: each client is served by the row of its own
// protocol (byte passthrough), a client of a third protocol is translated into the first row.
TEST_F(Presets, ProtocolRowsPreferPassthrough) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string yaml = std::string("listen: 127.0.0.1:0\n") +
                     "gateway_keys: [{name: c, key: " + kGatewayKey + "}]\n"
                     "log: {access_log: off}\n"
                     "channels:\n"
                     "  - name: relay\n"
                     "    keys: [k]\n"
                     "    models: [" + kModel + "]\n"
                     "    protocols:\n"
                     "      - {protocol: openai-chat, base_url: \"" + mock->baseUrl() + "/openai\"}\n"
                     "      - {protocol: anthropic, base_url: \"" + mock->baseUrl() + "/claude\"}\n";
  auto gw = startGatewayYaml(yaml);
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  struct Case {
    Protocol client;
    std::string path;
    bool bytes_kept;
  };
  for (Case const& c : {Case{Protocol::Anthropic, "/claude/v1/messages", true},
                        Case{Protocol::OpenAiChat, "/openai/v1/chat/completions", true},
                        Case{Protocol::Gemini, "/openai/v1/chat/completions", false}}) {
    SCOPED_TRACE(shortName(c.client));
    ASSERT_TRUE(clearJournal(mock->port).ok());
    ClientCall call = clientCall(c.client, false);
    auto response = callGateway(gw->port, call);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200) << response->body;
    auto entry = onlyEntry(mock->port);
    ASSERT_TRUE(entry.ok()) << entry.error().message;
    EXPECT_EQ(entry->path, c.path);
    EXPECT_EQ(entry->body == call.body, c.bytes_kept);
  }
}

}  // namespace
}  // namespace llmux::e2e

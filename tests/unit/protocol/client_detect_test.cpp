#include "protocol/client_detect.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <fstream>
#include <sstream>

#include "protocol/inspect.h"
#include "protocol/routes.h"

namespace llmux::protocol {
namespace {

struct Captured {
  HeaderList headers;
  std::string body;
  std::string path;
};

/// One of the captured real client requests (tests/data/fixtures/clients).
Captured captured(std::string const& name) {
  std::ifstream in(std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/clients/" + name);
  std::stringstream text;
  text << in.rdbuf();
  auto doc = boost::json::parse(text.str()).as_object();
  Captured c;
  for (auto const& [k, v] : doc.at("headers").as_object()) {
    if (v.is_string()) c.headers.add(k, v.as_string());
  }
  c.body = boost::json::serialize(doc.at("body"));
  c.path = std::string(doc.at("path").as_string());
  return c;
}

TEST(ClientDetect, RecognisesTheCapturedAgentsByTheirHeaders) {
  for (auto [file, kind] : {std::pair{"claude-cli.request.json", ClientKind::ClaudeCode},
                            {"codex-cli.request.json", ClientKind::CodexCli},
                            {"gemini-cli.request.json", ClientKind::GeminiCli}}) {
    Captured c = captured(file);
    EXPECT_EQ(detectClient(c.headers, "", c.body), kind) << file;
    // Without a User-Agent, the system prompt still gives them away.
    c.headers.remove("user-agent");
    c.headers.remove("originator");
    EXPECT_EQ(detectClient(c.headers, "", c.body), kind) << file << " by its system prompt";
  }
}

TEST(ClientDetect, BodyHintWinsAndSdksAreNamed) {
  HeaderList h;
  h.add("User-Agent", "OpenAI/JS 7.59.0");
  EXPECT_EQ(detectClient(h, "", "{}"), ClientKind::OpenAiSdk);
  EXPECT_EQ(detectClient(h, "cline", "{}"), ClientKind::Cline);
  EXPECT_EQ(clientKindName(detectClient(h, "Roo-Code", "{}")), "roo-code");
  HeaderList g;
  g.add("x-goog-api-client", "google-genai-sdk/1.30.0 gl-node/v20");
  EXPECT_EQ(detectClient(g, "", "{}"), ClientKind::GoogleGenaiSdk);
  EXPECT_EQ(detectClient(HeaderList{}, "", "{}"), ClientKind::Unknown);
  EXPECT_EQ(clientKindName(ClientKind::Unknown), "unknown");
}

TEST(ClientDetect, InspectionReadsTheClientHintInTheSamePass) {
  auto route = matchRoute("POST", "/v1/chat/completions").route;
  auto profile = inspectRequest(route, R"({"model":"m","client_type":"cursor","messages":[]})");
  ASSERT_TRUE(profile.ok());
  EXPECT_EQ(profile->client_hint, "cursor");
}

}  // namespace
}  // namespace llmux::protocol

// `llmux check-config` as the command runs it (runCheckConfig), its output captured: the final
// URLs of every channel's media endpoints, and never a credential. The command's errors and its
// other lines are covered end to end (tests/e2e/scenarios/lifecycle_cli_test.cpp).

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "app/commands.h"

namespace llmux::app {
namespace {

/// What `llmux check-config` prints for a file holding `yaml`; `code` gets its exit code.
std::string checkConfig(std::string const& yaml, int& code) {
  std::string const path = ::testing::TempDir() + "check_config_test.yaml";
  std::ofstream(path) << yaml;
  ::testing::internal::CaptureStdout();
  code = runCheckConfig(path);
  return ::testing::internal::GetCapturedStdout();
}

TEST(CheckConfig, PrintsTheFinalUrlOfEveryEnabledMediaEndpointWithoutKeys) {
  int code = -1;
  std::string const out = checkConfig(R"(
gateway_keys: [{name: dev, key: sk-dev-123}]
channels:
  - name: openai-main
    protocol: openai-chat
    base_url: https://api.openai.com
    keys: [main-secret-1f2e]
    models: [gpt-image-1]
    media:
      images: true
      videos: {path: /api/v3/videos}
      speech: true
      transcriptions: {path: /v1/audio/transcriptions}
      embeddings: false
  - name: relay
    base_url: https://relay.example/openai
    enabled: false
    protocols:
      - {protocol: anthropic}
      - {protocol: openai-responses, auth: "query:key"}
    keys: [relay-secret-9a8b]
    models: [m]
    media:
      images: {edits_path: /img/edit}
      embeddings: {}
  - name: plain
    protocol: anthropic
    base_url: https://api.anthropic.com
    keys: [plain-secret-7c6d]
    models: [c]
)", code);
  EXPECT_EQ(code, 0);
  for (std::string_view line : {
           "  openai-main media (on its openai-chat row):\n"
           "    images: generations https://api.openai.com/v1/images/generations, edits "
           "https://api.openai.com/v1/images/edits\n"
           "    videos: https://api.openai.com/api/v3/videos (a job: /{id} below it, its content: "
           "/{id}/content)\n"
           "    speech: https://api.openai.com/v1/audio/speech\n"
           "    transcriptions: https://api.openai.com/v1/audio/transcriptions\n"
           "  relay anthropic",
           "  relay media (on its openai-responses row) (disabled):\n"
           "    images: generations https://relay.example/openai/v1/images/generations?key=<key>, "
           "edits https://relay.example/img/edit?key=<key>\n"
           "    embeddings: https://relay.example/openai/v1/embeddings?key=<key>\n"
           "  plain anthropic"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\nin:\n" << out;
  }
  EXPECT_EQ(out.find("embeddings: https://api.openai.com"), std::string::npos) << out;
  EXPECT_EQ(out.find("plain media"), std::string::npos) << "no media, no media line: " << out;
  EXPECT_EQ(out.find("secret"), std::string::npos) << "no key printed: " << out;
}

TEST(CheckConfig, MediaPathsAreAbsoluteWhileTheStandardOnesFollowTheBasePath) {
  int code = -1;
  std::string const out = checkConfig(R"(
gateway_keys: [{name: dev, key: sk-dev-123}]
channels:
  - name: ark
    protocol: openai-chat
    base_url: https://ark.example/api/v3
    keys: [k]
    models: [m]
    media: {images: {path: /img/generate}, videos: true}
)", code);
  EXPECT_EQ(code, 0);
  std::string_view const lines =
      "  ark media (on its openai-chat row):\n"
      "    images: generations https://ark.example/img/generate, edits "
      "https://ark.example/api/v3/v1/images/edits\n"
      "    videos: https://ark.example/api/v3/v1/videos (a job: /{id} below it, its content: "
      "/{id}/content)\n";
  EXPECT_NE(out.find(lines), std::string::npos) << lines << "\nin:\n" << out;
}

}  // namespace
}  // namespace llmux::app

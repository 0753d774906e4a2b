#include "e2e/support/llmux_processes.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>

#include "e2e/support/e2e_test.h"
#include "e2e/support/temp_dir.h"

namespace llmux::e2e {
namespace {

using namespace std::chrono_literals;

/// A stand-in for the llmux binary: prints how it was started, then the listening line.
std::string const kFakeLlmux =
    "#!/bin/sh\n"
    "echo \"args: $*\"\n"
    "echo \"cwd: $(pwd)\"\n"
    "echo \"home: $LLMUX_HOME\"\n"
    "if [ \"$1\" = serve ]; then sed 's/^/config| /' \"$3\"; fi\n"
    "echo 'listening on 127.0.0.1:5555'\n"
    "exec sleep 30\n";

std::string writeExecutable(TempDir& dir, std::string const& name, std::string const& text) {
  auto path = dir.writeFile(name, text);
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(LlmuxProcesses, StartsTheMockProviderAndReadsItsPort) {
  TempDir dir;
  auto binary = writeExecutable(dir, "llmux", kFakeLlmux);
  auto mock = startListening(mockProviderOptions(binary, {"--fixtures", "x"}), 5s);
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  EXPECT_EQ(mock->port, 5555);
  EXPECT_EQ(mock->baseUrl(), "http://127.0.0.1:5555");
  EXPECT_EQ(mock->process.lines()[0], "args: mock-provider --listen 127.0.0.1:0 --fixtures x");
}

TEST(LlmuxProcesses, StartsTheGatewayOnAConfigFile) {
  TempDir dir;
  auto binary = writeExecutable(dir, "llmux", kFakeLlmux);
  auto config = dir.writeTempFile("listen: 127.0.0.1:0\n");
  auto gateway = startListening(gatewayOptions(binary, config), 5s);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  EXPECT_EQ(gateway->process.lines()[0], "args: serve --config " + config);
  EXPECT_TRUE(gateway->process.waitForLineStartingWith("config| listen: 127.0.0.1:0", 1s).ok());
}

TEST(LlmuxProcesses, StartFailsWithTheOutputWhenTheServerDies) {
  TempDir dir;
  auto binary =
      writeExecutable(dir, "llmux", "#!/bin/sh\necho 'error: channels[0]: bad' >&2\nexit 2\n");
  auto gateway = startListening(gatewayOptions(binary, "/missing.yaml"), 5s);
  ASSERT_FALSE(gateway.ok());
  EXPECT_NE(gateway.error().message.find("error: channels[0]: bad"), std::string::npos)
      << gateway.error().message;
}

TEST(LlmuxProcesses, BinaryComesFromTheEnvironmentFirst) {
  char const* saved = std::getenv("LLMUX_BINARY");
  std::string previous = saved ? saved : "";
  ::setenv("LLMUX_BINARY", "/opt/llmux/bin/llmux", 1);
  EXPECT_EQ(llmuxBinary(), "/opt/llmux/bin/llmux");
  if (saved) {
    ::setenv("LLMUX_BINARY", previous.c_str(), 1);
  } else {
    ::unsetenv("LLMUX_BINARY");
  }
}

/// The fixture, driven with the stand-in binary instead of the real one.
class FixtureWithFakeBinary : public E2eTest {
 protected:
  void SetUp() override {
    binary_dir_ = std::make_unique<TempDir>();
    ::setenv("LLMUX_BINARY", writeExecutable(*binary_dir_, "llmux", kFakeLlmux).c_str(), 1);
    E2eTest::SetUp();
    ::unsetenv("LLMUX_BINARY");
    sweepNoSecrets();  // the stand-in prints its configuration, keys included
  }
  std::unique_ptr<TempDir> binary_dir_;
};

TEST_F(FixtureWithFakeBinary, StartsProcessesInTheTestsTemporaryDirectory) {
  GatewayConfig config;
  config.gateway_keys = {{"dev", "sk-dev-123"}};
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  EXPECT_EQ(gateway->port, 5555);
  auto lines = gateway->process->lines();
  ASSERT_GE(lines.size(), 3u);
  EXPECT_TRUE(lines[0].starts_with("args: serve --config " + temp().path() + "/"));
  EXPECT_EQ(std::filesystem::path(lines[1].substr(5)), std::filesystem::canonical(temp().path()));
  EXPECT_EQ(lines[2], "home: " + temp().path() + "/llmux-home");
  EXPECT_TRUE(std::filesystem::is_directory(temp().path() + "/llmux-home"));
  EXPECT_TRUE(
      gateway->process->waitForLineStartingWith("config|     key: \"sk-dev-123\"", 1s).ok());

  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  EXPECT_TRUE(mock->process->lines()[0].starts_with("args: mock-provider"));
  EXPECT_NE(mock->process, gateway->process);
}

}  // namespace
}  // namespace llmux::e2e

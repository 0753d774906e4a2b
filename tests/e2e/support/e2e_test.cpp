#include "e2e/support/e2e_test.h"

#include <filesystem>
#include <iostream>

namespace llmux::e2e {
namespace {

constexpr std::size_t kDumpLines = 60;

void dumpStream(ChildProcess const& process, Stream stream, char const* name) {
  auto lines = process.lines(stream);
  std::size_t first = lines.size() > kDumpLines ? lines.size() - kDumpLines : 0;
  std::cerr << "  " << name << (first > 0 ? " (last lines)" : "") << ":\n";
  for (std::size_t i = first; i < lines.size(); ++i) std::cerr << "    | " << lines[i] << "\n";
}

}  // namespace

void E2eTest::SetUp() {
  binary_ = llmuxBinary();
  if (binary_.empty()) GTEST_SKIP() << "the llmux binary is unknown: build it or set LLMUX_BINARY";
}

void E2eTest::TearDown() {
  if (!HasFailure()) return;
  for (auto const& process : processes_) {
    std::cerr << "process " << process.describe() << "\n";
    dumpStream(process, Stream::Stdout, "stdout");
    dumpStream(process, Stream::Stderr, "stderr");
  }
}

void E2eTest::placeInTempDir(ChildOptions& options) {
  if (options.cwd.empty()) options.cwd = temp_.path();
  bool has_home = false;
  for (auto const& [name, value] : options.env) has_home = has_home || name == "LLMUX_HOME";
  if (!has_home) {
    std::string home = temp_.path() + "/llmux-home";
    std::filesystem::create_directories(home);
    options.env.emplace_back("LLMUX_HOME", home);
  }
}

Result<ChildProcess*> E2eTest::spawn(ChildOptions options) {
  placeInTempDir(options);
  auto child = ChildProcess::spawn(std::move(options));
  if (!child) return child.takeError();
  processes_.push_back(std::move(*child));
  return &processes_.back();
}

Result<Server> E2eTest::startServer(ChildOptions options) {
  auto child = spawn(std::move(options));
  if (!child) return child.takeError();
  auto port = waitForListeningPort(**child);
  if (!port) return port.takeError();
  return Server{*child, *port};
}

Result<Server> E2eTest::startMockProvider(std::vector<std::string> extra_args) {
  return startServer(mockProviderOptions(binary_, std::move(extra_args)));
}

Result<Server> E2eTest::startGateway(GatewayConfig const& config,
                                     std::vector<std::string> extra_args) {
  return startGatewayYaml(toYaml(config), std::move(extra_args));
}

Result<Server> E2eTest::startGatewayYaml(std::string_view yaml,
                                         std::vector<std::string> extra_args) {
  return startServer(gatewayOptions(binary_, writeTempFile(yaml), std::move(extra_args)));
}

}  // namespace llmux::e2e

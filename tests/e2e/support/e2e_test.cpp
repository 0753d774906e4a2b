#include "e2e/support/e2e_test.h"

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include "e2e/support/http_client.h"
#include "e2e/support/secret_sweep.h"

namespace llmux::e2e {
namespace {

constexpr std::size_t kDumpLines = 60;

void dumpStream(ChildProcess const& process, Stream stream, char const* name) {
  auto lines = process.lines(stream);
  std::size_t first = lines.size() > kDumpLines ? lines.size() - kDumpLines : 0;
  std::cerr << "  " << name << (first > 0 ? " (last lines)" : "") << ":\n";
  for (std::size_t i = first; i < lines.size(); ++i) std::cerr << "    | " << lines[i] << "\n";
}

std::string readWholeFile(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

}  // namespace

void E2eTest::SetUp() {
  binary_ = llmuxBinary();
  if (binary_.empty()) GTEST_SKIP() << "the llmux binary is unknown: build it or set LLMUX_BINARY";
}

void E2eTest::sweepSecrets() {
  if (swept_.empty() || !sweep_secrets_) return;
  // The request log writer commits within milliseconds of a request's end; give the last
  // requests of the scenario that long.
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  std::filesystem::path const home = std::filesystem::path(temp_.path()) / "llmux-home";
  for (auto& gateway : swept_) {
    if (gateway.secrets.empty()) continue;
    std::vector<std::pair<std::string, std::string>> sources = {
        {"stdout", gateway.process->output(Stream::Stdout)},
        {"stderr", gateway.process->output(Stream::Stderr)}};
    if (gateway.process->running()) {
      if (auto client = HttpClient::connect(gateway.port, Millis(2'000))) {
        if (auto metrics = client->request("GET", "/metrics", {}, {}, Millis(2'000))) {
          sources.emplace_back("/metrics", metrics->body);
        }
      }
    }
    if (!gateway.access_log.empty()) {
      std::filesystem::path log = gateway.access_log;
      if (log.is_relative()) log = std::filesystem::path(temp_.path()) / log;
      sources.emplace_back("access log " + log.string(), readWholeFile(log));
    }
    std::error_code ec;
    for (auto const& entry : std::filesystem::recursive_directory_iterator(home, ec)) {
      if (entry.is_regular_file()) {
        sources.emplace_back("state file " + entry.path().filename().string(),
                             readWholeFile(entry.path()));
      }
    }
    for (auto const& secret : gateway.secrets) {
      for (auto const& [where, text] : sources) {
        std::string context = leakContext(text, secret);
        if (!context.empty()) {
          ADD_FAILURE() << "a configured secret leaked into the gateway's " << where << ": "
                        << context;
        }
      }
    }
  }
}

void E2eTest::TearDown() {
  sweepSecrets();
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

Result<Server> E2eTest::startGatewayYaml(std::string_view yaml, std::vector<std::string> extra_args,
                                         std::vector<std::pair<std::string, std::string>> env) {
  ChildOptions options = gatewayOptions(binary_, writeTempFile(yaml), std::move(extra_args));
  for (auto const& [name, value] : env) {
    auto same = std::find_if(options.env.begin(), options.env.end(),
                             [&name](auto const& entry) { return entry.first == name; });
    if (same != options.env.end()) {
      same->second = value;
    } else {
      options.env.emplace_back(name, value);
    }
  }
  auto server = startServer(std::move(options));
  if (server) {
    swept_.push_back({server->process, server->port, configuredSecrets(yaml, env),
                      accessLogPath(yaml)});
  }
  return server;
}

}  // namespace llmux::e2e

// The command line: check-config, version, --help, and `serve` without a configuration (the
// embedded default with its demo channels on the built-in mock provider).
#include <regex>

#include "lifecycle_support.h"

namespace llmux::e2e {
namespace {

using namespace lifecycle;

class CliTest : public E2eTest {
 protected:
  /// Runs `llmux <args>` to completion; returns its exit status.
  Result<ExitStatus> run(std::vector<std::string> args, ChildProcess** process_out = nullptr,
                         std::vector<std::pair<std::string, std::string>> env = {}) {
    ChildOptions options;
    options.program = binary();
    options.args = std::move(args);
    options.env = std::move(env);
    auto process = spawn(std::move(options));
    if (!process) return process.error();
    if (process_out) *process_out = *process;
    return (*process)->waitExit(Millis(10'000));
  }
};

TEST_F(CliTest, CheckConfigPrintsEveryErrorWithItsPathAndExits2) {
  std::string bad = writeTempFile(R"(
listen: 127.0.0.1:8080
gateway_keys:
  - name: dev
    key: sk-dev-123
channels:
  - name: ok
    protocol: anthropic
    base_url: https://api.anthropic.com
    keys: [k]
    models: [m]
  - name: second
    protocol: gemini
    base_url: https://generativelanguage.googleapis.com
    keys: ["${LLMUX_TEST_UNSET_VARIABLE}"]
    models: [g]
  - name: third
    protocol: openai-chat
    base_url: not-a-url
    keys: [k]
    models: [m]
    surprise: 1
log: {request_log_retention_days: -1}
)");
  ChildProcess* process = nullptr;
  auto status = run({"check-config", bad}, &process);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 2);
  std::string err = process->output(Stream::Stderr);
  EXPECT_NE(err.find("channels[2].base_url: not an http(s) URL"), std::string::npos) << err;
  EXPECT_NE(err.find("channels[1].keys[0]: environment variable LLMUX_TEST_UNSET_VARIABLE is not set"),
            std::string::npos) << err;
  EXPECT_NE(err.find("channels[2].surprise"), std::string::npos) << err;
  EXPECT_NE(err.find("log.request_log_retention_days: must be from 0 to 36500"), std::string::npos)
      << err;
}

TEST_F(CliTest, CheckConfigAcceptsTheMinimalContract) {
  std::string good = writeTempFile(R"(
listen: 127.0.0.1:8080
gateway_keys:
  - name: dev
    key: sk-dev-123
channels:
  - name: anthropic-main
    protocol: anthropic
    base_url: https://api.anthropic.com
    keys: ["${LLMUX_TEST_KEY}", "sk-literal"]
    models: [claude-sonnet-4-5, claude-haiku-4-5]
    model_map: {sonnet: claude-sonnet-4-5}
)");
  ChildProcess* process = nullptr;
  auto status = run({"check-config", good}, &process, {{"LLMUX_TEST_KEY", "sk-from-env"}});
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0) << process->output(Stream::Stderr);
  EXPECT_NE(process->output().find("OK"), std::string::npos);
  EXPECT_NE(process->output().find("request log: requests kept 30 day(s)"), std::string::npos)
      << process->output();
  EXPECT_NE(process->output().find("video jobs: kept 7 day(s)"), std::string::npos)
      << process->output();
  EXPECT_EQ(process->output().find("sk-"), std::string::npos) << "no secret printed";
}

TEST_F(CliTest, CheckConfigPrintsEachTablesRetention) {
  std::string good = writeTempFile(R"(
gateway_keys: [{name: dev, key: sk-dev-123}]
channels:
  - {name: c, protocol: openai-chat, base_url: "https://o.example", keys: [k1], models: [m]}
payloads: {clickhouse_url: "http://127.0.0.1:8123"}
retention: {request_log_days: 0, video_jobs_days: 2, payloads_days: 14}
)");
  ChildProcess* process = nullptr;
  auto status = run({"check-config", good}, &process);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0) << process->output(Stream::Stderr);
  std::string const out = process->output();
  EXPECT_NE(out.find("request log: kept forever (retention.request_log_days: 0)"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("video jobs: kept 2 day(s)"), std::string::npos) << out;
  EXPECT_NE(out.find("payloads: rows older than 14 day(s) deleted, hourly"), std::string::npos)
      << out;
}

TEST_F(CliTest, CheckConfigPrintsTheFinalUrlsOfEveryRowWithoutKeys) {
  std::string good = writeTempFile(R"(
gateway_keys: [{name: dev, key: sk-dev-123}]
channels:
  - name: zhipu
    protocol: openai-chat
    base_url: https://open.bigmodel.cn
    chat_path: /api/paas/v4/chat/completions
    models_path: /api/paas/v4/models
    keys: [zhipu-secret-1f2e]
    models: [glm-4.6]
  - name: relay
    base_url: https://relay.example/openai
    protocols:
      - {protocol: openai-chat}
      - {protocol: gemini, base_url: "http://127.0.0.1:9000/g", auth: "query:key", chat_path: "/v1/projects/p/models/{model}"}
    keys: [query-secret-9a8b]
    models: [m]
)");
  ChildProcess* process = nullptr;
  auto status = run({"check-config", good}, &process);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0) << process->output(Stream::Stderr);
  std::string out = process->output();
  for (std::string_view line :
       {"upstream URLs:\n",
        "  zhipu openai-chat: chat https://open.bigmodel.cn/api/paas/v4/chat/completions, models "
        "https://open.bigmodel.cn/api/paas/v4/models\n",
        "  relay openai-chat: chat https://relay.example/openai/v1/chat/completions, models "
        "https://relay.example/openai/v1/models\n",
        "  relay gemini: chat http://127.0.0.1:9000/v1/projects/p/models/{model}:generateContent"
        "?key=<key>, models http://127.0.0.1:9000/g/v1beta/models?key=<key>\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\nin:\n" << out;
  }
  EXPECT_EQ(out.find("secret"), std::string::npos) << "no key printed: " << out;
}

TEST_F(CliTest, CheckConfigPrintsEachKeysExitWithoutCredentials) {
  std::string config = writeTempFile(R"(
gateway_keys: [{name: dev, key: sk-dev-123}]
proxies:
  - {name: corp, mode: network, url: 'http://proxy-user:proxy-secret-77@proxy.corp:3128'}
  - {name: sg, mode: node, url: 'https://node.example:9443', token_env: NODE_TOKEN}
channels:
  - name: a
    protocol: openai-chat
    base_url: https://api.example.com/v1
    proxy: corp
    keys: [a-secret-1, {key: a-secret-2, proxy: sg}]
    models: [m]
  - name: b
    protocol: anthropic
    base_url: https://api.anthropic.com
    exclusive_connections: true
    keys: [b-secret-3]
    models: [c]
)");
  ChildProcess* process = nullptr;
  auto status = run({"check-config", config}, &process, {{"NODE_TOKEN", "node-secret-token-0123"}});
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0) << process->output(Stream::Stderr);
  std::string out = process->output();
  for (std::string_view line : {"    exit of a#0: corp (network http://proxy.corp:3128)\n",
                                "    exit of a#1: sg (node https://node.example:9443)\n",
                                "    exit: direct, connections per key\n"}) {
    EXPECT_NE(out.find(line), std::string::npos) << line << "\nin:\n" << out;
  }
  EXPECT_EQ(out.find("secret"), std::string::npos) << "no credential printed: " << out;
}

TEST_F(CliTest, VersionAndHelp) {
  ChildProcess* process = nullptr;
  auto status = run({"version"}, &process);
  ASSERT_TRUE(status.ok());
  EXPECT_EQ(status->code, 0);
  EXPECT_TRUE(std::regex_search(process->output(), std::regex(R"(^llmux \d+\.\d+\.\d+)")))
      << process->output();
  for (std::string verb : {"serve", "check-config", "mock-provider", "node", "version"}) {
    status = run({verb, "--help"}, &process);
    ASSERT_TRUE(status.ok());
    EXPECT_EQ(status->code, 0) << verb;
    EXPECT_NE(process->output().find("Usage"), std::string::npos) << verb << process->output();
  }
  status = run({"no-such-verb"}, &process);
  ASSERT_TRUE(status.ok());
  EXPECT_NE(status->code, 0);
}

/// `llmux serve` with no configuration, on a free port with its state in the test's folder.
class EmbeddedDefaultTest : public E2eTest {
 protected:
  Result<Server> startDefault(std::vector<std::pair<std::string, std::string>> env = {}) {
    ChildOptions options;
    options.program = binary();
    options.args = {"serve"};
    options.env = std::move(env);
    options.env.emplace_back("LLMUX_LISTEN", "127.0.0.1:0");
    for (char const* name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "LLMUX_GATEWAY_KEY",
                             "LLMUX_ADMIN_TOKEN"}) {
      bool set = false;
      for (auto const& [k, v] : options.env) set = set || k == name;
      if (!set) options.env.emplace_back(name, "");  // the test machine's keys must not leak in
    }
    return startServer(std::move(options));
  }
  static std::string printed(ChildProcess& process, std::string const& prefix) {
    auto line = process.waitForLineStartingWith(prefix, Millis(5'000));
    if (!line) return "";
    return line->text.substr(prefix.size());
  }
  static std::string printedKey(ChildProcess& process) { return printed(process, "  gateway key: "); }
};

TEST_F(EmbeddedDefaultTest, ServesTheDemoModelInEveryProtocolOffline) {
  auto gateway = startDefault();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::string key = printedKey(*gateway->process);
  ASSERT_FALSE(key.empty()) << gateway->process->output();
  EXPECT_NE(gateway->process->output().find("models: demo"), std::string::npos);

  struct Call {
    std::string path;
    std::string auth_header;
    std::string body;
    std::string expect;
  };
  std::vector<Call> calls = {
      {"/v1/chat/completions", "Authorization",
       R"({"model":"demo","messages":[{"role":"user","content":"Hello"}]})", "You said"},
      {"/v1/responses", "Authorization", R"({"model":"demo","input":"Hello"})", "You said"},
      {"/v1/messages", "x-api-key",
       R"({"model":"demo","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]})", "You said"},
      {"/v1beta/models/demo:generateContent", "x-goog-api-key",
       R"({"contents":[{"role":"user","parts":[{"text":"Hello"}]}]})", "You said"},
  };
  for (auto const& call : calls) {
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok());
    HeaderList headers;
    headers.add(call.auth_header, call.auth_header == "Authorization" ? "Bearer " + key : key);
    headers.add("anthropic-version", "2023-06-01");
    headers.add("content-type", "application/json");
    auto response = client->request("POST", call.path, headers, call.body);
    ASSERT_TRUE(response.ok()) << call.path << ": " << response.error().message;
    EXPECT_EQ(response->status(), 200) << call.path << ": " << response->body;
    EXPECT_NE(response->body.find(call.expect), std::string::npos) << call.path << ": " << response->body;
  }
}

TEST_F(EmbeddedDefaultTest, PrintsAnAdminTokenThatOpensTheApiAndTheConsole) {
  auto gateway = startDefault();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::string const token = printed(*gateway->process, "  admin token: ");
  ASSERT_TRUE(token.starts_with("adm-")) << gateway->process->output();
  EXPECT_NE(gateway->process->output().find("/console/ (sign in with the admin token)"), std::string::npos);
  auto call = [&](std::string method, std::string target, HeaderList headers, std::string body) {
    auto client = HttpClient::connect(gateway->port);
    EXPECT_TRUE(client.ok());
    return client->request(method, target, headers, body);
  };
  HeaderList bearer;
  bearer.add("Authorization", "Bearer " + token);
  auto freezes = call("GET", "/admin/freezes", bearer, "");
  ASSERT_TRUE(freezes.ok());
  EXPECT_EQ(freezes->status(), 200) << freezes->body;
  EXPECT_EQ(call("GET", "/admin/freezes", {}, "")->status(), 401);
  auto page = call("GET", "/console/", {}, "");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->status(), 200);
  EXPECT_NE(page->body.find("/console/app.js"), std::string::npos) << "the built-in console";
  auto script = call("GET", "/console/vendor/uPlot.iife.min.js", {}, "");
  EXPECT_EQ(script->status(), 200) << "its chart library, built in";
  auto session = call("POST", "/console/session", {}, R"({"token":")" + token + R"("})");
  EXPECT_EQ(session->status(), 200) << session->body;
  // Chosen by LLMUX_ADMIN_TOKEN instead.
  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  ASSERT_TRUE(gateway->process->waitExit(Millis(10'000)).ok());
  auto chosen = startDefault({{"LLMUX_ADMIN_TOKEN", "adm-chosen-secret-1"}});
  ASSERT_TRUE(chosen.ok()) << chosen.error().message;
  EXPECT_EQ(printed(*chosen->process, "  admin token: "), "adm-chosen-secret-1");
}

TEST_F(EmbeddedDefaultTest, KeepsItsGeneratedKeyAcrossRestartsAndAddsProviderChannels) {
  auto first = startDefault();
  ASSERT_TRUE(first.ok()) << first.error().message;
  std::string key = printedKey(*first->process);
  ASSERT_FALSE(key.empty());
  ASSERT_TRUE(first->process->signal(SIGTERM).ok());
  ASSERT_TRUE(first->process->waitExit(Millis(5'000)).ok());

  // Same state folder (the fixture's LLMUX_HOME), a provider key in the environment: the same
  // gateway key, and a channel for the provider.
  auto second = startDefault({{"ANTHROPIC_API_KEY", "sk-ant-not-real"}});
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(printedKey(*second->process), key);
  std::string out = second->process->output();
  EXPECT_NE(out.find("anthropic(anthropic)"), std::string::npos) << out;
  EXPECT_EQ(out.find("sk-ant-not-real"), std::string::npos) << "provider keys are never printed";
}

}  // namespace
}  // namespace llmux::e2e

// The server's own limits (docs/security.md): the connection cap, the budget of buffered body
// bytes, and accepting when the process is out of descriptors.
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e {
namespace {

constexpr char kKey[] = "sk-limits-tenant-01";

std::string gatewayYaml(std::string const& mock_url, std::string const& server) {
  return "listen: 127.0.0.1:0\n"
         "server: {" + server + "}\n"
         "gateway_keys: [{name: dev, key: " + std::string(kKey) + "}]\n"
         "channels:\n"
         "  - {name: m, protocol: openai-chat, base_url: \"" + mock_url +
         "\", keys: [k1], models: [gpt-4o-mini]}\n";
}

HeaderList authorized() {
  HeaderList headers;
  headers.add("Authorization", std::string("Bearer ") + kKey);
  headers.add("Content-Type", "application/json");
  return headers;
}

std::string const kChatBody = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":"hi"}]})";

TEST_F(E2eTest, ConnectionsOverTheCapAreToldToComeBack) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGatewayYaml(gatewayYaml(mock->baseUrl(), "max_connections: 8"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::vector<HttpClient> held;
  for (int i = 0; i < 8; ++i) {
    auto client = HttpClient::connect(gateway->port);
    ASSERT_TRUE(client.ok());
    // Each connection serves a request so it is surely counted, then idles.
    auto response = client->request("POST", "/v1/chat/completions", authorized(), kChatBody);
    ASSERT_TRUE(response.ok()) << response.error().message;
    ASSERT_EQ(response->status(), 200);
    held.push_back(std::move(*client));
  }
  auto over = HttpClient::connect(gateway->port);
  ASSERT_TRUE(over.ok());
  auto refused = over->request("POST", "/v1/chat/completions", authorized(), kChatBody);
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 503);
  EXPECT_EQ(refused->header("retry-after"), "1");
  EXPECT_EQ(refused->header("connection"), "close");

  over->closeNow();
  held.pop_back();  // one leaves: a newcomer is served again
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto again = HttpClient::connect(gateway->port);
  ASSERT_TRUE(again.ok());
  auto served = again->request("POST", "/v1/chat/completions", authorized(), kChatBody);
  ASSERT_TRUE(served.ok()) << served.error().message;
  EXPECT_EQ(served->status(), 200);
}

TEST_F(E2eTest, BodiesOverTheBufferBudgetGetA503AndTheOthersFinish) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGatewayYaml(gatewayYaml(mock->baseUrl(), "max_buffered_body_bytes: 1048576"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  // A body of 800 KiB: valid JSON with a long content string.
  std::string body = R"({"model":"gpt-4o-mini","messages":[{"role":"user","content":")" +
                     std::string(800 * 1024, 'a') + R"("}]})";
  HeaderList headers = authorized();
  headers.add("Content-Length", std::to_string(body.size()));
  std::string head = formatRequest("POST", "/v1/chat/completions", headers, {}, gateway->port);
  std::size_t const first_part = 700 * 1024;

  auto first = HttpClient::connect(gateway->port);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(first->sendRaw(head + body.substr(0, first_part)).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // it holds most of the budget

  auto second = HttpClient::connect(gateway->port);
  ASSERT_TRUE(second.ok());
  ASSERT_TRUE(second->sendRaw(head + body).ok());
  auto refused = second->readResponse();
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 503) << refused->body;
  EXPECT_EQ(refused->header("retry-after"), "1");

  ASSERT_TRUE(first->sendRaw(body.substr(first_part)).ok());
  auto served = first->readResponse();
  ASSERT_TRUE(served.ok()) << served.error().message;
  EXPECT_EQ(served->status(), 200) << served->body;

  // The budget is given back when the first request's handling ends (a moment after its client
  // has the answer): the same body is served again.
  int status = 0;
  for (int i = 0; i < 40 && status != 200; ++i) {
    if (i > 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    auto third = HttpClient::connect(gateway->port);
    ASSERT_TRUE(third.ok());
    auto later = third->request("POST", "/v1/chat/completions", authorized(), body);
    ASSERT_TRUE(later.ok()) << later.error().message;
    status = later->status();
  }
  EXPECT_EQ(status, 200);
}

/// CPU seconds (user + system) the process used so far.
double cpuSeconds(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto after_name = stat.rfind(')');
  std::istringstream fields(stat.substr(after_name + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14 || i == 15) ticks += std::stod(field);  // utime, stime
  }
  return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

TEST_F(E2eTest, OutOfDescriptorsTheGatewayBacksOffAndStillAnswers) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string config = writeTempFile(gatewayYaml(mock->baseUrl(), "threads: 1"));
  // A hard limit of 64 descriptors: the gateway cannot raise it.
  ChildOptions options;
  options.program = "sh";
  options.args = {"-c", "ulimit -n 64 && exec \"$0\" serve --config \"$1\"", binary(), config};
  auto gateway = startServer(std::move(options));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::vector<HttpClient> flood;
  for (int i = 0; i < 100; ++i) {
    auto client = HttpClient::connect(gateway->port, Millis(2'000));
    if (client.ok()) flood.push_back(std::move(*client));
  }
  double cpu_before = cpuSeconds(gateway->process->pid());
  std::this_thread::sleep_for(std::chrono::milliseconds(1'500));
  double cpu_used = cpuSeconds(gateway->process->pid()) - cpu_before;
  // A loop retrying accept() at once would burn the core; backing off costs almost nothing.
  EXPECT_LT(cpu_used, 0.5) << "CPU seconds in 1.5 s";

  // The connections it could not take were answered (503, come back), not left hanging.
  int told_to_retry = 0;
  for (auto& client : flood) {
    auto head = client.readHead(Millis(20));
    if (head.ok() && head->status == 503) ++told_to_retry;
  }
  EXPECT_GT(told_to_retry, 0);
  EXPECT_NE(gateway->process->output(Stream::Stderr).find("accept failed"), std::string::npos);

  flood.clear();  // descriptors come back: the gateway serves again
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok());
  auto response = client->request("POST", "/v1/chat/completions", authorized(), kChatBody);
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200);
}

}  // namespace
}  // namespace llmux::e2e

#pragma once

// Small helpers shared by the lifecycle scenarios.

#include <chrono>
#include <string>
#include <thread>

#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"

namespace llmux::e2e::lifecycle {

inline constexpr char kGatewayKey[] = "sk-life-123";

/// A minimal chat request for `model`.
inline std::string chatBody(std::string const& model, bool stream = false) {
  return R"({"model":")" + model + R"(","stream":)" + (stream ? "true" : "false") +
         R"(,"messages":[{"role":"user","content":"ping"}]})";
}

inline HeaderList chatHeaders(std::string_view key = kGatewayKey) {
  HeaderList h;
  h.add("Authorization", "Bearer " + std::string(key));
  h.add("Content-Type", "application/json");
  return h;
}

/// One chat completion through the gateway on a fresh connection.
inline Result<Response> chat(std::uint16_t port, std::string const& model, HeaderList headers = chatHeaders()) {
  auto client = HttpClient::connect(port);
  if (!client) return client.error();
  return client->request("POST", "/v1/chat/completions", headers, chatBody(model));
}

/// Repeats `probe` every 20 ms until it returns true or `timeout` passes.
template <class Probe>
bool eventually(Probe probe, std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (probe()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return probe();
}

inline ChannelSpec chatChannel(std::string name, std::uint16_t mock_port, std::vector<std::string> models) {
  ChannelSpec c;
  c.name = std::move(name);
  c.protocol = Protocol::OpenAiChat;
  c.base_url = loopbackUrl(mock_port);
  c.keys = {"mock-key-" + c.name};
  c.models = std::move(models);
  return c;
}

}  // namespace llmux::e2e::lifecycle

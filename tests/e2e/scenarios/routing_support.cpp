#include "e2e/scenarios/routing_support.h"

#include <gtest/gtest.h>

namespace llmux::e2e::routing_scenarios {

using failover::ClientCall;

ClientCall adminCall(std::string method, std::string target, std::string body, std::string_view token) {
  ClientCall call;
  call.method = std::move(method);
  call.target = std::move(target);
  if (!token.empty()) call.headers.add("Authorization", "Bearer " + std::string(token));
  if (!body.empty()) call.headers.add("Content-Type", "application/json");
  call.body = std::move(body);
  return call;
}

boost::json::object adminJson(std::uint16_t port, std::string method, std::string target,
                              std::string body, Millis timeout) {
  auto answer = failover::callGateway(
      port, adminCall(std::move(method), std::move(target), std::move(body)), {}, timeout);
  EXPECT_TRUE(answer.ok()) << answer.error().message;
  if (!answer.ok()) return {};
  EXPECT_EQ(answer->status(), 200) << answer->body;
  auto doc = failover::parseObject(answer->body);
  EXPECT_TRUE(doc.ok()) << answer->body;
  return doc.ok() ? *doc : boost::json::object{};
}

std::vector<Attempt> attemptsOf(std::string const& access_log, std::string_view request_id) {
  std::vector<Attempt> out;
  auto line = failover::waitForAccessLine(access_log, request_id);
  EXPECT_TRUE(line.ok()) << line.error().message;
  if (!line.ok()) return out;
  for (auto const& value : line->at("attempt_list").as_array()) {
    auto const& a = value.as_object();
    int depth = a.contains("depth") ? static_cast<int>(a.at("depth").as_int64()) : 0;
    std::string model = a.contains("upstream_model") ? std::string(a.at("upstream_model").as_string()) : "";
    out.emplace_back(std::string(a.at("channel").as_string()), model, depth,
                     std::string(a.at("outcome").as_string()));
  }
  return out;
}

ClientCall chatCallWithTool(std::string_view model) {
  ClientCall call = failover::clientCall(Protocol::OpenAiChat, false, model);
  call.body = "{\"model\":\"" + std::string(model) +
              "\",\"messages\":[{\"role\":\"user\",\"content\":\"weather?\"}],"
              "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"get_weather\","
              "\"parameters\":{\"type\":\"object\",\"properties\":{}}}}]}";
  return call;
}

}  // namespace llmux::e2e::routing_scenarios

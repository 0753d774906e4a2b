// Accounting: one access-log line per request with the facts of that request, rows in the SQLite
// request log, and no secret (gateway key, channel keys) in any of them, in /metrics or in the
// gateway's own output.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <map>

#include "e2e/support/e2e_test.h"
#include "failover_helpers.h"
#include "passthrough_support.h"

namespace llmux::e2e {
namespace {

using namespace passthrough;

/// What one request of the standard traffic should leave in the logs.
struct Expected {
  std::string request_id;
  std::string route;
  std::string protocol;  ///< "" = not checked
  std::string gateway_key;
  std::string model;  ///< "" = not checked
  bool stream = false;
  std::string channel;
  std::string key_label;
  std::string upstream_model;  ///< of the one attempt, when there is one
  std::size_t attempts = 0;
  int status = 0;
  std::uint64_t bytes_in = 0;
  std::uint64_t bytes_out = 0;
};

/// The gateway configuration with an access-log file and a state directory in `dir`.
GatewayConfig loggingConfig(std::uint16_t mock_port, std::string const& dir) {
  GatewayConfig config = laneConfig(mock_port);
  config.extra_yaml = "log:\n  access_log: " + yamlQuote(dir + "/access.log") +
                      "\nstate_dir: " + yamlQuote(dir + "/state") + "\n";
  return config;
}

/// Sends a mix of requests (every protocol, streamed or not, aliases, refusals, a model list)
/// and returns what each should have logged. Fails the test if an answer is unexpected.
std::vector<Expected> sendStandardTraffic(std::uint16_t port) {
  std::vector<Expected> out;
  auto send = [&](Expected e, std::string_view method, std::string const& target,
                  HeaderList headers, std::string const& body) {
    if (!e.request_id.empty()) headers.add("X-Request-Id", e.request_id);
    auto response = call(port, method, target, headers, body);
    EXPECT_TRUE(response.ok()) << response.error().message;
    if (!response.ok()) return;
    EXPECT_EQ(response->status(), e.status) << target << ": " << response->body;
    std::string id(response->header("x-request-id"));
    if (!e.request_id.empty()) {
      EXPECT_EQ(id, e.request_id);
    }
    e.request_id = id;
    // A request refused on its head (a wrong key) has its body left unread.
    e.bytes_in = e.status == 401 ? 0 : body.size();
    e.bytes_out = response->body.size();
    out.push_back(std::move(e));
  };
  Lane const& chat = lane(Protocol::OpenAiChat);
  Lane const& resp = lane(Protocol::OpenAiResponses);
  Lane const& anth = lane(Protocol::Anthropic);
  Lane const& gem = lane(Protocol::Gemini);
  std::string const key(kGatewayKeyName);

  send({"acct-chat-1", "/v1/chat/completions", "openai-chat", key, chat.alias, false, chat.channel,
        chat.channel + "#0", chat.alias_target, 1, 200},
       "POST", "/v1/chat/completions", clientHeaders(Protocol::OpenAiChat),
       minimalBody(Protocol::OpenAiChat, chat.alias, false));
  send({"", "/v1/messages", "anthropic", key, anth.model, true, anth.channel, anth.channel + "#0",
        anth.model, 1, 200},
       "POST", "/v1/messages", clientHeaders(Protocol::Anthropic),
       minimalBody(Protocol::Anthropic, anth.model, true));
  send({"acct-gem-3", "/v1beta/models/{model}:streamGenerateContent", "gemini", key, gem.alias,
        true, gem.channel, gem.channel + "#0", gem.alias_target, 1, 200},
       "POST", generationTarget(Protocol::Gemini, gem.alias, true), clientHeaders(Protocol::Gemini),
       minimalBody(Protocol::Gemini, "", true));
  send({"", "/v1/responses", "openai-responses", key, resp.model, false, resp.channel,
        resp.channel + "#0", resp.model, 1, 200},
       "POST", "/v1/responses", clientHeaders(Protocol::OpenAiResponses),
       minimalBody(Protocol::OpenAiResponses, resp.model, false));
  send({"acct-404", "/v1/chat/completions", "openai-chat", key, "no-such-model", false, "", "", "",
        0, 404},
       "POST", "/v1/chat/completions", clientHeaders(Protocol::OpenAiChat),
       minimalBody(Protocol::OpenAiChat, "no-such-model", false));
  send({"acct-401", "/v1/messages", "anthropic", "", "", false, "", "", "", 0, 401}, "POST",
       "/v1/messages", clientHeaders(Protocol::Anthropic, "sk-wrong-gateway-key"),
       minimalBody(Protocol::Anthropic, anth.model, false));
  send({"", "/v1/messages/count_tokens", "anthropic", key, anth.alias, false, anth.channel,
        anth.channel + "#0", anth.alias_target, 1, 200},
       "POST", "/v1/messages/count_tokens", clientHeaders(Protocol::Anthropic),
       "{\"model\":\"" + anth.alias + "\",\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}]}");
  send({"acct-models", "/v1/models", "", key, "", false, "", "", "", 0, 200}, "GET", "/v1/models",
       clientHeaders(Protocol::OpenAiChat), "");
  return out;
}

/// Stops the gateway the way an operator does, so that its logs are flushed and closed.
void stopGateway(Server const& gateway) {
  // SIGINT: the same drain and flush as SIGTERM, without the lame-duck wait.
  ASSERT_TRUE(gateway.process->signal(SIGINT).ok());
  auto status = gateway.process->waitExit(Millis(10'000));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0);
}

std::vector<std::string> splitLines(std::string const& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    auto end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    if (end > at) lines.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  return lines;
}

std::string str(json::object const& o, std::string_view key) {
  auto const* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string("<missing>");
}

std::int64_t integer(json::object const& o, std::string_view key) {
  auto const* v = o.if_contains(key);
  return v != nullptr && v->is_int64() ? v->as_int64() : -1;
}

TEST_F(E2eTest, AccessLogHasOneLinePerRequestWithItsFacts) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(loggingConfig(mock->port, temp().path()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::vector<Expected> sent = sendStandardTraffic(gateway->port);
  ASSERT_EQ(sent.size(), 8u);
  auto metrics = call(gateway->port, "GET", "/metrics");
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  stopGateway(*gateway);

  std::string log = readFileBytes(temp().path() + "/access.log");
  auto lines = splitLines(log);
  ASSERT_EQ(lines.size(), sent.size()) << log;
  std::map<std::string, json::object> by_id;
  for (auto const& line : lines) {
    auto doc = parseJson(line);
    ASSERT_TRUE(doc && doc->is_object()) << line;
    std::string id = str(doc->as_object(), "request_id");
    EXPECT_EQ(by_id.count(id), 0u) << "two lines for " << id;
    by_id[id] = doc->as_object();
  }
  for (auto const& e : sent) {
    SCOPED_TRACE(e.route + " " + e.request_id);
    ASSERT_EQ(by_id.count(e.request_id), 1u) << log;
    json::object const& line = by_id[e.request_id];
    EXPECT_EQ(str(line, "route"), e.route);
    if (!e.protocol.empty()) {
      EXPECT_EQ(str(line, "protocol"), e.protocol);
    }
    EXPECT_EQ(str(line, "gateway_key"), e.gateway_key);
    if (!e.model.empty()) {
      EXPECT_EQ(str(line, "model"), e.model);
    }
    EXPECT_EQ(line.at("stream").as_bool(), e.stream);
    EXPECT_EQ(str(line, "channel"), e.channel);
    EXPECT_EQ(str(line, "key_label"), e.key_label);
    EXPECT_EQ(integer(line, "attempts"), static_cast<std::int64_t>(e.attempts));
    EXPECT_EQ(line.at("attempt_list").as_array().size(), e.attempts);
    EXPECT_EQ(integer(line, "status"), e.status);
    EXPECT_EQ(integer(line, "bytes_in"), static_cast<std::int64_t>(e.bytes_in));
    EXPECT_EQ(integer(line, "bytes_out"), static_cast<std::int64_t>(e.bytes_out));
    EXPECT_TRUE(line.at("total_ms").is_number());
    EXPECT_GE(line.at("total_ms").to_number<double>(), 0.0);
    if (e.attempts == 1) {
      auto const& attempt = line.at("attempt_list").as_array().at(0).as_object();
      EXPECT_EQ(str(attempt, "channel"), e.channel);
      EXPECT_EQ(str(attempt, "key_label"), e.key_label);
      EXPECT_EQ(integer(attempt, "status"), 200);
      EXPECT_EQ(str(attempt, "outcome"), "ok");
      EXPECT_TRUE(line.at("first_byte_ms").is_number());
    }
  }

  // No secret anywhere the gateway writes.
  auto secrets = allSecrets();
  secrets.push_back("sk-wrong-gateway-key");  // a presented wrong key is a secret too
  EXPECT_TRUE(holdsNoSecret("the access log", log, secrets));
  EXPECT_TRUE(holdsNoSecret("/metrics", metrics->body, secrets));
  EXPECT_TRUE(
      holdsNoSecret("the gateway's stdout", gateway->process->output(Stream::Stdout), secrets));
  EXPECT_TRUE(
      holdsNoSecret("the gateway's stderr", gateway->process->output(Stream::Stderr), secrets));
  for (auto const& entry : std::filesystem::directory_iterator(temp().path() + "/state")) {
    EXPECT_TRUE(holdsNoSecret(entry.path().filename().string(),
                              readFileBytes(entry.path().string()), secrets));
  }
}

TEST_F(E2eTest, RequestLogHoldsARowPerRequestAndPerAttempt) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(loggingConfig(mock->port, temp().path()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::vector<Expected> sent = sendStandardTraffic(gateway->port);
  ASSERT_EQ(sent.size(), 8u);

  // /metrics tells what the request log's writer did, from counts in memory: every request
  // written (the writer commits a few milliseconds later), none dropped, no failure, nothing
  // left in its queue.
  auto written = failover::waitForMetric(gateway->port, "llmux_request_log_records_written_total",
                                         {}, static_cast<double>(sent.size()));
  EXPECT_EQ(written, static_cast<double>(sent.size()));
  auto metrics = failover::fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_request_log_queue_depth", {}), 0.0) << *metrics;
  EXPECT_EQ(
      failover::metricValue(*metrics, "llmux_log_records_dropped_total", {{"sink", "request_log"}}),
      0.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_store_write_failures_total",
                                  {{"store", "request_log"}}),
            0.0);
  EXPECT_EQ(
      failover::metricValue(*metrics, "llmux_store_write_failures_total", {{"store", "freezes"}}),
      0.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_request_log_records_expired_total", {}), 0.0);
  stopGateway(*gateway);

  std::string db = temp().path() + "/state/llmux.db";
  ASSERT_TRUE(std::filesystem::exists(db));
  // Rows as JSON, read with the sqlite3 command-line shell; nullopt when it cannot run.
  auto rows = [&](std::string const& sql) -> std::optional<json::array> {
    auto shell = spawn(ChildOptions{"sqlite3", {"-json", "-readonly", db, sql}});
    if (!shell.ok()) return std::nullopt;
    auto status = (*shell)->waitExit(Millis(10'000));
    if (!status.ok() || status->code != 0) return std::nullopt;
    std::string out = (*shell)->output();
    if (out.find_first_not_of(" \r\n") == std::string::npos) return json::array();
    auto doc = parseJson(out);
    if (!doc || !doc->is_array()) return std::nullopt;
    return doc->as_array();
  };
  auto requests = rows(
      "SELECT id, route, client_protocol, gateway_key, model, stream, channel, key_label, status, "
      "bytes_in, bytes_out FROM requests ORDER BY seq");
  ASSERT_TRUE(requests) << "reading llmux.db needs the sqlite3 shell (scripts/bootstrap installs it)";
  ASSERT_EQ(requests->size(), sent.size());
  auto attempts = rows(
      "SELECT request_id, attempt, channel, key_label, upstream_model, status, outcome "
      "FROM attempts ORDER BY request_seq, attempt");
  ASSERT_TRUE(attempts.has_value());

  std::size_t expected_attempts = 0;
  for (auto const& e : sent) {
    SCOPED_TRACE(e.route + " " + e.request_id);
    expected_attempts += e.attempts;
    json::object const* row = nullptr;
    for (auto const& r : *requests) {
      if (r.at("id").as_string() == e.request_id) row = &r.as_object();
    }
    ASSERT_NE(row, nullptr) << json::serialize(*requests);
    EXPECT_EQ(str(*row, "route"), e.route);
    if (!e.protocol.empty()) {
      EXPECT_EQ(str(*row, "client_protocol"), e.protocol);
    }
    EXPECT_EQ(str(*row, "gateway_key"), e.gateway_key);
    if (!e.model.empty()) {
      EXPECT_EQ(str(*row, "model"), e.model);
    }
    EXPECT_EQ(integer(*row, "stream"), e.stream ? 1 : 0);
    EXPECT_EQ(str(*row, "channel"), e.channel);
    EXPECT_EQ(str(*row, "key_label"), e.key_label);
    EXPECT_EQ(integer(*row, "status"), e.status);
    EXPECT_EQ(integer(*row, "bytes_in"), static_cast<std::int64_t>(e.bytes_in));
    EXPECT_EQ(integer(*row, "bytes_out"), static_cast<std::int64_t>(e.bytes_out));
    std::size_t found = 0;
    for (auto const& a : *attempts) {
      auto const& o = a.as_object();
      if (o.at("request_id").as_string() != e.request_id) continue;
      ++found;
      EXPECT_EQ(str(o, "channel"), e.channel);
      EXPECT_EQ(str(o, "key_label"), e.key_label);
      EXPECT_EQ(str(o, "upstream_model"), e.upstream_model);
      EXPECT_EQ(integer(o, "status"), 200);
      EXPECT_EQ(str(o, "outcome"), "ok");
    }
    EXPECT_EQ(found, e.attempts);
  }
  EXPECT_EQ(attempts->size(), expected_attempts);

  auto dump = rows("SELECT * FROM requests");
  ASSERT_TRUE(dump.has_value());
  auto all_attempts = rows("SELECT * FROM attempts");
  ASSERT_TRUE(all_attempts.has_value());
  auto secrets = allSecrets();
  secrets.push_back("sk-wrong-gateway-key");
  EXPECT_TRUE(holdsNoSecret("requests", json::serialize(*dump), secrets));
  EXPECT_TRUE(holdsNoSecret("attempts", json::serialize(*all_attempts), secrets));
}

}  // namespace
}  // namespace llmux::e2e

#include "e2e/scenarios/failover_helpers.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/strings.h"

namespace llmux::e2e::failover {
namespace json = boost::json;

namespace {

// The user text carries an escaped quote, a \u escape, raw UTF-8 and a newline escape: a gateway
// that re-serialised the body would change at least one of them.
constexpr std::string_view kUserText = R"(Caf\u00e9 \"quoted\" é\n  end)";

std::string stringAt(json::object const& o, std::string_view key) {
  auto const* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string();
}

Result<std::string> simpleGet(std::uint16_t port, std::string_view method,
                              std::string_view target) {
  auto client = HttpClient::connect(port, Millis(2000));
  if (!client) return client.takeError();
  auto response = client->request(method, target, {}, {}, Millis(3000));
  if (!response) return response.takeError();
  if (response->status() != 200) {
    return makeError(ErrorKind::UpstreamStatus, std::string(method) + " " + std::string(target) +
                                                    " answered " +
                                                    std::to_string(response->status()));
  }
  return std::move(response->body);
}

}  // namespace

std::string shortName(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return "chat";
    case Protocol::OpenAiResponses:
      return "responses";
    case Protocol::Anthropic:
      return "anthropic";
    case Protocol::Gemini:
      return "gemini";
  }
  return "unknown";
}

ClientCall clientCall(Protocol protocol, bool stream, std::string_view model) {
  ClientCall call;
  std::string m(model);
  std::string text(kUserText);
  std::string stream_field = stream ? ",  \"stream\" :true" : "";
  call.headers.add("Content-Type", "application/json");
  switch (protocol) {
    case Protocol::OpenAiChat:
      call.target = "/v1/chat/completions";
      call.headers.add("Authorization", std::string("Bearer ") + kGatewayKey);
      call.body = "{ \"model\" : \"" + m +
                  "\",\n  \"messages\":[{\"role\":\"user\",\"content\":\"" + text + "\"}]" +
                  stream_field + " }";
      break;
    case Protocol::OpenAiResponses:
      call.target = "/v1/responses";
      call.headers.add("Authorization", std::string("Bearer ") + kGatewayKey);
      call.body = "{\"model\":  \"" + m + "\" , \"input\":\"" + text + "\"" + stream_field + "}";
      break;
    case Protocol::Anthropic:
      call.target = "/v1/messages";
      call.headers.add("x-api-key", kGatewayKey);
      call.headers.add("anthropic-version", "2023-06-01");
      call.body = "{\"model\":\"" + m + "\", \"max_tokens\": 64,\n \"messages\": [ {\"role\": " +
                  "\"user\", \"content\": \"" + text + "\"} ]" + stream_field + "}";
      break;
    case Protocol::Gemini:
      call.target =
          "/v1beta/models/" + m + (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
      call.headers.add("x-goog-api-key", kGatewayKey);
      call.body =
          "{ \"contents\": [{\"role\":\"user\",\"parts\":[{\"text\": \"" + text + "\"}]}] }";
      break;
  }
  return call;
}

Result<Response> callGateway(std::uint16_t port, ClientCall const& call,
                             std::string_view request_id, Millis timeout) {
  auto client = HttpClient::connect(port, Millis(2000));
  if (!client) return client.takeError();
  HeaderList headers = call.headers;
  if (!request_id.empty()) headers.add("X-Request-Id", request_id);
  return client->request(call.method, call.target, headers, call.body, timeout);
}

ChannelSpec channel(std::string name, Protocol protocol, std::string base_url,
                    std::vector<std::string> keys, int priority) {
  ChannelSpec spec;
  spec.name = std::move(name);
  spec.protocol = protocol;
  spec.base_url = std::move(base_url);
  spec.keys = std::move(keys);
  spec.models = {kModel};
  spec.priority = priority;
  return spec;
}

GatewayConfig gatewayConfig(std::vector<ChannelSpec> channels, std::string const& access_log) {
  GatewayConfig config;
  // Sequential: these scenarios follow failover step by step, in configuration order (the scored
  // strategies order equal candidates at random).
  config.gateway_keys = {{"failover-client", kGatewayKey, "sequential"}};
  config.channels = std::move(channels);
  config.extra_yaml = "log:\n  access_log: " + yamlQuote(access_log) + "\n";
  return config;
}

Result<std::string> fetchMetrics(std::uint16_t gateway_port) {
  return simpleGet(gateway_port, "GET", "/metrics");
}

std::optional<double> metricValue(std::string_view text, std::string_view name,
                                  std::vector<std::pair<std::string, std::string>> const& labels) {
  std::optional<double> total;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (!line.starts_with(name)) continue;
    std::string_view rest = std::string_view(line).substr(name.size());
    std::string_view label_text;
    if (!rest.empty() && rest[0] == '{') {
      auto close = rest.find("} ");
      if (close == std::string_view::npos) continue;
      label_text = rest.substr(1, close - 1);
      rest = rest.substr(close + 1);
    }
    if (rest.empty() || rest[0] != ' ') continue;  // another metric with this name as a prefix
    bool all = true;
    for (auto const& [label, value] : labels) {
      std::string wanted = label + "=\"" + value + "\"";
      auto pos = label_text.find(wanted);
      bool at_boundary = pos != std::string_view::npos && (pos == 0 || label_text[pos - 1] == ',');
      all = all && at_boundary;
    }
    if (!all) continue;
    std::string number(rest.substr(1));
    total = total.value_or(0) + std::stod(number);
  }
  return total;
}

std::optional<double> waitForMetric(std::uint16_t gateway_port, std::string_view name,
                                    std::vector<std::pair<std::string, std::string>> const& labels,
                                    double expected, Millis timeout) {
  MonoTime deadline = MonoClock::now() + timeout;
  std::optional<double> value;
  for (;;) {
    auto text = fetchMetrics(gateway_port);
    if (text) value = metricValue(*text, name, labels);
    if ((value && *value == expected) || MonoClock::now() >= deadline) return value;
    std::this_thread::sleep_for(Millis(20));
  }
}

Result<json::object> waitForAccessLine(std::string const& path, std::string_view request_id,
                                       Millis timeout) {
  MonoTime deadline = MonoClock::now() + timeout;
  for (;;) {
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
      auto parsed = parseObject(line);
      if (parsed && stringAt(*parsed, "request_id") == request_id) return parsed;
    }
    if (MonoClock::now() >= deadline) {
      return makeError(ErrorKind::Timeout,
                       "no access-log line for request " + std::string(request_id));
    }
    std::this_thread::sleep_for(Millis(20));
  }
}

Result<json::object> parseObject(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec)
    return makeError(ErrorKind::InvalidRequest, "not JSON: " + std::string(text.substr(0, 300)));
  if (!v.is_object())
    return makeError(ErrorKind::InvalidRequest, "not a JSON object: " + std::string(text));
  return std::move(v.as_object());
}

Result<std::string> errorMessageOf(Protocol protocol, int status, std::string_view body) {
  auto doc = parseObject(body);
  if (!doc) return doc.takeError();
  auto fail = [&](std::string what) {
    return makeError(ErrorKind::InvalidRequest, what + " in " + std::string(body));
  };
  auto const* error = doc->if_contains("error");
  if (!error || !error->is_object()) return fail("no error object");
  auto const& e = error->as_object();
  auto const* message = e.if_contains("message");
  if (!message || !message->is_string()) return fail("no error.message string");
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses:
      if (!e.contains("type") || !e.at("type").is_string()) return fail("no error.type string");
      if (!e.contains("param")) return fail("no error.param");
      if (!e.contains("code")) return fail("no error.code");
      break;
    case Protocol::Anthropic:
      if (stringAt(*doc, "type") != "error") return fail("type is not \"error\"");
      if (!e.contains("type") || !e.at("type").is_string()) return fail("no error.type string");
      break;
    case Protocol::Gemini:
      if (!e.contains("code") || !e.at("code").is_int64() || e.at("code").as_int64() != status) {
        return fail("error.code is not " + std::to_string(status));
      }
      if (stringAt(e, "status").empty()) return fail("no error.status string");
      break;
  }
  return std::string(message->as_string());
}

double wallNowMs() {
  return std::chrono::duration<double, std::milli>(WallClock::now().time_since_epoch()).count();
}

}  // namespace llmux::e2e::failover

#include "passthrough_support.h"

#include <fstream>
#include <sstream>

#include "core/json_text.h"
#include "core/strings.h"
#include "e2e/support/sse_reader.h"

namespace llmux::e2e::passthrough {
namespace {

std::vector<Lane> const& lanes() {
  static std::vector<Lane> const kLanes = {
      {Protocol::OpenAiChat, "chat-main", "sk-up-chat-8b2e41", "gpt-4o-mini", "fast",
       "gpt-4o-mini-2024-07-18"},
      {Protocol::OpenAiResponses, "responses-main", "sk-up-resp-3f9a07", "gpt-5", "smart",
       "gpt-5-2025-08-07"},
      {Protocol::Anthropic, "anthropic-main", "sk-ant-up-c61d55", "claude-sonnet-4-5", "sonnet",
       "claude-sonnet-4-5-20250929"},
      {Protocol::Gemini, "gemini-main", "AIzaUpGem0d4e2b9", "gemini-2.5-flash", "flash",
       "gemini-2.5-flash-preview-09-2025"},
  };
  return kLanes;
}

std::string stringAt(json::object const& o, std::string_view key) {
  auto const* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

std::string memberNames(json::object const& o) {
  std::string out;
  for (auto const& kv : o) {
    if (!out.empty()) out += ",";
    out += std::string(kv.key());
  }
  return out;
}

}  // namespace

Lane const& lane(Protocol protocol) {
  for (auto const& l : lanes()) {
    if (l.protocol == protocol) return l;
  }
  return lanes().front();
}

std::vector<std::string> allSecrets() {
  std::vector<std::string> out{std::string(kGatewayKey)};
  for (auto const& l : lanes()) out.push_back(l.channel_key);
  return out;
}

ChannelSpec laneChannel(Lane const& l, std::uint16_t mock_port) {
  ChannelSpec channel;
  channel.name = l.channel;
  channel.protocol = l.protocol;
  channel.base_url = loopbackUrl(mock_port);
  channel.keys = {l.channel_key};
  channel.models = {l.model};
  channel.model_map = {{l.alias, l.alias_target}};
  return channel;
}

GatewayConfig laneConfig(std::uint16_t mock_port) {
  GatewayConfig config;
  config.gateway_keys = {{std::string(kGatewayKeyName), std::string(kGatewayKey)}};
  for (auto const& l : lanes()) config.channels.push_back(laneChannel(l, mock_port));
  return config;
}

HeaderList clientHeaders(Protocol protocol, std::string_view key) {
  HeaderList headers;
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses:
      if (!key.empty()) headers.add("Authorization", "Bearer " + std::string(key));
      break;
    case Protocol::Anthropic:
      if (!key.empty()) headers.add("x-api-key", key);
      headers.add("anthropic-version", "2023-06-01");
      break;
    case Protocol::Gemini:
      if (!key.empty()) headers.add("x-goog-api-key", key);
      break;
  }
  headers.add("Content-Type", "application/json");
  return headers;
}

std::string generationTarget(Protocol protocol, std::string_view model, bool stream) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return "/v1/chat/completions";
    case Protocol::OpenAiResponses:
      return "/v1/responses";
    case Protocol::Anthropic:
      return "/v1/messages";
    case Protocol::Gemini:
      return "/v1beta/models/" + std::string(model) +
             (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
  }
  return "/";
}

std::string upstreamPath(Protocol protocol, std::string_view upstream_model, bool stream) {
  std::string target = generationTarget(protocol, upstream_model, stream);
  return target.substr(0, target.find('?'));
}

std::string minimalBody(Protocol protocol, std::string_view model, bool stream,
                        std::string_view text) {
  std::string m = jsonQuote(model);
  std::string t = jsonQuote(text);
  std::string s = stream ? ",\"stream\":true" : "";
  switch (protocol) {
    case Protocol::OpenAiChat:
      return "{\"model\":" + m + ",\"messages\":[{\"role\":\"user\",\"content\":" + t + "}]" + s +
             "}";
    case Protocol::OpenAiResponses:
      return "{\"model\":" + m + ",\"input\":" + t + s + "}";
    case Protocol::Anthropic:
      return "{\"model\":" + m + ",\"max_tokens\":256,\"messages\":[{\"role\":\"user\"," +
             "\"content\":" + t + "}]" + s + "}";
    case Protocol::Gemini:
      return "{\"contents\":[{\"role\":\"user\",\"parts\":[{\"text\":" + t + "}]}]}";
  }
  return "{}";
}

Result<Response> call(std::uint16_t port, std::string_view method, std::string_view target,
                      HeaderList const& headers, std::string_view body, Millis timeout) {
  auto client = HttpClient::connect(port);
  if (!client) return client.takeError();
  return client->request(method, target, headers, body, timeout);
}

std::optional<json::value> parseJson(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return std::nullopt;
  return v;
}

std::vector<protocol::SseEvent> sseEvents(std::string_view body) { return e2e::sseEventsOf(body); }

::testing::AssertionResult isProtocolError(Protocol protocol, int status, Response const& response,
                                           ErrorBody* out) {
  auto fail = [&](std::string const& why) {
    return ::testing::AssertionFailure()
           << why << " (status " << response.status() << ", body " << response.body << ")";
  };
  if (response.status() != status) return fail("expected status " + std::to_string(status));
  if (response.header("content-type").find("application/json") == std::string_view::npos) {
    return fail("content-type is '" + std::string(response.header("content-type")) + "'");
  }
  auto doc = parseJson(response.body);
  if (!doc || !doc->is_object()) return fail("the body is not a JSON object");
  auto const& root = doc->as_object();
  ErrorBody body;
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::OpenAiResponses: {
      if (memberNames(root) != "error") return fail("OpenAI errors hold only \"error\"");
      auto const* e = root.at("error").if_object();
      if (e == nullptr || memberNames(*e) != "message,type,param,code") {
        return fail("OpenAI error object must be {message,type,param,code}");
      }
      if (!e->at("message").is_string() || !e->at("type").is_string()) {
        return fail("OpenAI message and type must be strings");
      }
      if (!e->at("param").is_null() && !e->at("param").is_string()) return fail("bad param");
      if (!e->at("code").is_null() && !e->at("code").is_string()) return fail("bad code");
      body.type = stringAt(*e, "type");
      body.code = stringAt(*e, "code");
      body.message = stringAt(*e, "message");
      break;
    }
    case Protocol::Anthropic: {
      std::string keys = memberNames(root);
      if (keys != "type,error" && keys != "type,error,request_id") {
        return fail("Anthropic errors are {type,error[,request_id]}, got keys " + keys);
      }
      if (stringAt(root, "type") != "error") return fail("Anthropic type must be \"error\"");
      auto const* e = root.at("error").if_object();
      if (e == nullptr || memberNames(*e) != "type,message" || !e->at("type").is_string() ||
          !e->at("message").is_string()) {
        return fail("Anthropic error object must be {type,message} strings");
      }
      body.type = stringAt(*e, "type");
      body.message = stringAt(*e, "message");
      break;
    }
    case Protocol::Gemini: {
      if (memberNames(root) != "error") return fail("Gemini errors hold only \"error\"");
      auto const* e = root.at("error").if_object();
      if (e == nullptr) return fail("Gemini error must be an object");
      std::string keys = memberNames(*e);
      if (keys != "code,message,status" && keys != "code,message,status,details") {
        return fail("Gemini error object must be {code,message,status[,details]}, got " + keys);
      }
      if (!e->at("code").is_int64() || e->at("code").as_int64() != status) {
        return fail("Gemini error.code must be the HTTP status");
      }
      if (!e->at("message").is_string() || !e->at("status").is_string()) {
        return fail("Gemini message and status must be strings");
      }
      body.type = stringAt(*e, "status");
      body.message = stringAt(*e, "message");
      break;
    }
  }
  if (body.message.empty()) return fail("the error message is empty");
  if (out != nullptr) *out = std::move(body);
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult holdsNoSecret(std::string_view what, std::string_view text,
                                         std::vector<std::string> const& secrets) {
  for (auto const& secret : secrets) {
    auto pos = text.find(secret);
    if (pos != std::string_view::npos) {
      std::size_t from = pos > 80 ? pos - 80 : 0;
      return ::testing::AssertionFailure() << what << " contains the secret '" << secret
                                           << "' near: " << text.substr(from, secret.size() + 160);
    }
  }
  return ::testing::AssertionSuccess();
}

std::string readFileBytes(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

}  // namespace llmux::e2e::passthrough

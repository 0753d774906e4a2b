#include "proxy/probe_scenario.h"

#include <boost/json.hpp>

#include "core/json_text.h"
#include "protocol/sse_parser.h"

namespace llmux::proxy {
namespace json = boost::json;
namespace {

using config::BuiltinProbe;

// Short prompts: a probe should cost the upstream account next to nothing.
constexpr std::string_view kPrompt = "Reply with the single word OK.";
constexpr std::string_view kToolName = "get_weather";
constexpr std::string_view kToolDescription = "The current weather of a city.";
constexpr std::string_view kToolSchema =
    R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"]})";

std::string quoted(std::string_view text) { return jsonQuote(text); }

/// The conversation of a scenario as the protocol's message list ("contents" for Gemini).
std::string messages(Protocol protocol, bool multi_turn) {
  auto turn = [&](std::string_view role, std::string_view text) {
    if (protocol == Protocol::Gemini) {
      std::string_view gemini_role = role == "assistant" ? "model" : "user";
      return R"({"role":)" + quoted(gemini_role) + R"(,"parts":[{"text":)" + quoted(text) + "}]}";
    }
    return R"({"role":)" + quoted(role) + R"(,"content":)" + quoted(text) + "}";
  };
  if (!multi_turn) return "[" + turn("user", kPrompt) + "]";
  return "[" + turn("user", "Remember the word BLUE.") + "," +
         turn("assistant", "I will remember BLUE.") + "," +
         turn("user", "Which word did I ask you to remember? Answer with it only.") + "]";
}

/// The tool list and a choice forcing it, as the protocol's members (",..." appended to a body).
std::string forcedTool(Protocol protocol) {
  std::string name = quoted(kToolName);
  std::string description = quoted(kToolDescription);
  switch (protocol) {
    case Protocol::OpenAiChat:
      return R"(,"tools":[{"type":"function","function":{"name":)" + name + R"(,"description":)" +
             description + R"(,"parameters":)" + std::string(kToolSchema) +
             R"(}}],"tool_choice":{"type":"function","function":{"name":)" + name + "}}";
    case Protocol::OpenAiResponses:
      return R"(,"tools":[{"type":"function","name":)" + name + R"(,"description":)" + description +
             R"(,"parameters":)" + std::string(kToolSchema) +
             R"(}],"tool_choice":{"type":"function","name":)" + name + "}";
    case Protocol::Anthropic:
      return R"(,"tools":[{"name":)" + name + R"(,"description":)" + description +
             R"(,"input_schema":)" + std::string(kToolSchema) +
             R"(}],"tool_choice":{"type":"tool","name":)" + name + "}";
    case Protocol::Gemini:
      return R"(,"tools":[{"functionDeclarations":[{"name":)" + name + R"(,"description":)" +
             description + R"(,"parameters":)" + std::string(kToolSchema) +
             R"(}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":[)" +
             name + "]}}";
  }
  return {};
}

/// The members asking for reasoning that comes back visibly.
std::string reasoningAsk(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat: return R"(,"reasoning_effort":"low")";
    case Protocol::OpenAiResponses: return R"(,"reasoning":{"effort":"low","summary":"auto"})";
    case Protocol::Anthropic: return R"(,"thinking":{"type":"enabled","budget_tokens":1024})";
    case Protocol::Gemini:
      return R"(,"generationConfig":{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}})";
  }
  return {};
}

std::string clientPath(Protocol protocol, std::string const& model, bool stream) {
  switch (protocol) {
    case Protocol::OpenAiChat: return "/v1/chat/completions";
    case Protocol::OpenAiResponses: return "/v1/responses";
    case Protocol::Anthropic: return "/v1/messages";
    case Protocol::Gemini:
      return "/v1beta/models/" + model +
             (stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
  }
  return {};
}

HeaderList jsonHeaders(Protocol protocol) {
  HeaderList headers;
  headers.add("Content-Type", "application/json");
  if (protocol == Protocol::Anthropic) headers.add("anthropic-version", "2023-06-01");
  return headers;
}

ProbeCall chatCall(BuiltinProbe probe, Protocol protocol, std::string const& model) {
  ProbeCall call;
  call.stream = probe == BuiltinProbe::Stream;
  call.target = clientPath(protocol, model, call.stream);
  call.headers = jsonHeaders(protocol);
  bool thinking = probe == BuiltinProbe::Thinking;
  std::string body = "{";
  if (protocol != Protocol::Gemini) body += R"("model":)" + quoted(model) + ",";
  std::string conversation = messages(protocol, probe == BuiltinProbe::MultiTurn);
  switch (protocol) {
    case Protocol::OpenAiChat: body += R"("messages":)" + conversation; break;
    case Protocol::OpenAiResponses: body += R"("input":)" + conversation; break;
    case Protocol::Anthropic:
      // A thinking budget must fit below max_tokens.
      body += R"("max_tokens":)" + std::string(thinking ? "2048" : "64") + R"(,"messages":)" + conversation;
      break;
    case Protocol::Gemini: body += R"("contents":)" + conversation; break;
  }
  if (call.stream && protocol != Protocol::Gemini) body += R"(,"stream":true)";
  if (probe == BuiltinProbe::Tools) body += forcedTool(protocol);
  if (thinking) body += reasoningAsk(protocol);
  body += "}";
  call.body = std::move(body);
  return call;
}

ProbeCall mediaCall(BuiltinProbe probe, std::string const& model) {
  ProbeCall call;
  call.headers = jsonHeaders(Protocol::OpenAiChat);
  std::string m = quoted(model);
  switch (probe) {
    case BuiltinProbe::Image:
      call.target = "/v1/images/generations";
      call.body = R"({"model":)" + m + R"(,"prompt":"A small red square.","n":1})";
      break;
    case BuiltinProbe::Video:
      call.target = "/v1/videos";
      call.body = R"({"model":)" + m + R"(,"prompt":"A red square turning slowly.","seconds":"4"})";
      break;
    default:
      call.target = "/v1/audio/speech";
      call.body = R"({"model":)" + m + R"(,"input":"OK","voice":"alloy"})";
      break;
  }
  return call;
}

/// `body` with `"model": <model>` first, unless it names one already (a custom scenario's body).
std::string withModel(std::string const& body, std::string const& model) {
  json::error_code ec;
  json::value parsed = json::parse(body, ec);
  if (ec || !parsed.is_object()) return body;
  json::object& object = parsed.as_object();
  object["model"] = model;
  return json::serialize(object);
}

json::value parseJson(std::string_view text) {
  json::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) return nullptr;
  return value;
}

json::value const* member(json::value const* value, std::string_view key) {
  if (value == nullptr || !value->is_object()) return nullptr;
  return value->as_object().if_contains(key);
}
json::value const* element(json::value const* value, std::size_t index) {
  if (value == nullptr || !value->is_array() || value->as_array().size() <= index) return nullptr;
  return &value->as_array()[index];
}
bool nonEmptyString(json::value const* value) {
  return value != nullptr && value->is_string() && !value->as_string().empty();
}
std::string_view stringOf(json::value const* value) {
  return value != nullptr && value->is_string() ? std::string_view(value->as_string()) : std::string_view();
}
json::array const* arrayOf(json::value const* value) {
  return value != nullptr && value->is_array() ? &value->as_array() : nullptr;
}

/// What an answer showed, summed over a whole document or every event of a stream.
struct Seen {
  bool text = false;
  bool tool_call = false;  ///< of kToolName
  bool reasoning = false;
};

void readGeminiParts(json::value const& doc, Seen& seen) {
  auto const* parts = arrayOf(member(member(element(member(&doc, "candidates"), 0), "content"), "parts"));
  if (parts == nullptr) return;
  for (auto const& part : *parts) {
    json::value const* thought = member(&part, "thought");
    bool is_thought = thought != nullptr && thought->is_bool() && thought->get_bool();
    if (nonEmptyString(member(&part, "text"))) (is_thought ? seen.reasoning : seen.text) = true;
    if (stringOf(member(member(&part, "functionCall"), "name")) == kToolName) seen.tool_call = true;
  }
}

/// A whole (non-streamed) answer.
void readDocument(Protocol protocol, json::value const& doc, Seen& seen) {
  switch (protocol) {
    case Protocol::OpenAiChat: {
      json::value const* message = member(element(member(&doc, "choices"), 0), "message");
      seen.text = nonEmptyString(member(message, "content"));
      // Relays show the reasoning (DeepSeek's reasoning_content); OpenAI itself only counts it.
      json::value const* reasoning_tokens =
          member(member(member(&doc, "usage"), "completion_tokens_details"), "reasoning_tokens");
      seen.reasoning = nonEmptyString(member(message, "reasoning_content")) ||
                       nonEmptyString(member(message, "reasoning")) ||
                       (reasoning_tokens != nullptr && reasoning_tokens->is_int64() &&
                        reasoning_tokens->get_int64() > 0);
      json::value const* call = member(element(member(message, "tool_calls"), 0), "function");
      seen.tool_call = stringOf(member(call, "name")) == kToolName;
      return;
    }
    case Protocol::OpenAiResponses: {
      auto const* output = arrayOf(member(&doc, "output"));
      if (output == nullptr) return;
      for (auto const& item : *output) {
        std::string_view type = stringOf(member(&item, "type"));
        if (type == "reasoning") seen.reasoning = true;
        if (type == "function_call" && stringOf(member(&item, "name")) == kToolName) seen.tool_call = true;
        if (type != "message") continue;
        if (auto const* content = arrayOf(member(&item, "content"))) {
          for (auto const& part : *content) {
            if (nonEmptyString(member(&part, "text"))) seen.text = true;
          }
        }
      }
      return;
    }
    case Protocol::Anthropic: {
      auto const* content = arrayOf(member(&doc, "content"));
      if (content == nullptr) return;
      for (auto const& block : *content) {
        std::string_view type = stringOf(member(&block, "type"));
        if (type == "text" && nonEmptyString(member(&block, "text"))) seen.text = true;
        if (type == "thinking") seen.reasoning = true;
        if (type == "tool_use" && stringOf(member(&block, "name")) == kToolName) seen.tool_call = true;
      }
      return;
    }
    case Protocol::Gemini: readGeminiParts(doc, seen); return;
  }
}

/// One event of a stream.
void readStreamEvent(Protocol protocol, json::value const& event, Seen& seen) {
  switch (protocol) {
    case Protocol::OpenAiChat: {
      json::value const* delta = member(element(member(&event, "choices"), 0), "delta");
      if (nonEmptyString(member(delta, "content"))) seen.text = true;
      if (nonEmptyString(member(delta, "reasoning_content"))) seen.reasoning = true;
      return;
    }
    case Protocol::OpenAiResponses: {
      std::string_view type = stringOf(member(&event, "type"));
      if (type == "response.output_text.delta" && nonEmptyString(member(&event, "delta"))) seen.text = true;
      return;
    }
    case Protocol::Anthropic: {
      json::value const* delta = member(&event, "delta");
      if (stringOf(member(&event, "type")) == "content_block_delta" &&
          stringOf(member(delta, "type")) == "text_delta" && nonEmptyString(member(delta, "text"))) {
        seen.text = true;
      }
      return;
    }
    case Protocol::Gemini: readGeminiParts(event, seen); return;
  }
}

ProbeVerdict failed(std::string reason) { return {false, std::move(reason)}; }

ProbeVerdict judgeBuiltin(BuiltinProbe probe, Protocol protocol, std::string_view content_type,
                          std::string_view body) {
  if (probe == BuiltinProbe::Speech) {
    if (body.empty()) return failed("no audio bytes in the answer");
    if (content_type.find("json") != std::string_view::npos) return failed("a JSON answer, not audio");
    return {true, {}};
  }
  Seen seen;
  if (probe == BuiltinProbe::Stream) {
    protocol::SseParser parser;
    std::vector<protocol::SseEvent> events;
    parser.feed(body, events);
    parser.finish(events);
    for (auto const& event : events) {
      if (event.data.empty() || event.data == "[DONE]") continue;
      json::value parsed = parseJson(event.data);
      if (!parsed.is_null()) readStreamEvent(protocol, parsed, seen);
    }
    if (events.empty()) return failed("no server-sent events in the answer");
    return seen.text ? ProbeVerdict{true, {}} : failed("the stream carried no content");
  }
  json::value doc = parseJson(body);
  if (!doc.is_object()) return failed("the answer is not a JSON object");
  switch (probe) {
    case BuiltinProbe::Image: {
      json::value const* first = element(member(&doc, "data"), 0);
      bool image = nonEmptyString(member(first, "b64_json")) || nonEmptyString(member(first, "url"));
      return image ? ProbeVerdict{true, {}} : failed("no image in the answer's data");
    }
    case BuiltinProbe::Video:
      return nonEmptyString(member(&doc, "id")) ? ProbeVerdict{true, {}} : failed("no video job id in the answer");
    default: break;
  }
  readDocument(protocol, doc, seen);
  switch (probe) {
    case BuiltinProbe::Tools:
      return seen.tool_call ? ProbeVerdict{true, {}} : failed("the forced tool call did not come back");
    case BuiltinProbe::Thinking:
      return seen.reasoning ? ProbeVerdict{true, {}} : failed("no reasoning content in the answer");
    default:
      return seen.text ? ProbeVerdict{true, {}} : failed("no text in the answer");
  }
}

/// `value` as `equals` is written: a string's own text, anything else as JSON.
std::string comparable(json::value const& value) {
  if (value.is_string()) return std::string(value.as_string());
  return json::serialize(value);
}

ProbeVerdict judgeCustom(config::CustomProbeScenario const& scenario, std::string_view body) {
  if (!scenario.pointer.empty()) {
    json::value doc = parseJson(body);
    json::error_code ec;
    json::value const* found = doc.find_pointer(scenario.pointer, ec);
    if (found == nullptr) return failed("nothing at " + scenario.pointer + " in the answer");
    if (scenario.equals && comparable(*found) != *scenario.equals) {
      return failed("the value at " + scenario.pointer + " is not the expected one");
    }
  }
  if (!scenario.contains.empty() && body.find(scenario.contains) == std::string_view::npos) {
    return failed("the answer does not contain the expected text");
  }
  return {true, {}};
}

}  // namespace

std::optional<ProbeScenario> ProbeScenario::named(std::string_view name,
                                                  config::ProbeSettings const& probes) {
  if (auto builtin = config::parseBuiltinProbe(name)) {
    return ProbeScenario{std::string(name), builtin, nullptr};
  }
  if (auto const* custom = probes.customNamed(name)) return ProbeScenario{std::string(name), {}, custom};
  return std::nullopt;
}

ProbeCall probeCall(ProbeScenario const& scenario, Protocol protocol, std::string const& model) {
  if (scenario.custom) {
    config::CustomProbeScenario const& custom = *scenario.custom;
    ProbeCall call;
    call.stream = custom.stream;
    call.target = clientPath(custom.protocol, model, custom.stream);
    call.headers = jsonHeaders(custom.protocol);
    call.body = custom.protocol == Protocol::Gemini ? custom.body : withModel(custom.body, model);
    return call;
  }
  if (config::probeModality(*scenario.builtin)) return mediaCall(*scenario.builtin, model);
  return chatCall(*scenario.builtin, protocol, model);
}

ProbeVerdict judgeProbe(ProbeScenario const& scenario, Protocol protocol, int status,
                        std::string_view content_type, std::string_view body) {
  if (scenario.custom) {
    if (status < scenario.custom->status_min || status > scenario.custom->status_max) {
      return failed("status " + std::to_string(status));
    }
    return judgeCustom(*scenario.custom, body);
  }
  if (status < 200 || status > 299) return failed("status " + std::to_string(status));
  return judgeBuiltin(*scenario.builtin, protocol, content_type, body);
}

}  // namespace llmux::proxy

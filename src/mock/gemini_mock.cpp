// Gemini generateContent / streamGenerateContent (REFERENCE §4): validation, then the answer as
// one GenerateContentResponse, as SSE chunks (`data: ...\r\n\r\n`, Google's `"key": value`
// spacing) or as one JSON array sent piece by piece. Layout follows the Gemini 3 recordings
// (fx:gemini/pydantic-ai--sse_function_call_thought_signature.*, llm-gemini--stream_json_array_*).
// Requests may spell fields in camelCase or snake_case; answers are camelCase.
#include <boost/json/parse.hpp>
#include <string>
#include <vector>

#include "mock/json_access.h"
#include "mock/json_writer.h"
#include "mock/mock_errors.h"
#include "mock/mock_reply.h"
#include "mock/protocol_mock.h"

namespace llmux::mock::gemini {
namespace {

namespace json = boost::json;

constexpr std::string_view kJsonContentType = "application/json; charset=UTF-8";

void readTools(json::object const& body, RequestFacts& facts) {
  if (json::array const* tools = arrayField(&body, "tools")) {
    for (auto const& t : *tools) {
      json::value const* decls =
          field2(asObject(t), "functionDeclarations", "function_declarations");
      if (decls == nullptr || !decls->is_array()) continue;
      for (auto const& d : decls->get_array()) {
        json::object const* decl = asObject(d);
        json::value const* schema = field2(decl, "parametersJsonSchema", "parameters_json_schema");
        if (schema == nullptr) schema = field(decl, "parameters");
        facts.tools.push_back(ToolOffer{stringField(decl, "name"), schema});
      }
    }
  }
  json::object const* config = objectField2(&body, "toolConfig", "tool_config");
  json::object const* calling =
      objectField2(config, "functionCallingConfig", "function_calling_config");
  std::string_view mode = stringField(calling, "mode");
  facts.tool_choice = mode == "NONE"  ? ToolChoice::None
                      : mode == "ANY" ? ToolChoice::Required
                                      : ToolChoice::Auto;
  json::value const* allowed = field2(calling, "allowedFunctionNames", "allowed_function_names");
  if (mode == "ANY" && allowed && allowed->is_array() && allowed->get_array().size() == 1 &&
      allowed->get_array().front().is_string()) {
    facts.tool_choice = ToolChoice::Named;
    facts.forced_tool = allowed->get_array().front().get_string();
  }
}

struct Counter {
  std::int64_t prompt = 0, cached = 0, candidates = 0, thoughts = 0;
};

void writeUsage(JsonWriter& w, Counter const& c, bool with_candidates) {
  w.beginObject("usageMetadata").num("promptTokenCount", c.prompt);
  if (with_candidates) w.num("candidatesTokenCount", c.candidates);
  w.num("totalTokenCount", c.prompt + c.candidates + c.thoughts);
  auto details = [&](std::string_view name, std::int64_t count) {
    w.beginArray(name).beginObject().str("modality", "TEXT").num("tokenCount", count).endObject();
    w.endArray();
  };
  details("promptTokensDetails", c.prompt);
  if (c.cached > 0) {
    w.num("cachedContentTokenCount", c.cached);
    details("cacheTokensDetails", c.cached);
  }
  if (c.thoughts > 0) w.num("thoughtsTokenCount", c.thoughts);
  w.endObject();
}

/// One GenerateContentResponse: `parts` writes the parts, `finish` adds finishReason.
template <class Parts>
void writeResponse(JsonWriter& w, MockCall const& call, std::string_view response_id, Parts&& parts,
                   bool finish, std::string_view finish_message, Counter const& c,
                   bool with_candidates) {
  w.beginObject().beginArray("candidates").beginObject().beginObject("content");
  w.beginArray("parts");
  parts(w);
  w.endArray().str("role", "model").endObject();
  if (finish) w.str("finishReason", "STOP");
  w.num("index", std::int64_t{0});
  if (!finish_message.empty()) w.str("finishMessage", finish_message);
  w.endObject().endArray();
  writeUsage(w, c, with_candidates);
  w.str("modelVersion", call.model).str("responseId", response_id).endObject();
}

void writeCallParts(JsonWriter& w, AnswerPlan const& plan, std::string_view signature) {
  for (std::size_t i = 0; i < plan.calls.size(); ++i) {
    boost::system::error_code ec;
    json::value args = json::parse(plan.calls[i].arguments, ec);
    w.beginObject().beginObject("functionCall").str("name", plan.calls[i].name);
    w.value("args", args).endObject();
    // Gemini 3 signs the first function call of a turn; it must be sent back unchanged.
    if (i == 0) w.str("thoughtSignature", signature);
    w.endObject();
  }
}

/// Collects the stream's chunks, then frames them as SSE or as a JSON array.
class ChunkSink {
 public:
  ChunkSink(MockReply& reply, Delivery delivery) : reply_(reply), delivery_(delivery) {}

  JsonStyle style() const {
    return delivery_ == Delivery::Sse ? JsonStyle::GoogleLine : JsonStyle::Indent2;
  }
  std::string& buffer() { return data_; }

  void push() {
    if (delivery_ == Delivery::Sse) {
      pushSseCrlf(reply_, data_);
      return;
    }
    // The JSON-array form: "[{...}", then "\n,\r\n{...}" per chunk, then "\n]".
    std::string bytes = reply_.chunks.empty() ? "[" : "\n,\r\n";
    bytes += data_;
    data_.clear();
    reply_.chunks.push_back(MockChunk{{}, std::move(bytes)});
  }

  void finish() {
    if (delivery_ == Delivery::JsonArray) reply_.chunks.push_back(MockChunk{{}, "\n]"});
  }

 private:
  MockReply& reply_;
  Delivery delivery_;
  std::string data_;
};

Rendered renderStream(MockCall const& call, Delivery delivery, AnswerPlan const& plan,
                      Counter counter, std::string_view response_id, std::string_view signature) {
  Rendered out;
  if (delivery == Delivery::Sse) {
    beginSse(out.reply, "text/event-stream");
  } else {
    out.reply.streaming = true;
    out.reply.headers.set("content-type", kJsonContentType);
  }
  ChunkSink sink(out.reply, delivery);
  auto chunk = [&](auto&& parts, bool finish, bool with_candidates) {
    JsonWriter w(sink.buffer(), sink.style());
    writeResponse(w, call, response_id, parts, finish, {}, counter, with_candidates);
    sink.push();
  };
  std::int64_t answer_tokens = plan.usage.output - plan.usage.reasoning;
  if (!plan.thinking.empty()) {
    auto pieces = splitDeltas(plan.thinking, 48);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      counter.thoughts = plan.usage.reasoning * static_cast<std::int64_t>(i + 1) /
                         static_cast<std::int64_t>(pieces.size());
      chunk(
          [&](JsonWriter& w) {
            w.beginObject().str("text", pieces[i]).boolean("thought", true).endObject();
          },
          false, false);
    }
  }
  if (!plan.calls.empty()) {
    counter.candidates = answer_tokens;
    chunk([&](JsonWriter& w) { writeCallParts(w, plan, signature); }, false, true);
  } else {
    auto pieces = splitDeltas(plan.text, 24);
    std::size_t sent = 0;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
      sent += pieces[i].size();
      counter.candidates = std::max<std::int64_t>(
          1, answer_tokens * static_cast<std::int64_t>(sent) /
                 static_cast<std::int64_t>(std::max<std::size_t>(plan.text.size(), 1)));
      chunk(
          [&](JsonWriter& w) {
            w.beginObject().str("text", pieces[i]);
            if (i == 0 && !plan.thinking.empty()) w.str("thoughtSignature", signature);
            w.endObject();
          },
          false, true);
    }
  }
  counter.candidates = answer_tokens;
  chunk([](JsonWriter& w) { w.beginObject().str("text", "").endObject(); }, true, true);
  sink.finish();
  return out;
}

Rendered renderWhole(MockCall const& call, AnswerPlan const& plan, Counter counter,
                     std::string_view response_id, std::string_view signature) {
  Rendered out;
  counter.thoughts = plan.usage.reasoning;
  counter.candidates = plan.usage.output - plan.usage.reasoning;
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  auto parts = [&](JsonWriter& pw) {
    if (!plan.thinking.empty()) {
      pw.beginObject().str("text", plan.thinking).boolean("thought", true).endObject();
    }
    if (!plan.calls.empty()) {
      writeCallParts(pw, plan, signature);
    } else {
      pw.beginObject().str("text", plan.text);
      if (!plan.thinking.empty()) pw.str("thoughtSignature", signature);
      pw.endObject();
    }
  };
  writeResponse(w, call, response_id, parts, true,
                plan.calls.empty() ? std::string_view() : "Model generated function call(s).",
                counter, true);
  body.push_back('\n');
  setJsonBody(out.reply, 200, std::move(body), kJsonContentType);
  return out;
}

}  // namespace

std::optional<MockReply> inspect(MockCall const& call, Delivery delivery, RequestFacts& facts) {
  json::object const& body = call.body;
  json::array const* contents = arrayField(&body, "contents");
  if (contents == nullptr || contents->empty()) {
    return missingFieldError(Vendor::Google, call.ids, "contents");
  }
  facts.model = call.model;
  facts.stream = delivery != Delivery::Whole;
  for (auto const& c : *contents) {
    json::object const* content = asObject(c);
    std::string_view role = stringField(content, "role");
    if (!role.empty() && role != "user") continue;
    json::array const* parts = arrayField(content, "parts");
    if (parts == nullptr) continue;
    for (auto const& p : *parts) {
      json::object const* part = asObject(p);
      if (hasString(part, "text") && !boolField(part, "thought", false)) {
        facts.last_user_text = stringField(part, "text");
      }
    }
  }
  if (json::array const* parts = arrayField(asObject(contents->back()), "parts")) {
    for (auto const& p : *parts) {
      if (field2(asObject(p), "functionResponse", "function_response") != nullptr) {
        facts.last_turn_is_tool_result = true;
      }
    }
  }
  readTools(body, facts);
  json::object const* generation = objectField2(&body, "generationConfig", "generation_config");
  json::object const* thinking = objectField2(generation, "thinkingConfig", "thinking_config");
  json::value const* include = field2(thinking, "includeThoughts", "include_thoughts");
  facts.thinking = include && include->is_bool() && include->get_bool();
  json::value const* cached = field2(&body, "cachedContent", "cached_content");
  facts.cache_marker = cached && cached->is_string();
  return std::nullopt;
}

Rendered render(MockCall const& call, Delivery delivery, RequestFacts const&,
                AnswerPlan const& plan) {
  std::string response_id = call.ids.base64Url(23);
  while (!response_id.empty() && response_id.back() == '=') response_id.pop_back();
  std::string signature = "Ep" + call.ids.base64(250);
  Counter counter;
  counter.prompt = plan.usage.prompt;
  counter.cached = plan.usage.cache_read;
  if (delivery == Delivery::Whole) return renderWhole(call, plan, counter, response_id, signature);
  return renderStream(call, delivery, plan, counter, response_id, signature);
}

}  // namespace llmux::mock::gemini

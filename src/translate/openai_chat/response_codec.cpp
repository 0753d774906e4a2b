// A complete (non-streamed) OpenAI Chat Completions answer (REFERENCE.md §1.3) to and from the
// neutral model.

#include <boost/json/value.hpp>

#include <algorithm>
#include <string>

#include "translate/json_access.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_chat/json_out.h"
#include "translate/openai_chat/wire.h"
#include "translate/usage.h"

namespace llmux::translate::openai_chat {
namespace {

namespace json = boost::json;

Error malformed(std::string message) {
  return makeError(ErrorKind::UpstreamProtocol, "OpenAI Chat response: " + std::move(message));
}

void appendText(std::vector<Block>& content, std::string_view text) {
  if (!text.empty()) content.push_back(Block{.type = BlockType::Text, .text = std::string(text)});
}

Result<void> readToolCalls(json::array const& calls, Response& response) {
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (!calls[i].is_object()) return malformed("tool_calls[" + std::to_string(i) + "] is not an object");
    auto const& call = calls[i].as_object();
    auto const* function = objectAt(call, "function");
    if (function == nullptr) continue;  // a custom tool call: no neutral form
    Block block{.type = BlockType::ToolCall};
    block.id = std::string(stringAt(call, "id").value_or(""));
    if (block.id.empty()) block.id = inventedCallId(response.id, response.content.size());
    block.name = std::string(stringAt(*function, "name").value_or(""));
    if (auto const* arguments = function->if_contains("arguments")) {
      if (arguments->is_string()) {
        block.arguments = std::string(arguments->as_string());
      } else if (arguments->is_object()) {
        block.arguments = toJson(*arguments);
      }
    }
    if (block.arguments.empty()) block.arguments = "{}";
    response.content.push_back(std::move(block));
  }
  return {};
}

}  // namespace

Result<Response> decodeResponse(std::string_view body) {
  auto parsed = parseObject(body, "the OpenAI Chat response");
  if (!parsed) return malformed(parsed.error().message);
  json::object const& object = *parsed;
  if (auto const* error = objectAt(object, "error")) {
    std::string message(stringAt(*error, "message").value_or("upstream error"));
    int status = static_cast<int>(intAt(*error, "code").value_or(0));
    return makeError(ErrorKind::UpstreamStatus, std::move(message), status >= 400 ? status : 0);
  }
  Response response;
  response.id = std::string(stringAt(object, "id").value_or(""));
  response.model = std::string(stringAt(object, "model").value_or(""));

  auto const* choices = arrayAt(object, "choices");
  if (choices == nullptr) return malformed("no choices");
  std::string_view finish_reason;
  if (!choices->empty()) {
    // Only the first choice has a neutral form (n > 1 is not translated).
    if (!(*choices)[0].is_object()) return malformed("choices[0] is not an object");
    auto const& choice = (*choices)[0].as_object();
    finish_reason = stringAt(choice, "finish_reason").value_or("");
    auto const* message = objectAt(choice, "message");
    if (message == nullptr) return malformed("choices[0].message is missing");
    for (std::string_view key : {"reasoning_content", "reasoning"}) {
      if (auto text = stringAt(*message, key); text && !text->empty()) {
        // Nobody signs Chat reasoning; its origin still names it for a client that needs a
        // signature (translate/signature_tag.h).
        response.content.push_back(Block{.type = BlockType::Thinking,
                                         .text = std::string(*text),
                                         .signature_origin = Protocol::OpenAiChat});
        break;
      }
    }
    if (auto const* content = message->if_contains("content")) {
      if (content->is_string()) {
        appendText(response.content, content->as_string());
      } else if (content->is_array()) {
        for (auto const& part : content->as_array()) {
          if (part.is_object()) appendText(response.content, stringAt(part.as_object(), "text").value_or(""));
        }
      }
    }
    bool refused = false;
    if (auto refusal = stringAt(*message, "refusal"); refusal && !refusal->empty()) {
      appendText(response.content, *refusal);
      refused = true;
    }
    if (auto const* calls = arrayAt(*message, "tool_calls")) {
      if (auto read = readToolCalls(*calls, response); !read) return read.error();
    }
    if (auto const* legacy = objectAt(*message, "function_call")) {
      json::array one;
      one.push_back(json::object{{"function", *legacy}});
      if (auto read = readToolCalls(one, response); !read) return read.error();
    }
    bool has_calls = std::any_of(response.content.begin(), response.content.end(),
                                 [](Block const& b) { return b.type == BlockType::ToolCall; });
    response.stop = stopFromFinishReason(finish_reason, has_calls);
    if (refused && response.stop == StopReason::EndTurn) response.stop = StopReason::ContentFilter;
  }
  if (auto const* usage = objectAt(object, "usage")) response.usage = readUsage(*usage);
  fixZeroCompletion(response);
  return response;
}

std::string encodeResponse(Response const& response, EncodeOptions const& options) {
  std::string body;
  body.reserve(512 + response.content.size() * 128);
  JsonOut out(body);
  std::string id = completionId(response.id, options.id);
  out.beginObject().str("id", id).str("object", "chat.completion").num("created", options.created);
  out.str("model", options.model.empty() ? response.model : options.model);
  out.beginArray("choices").beginObject().num("index", std::int64_t{0});
  out.beginObject("message").str("role", "assistant");

  std::string text, reasoning;
  bool has_calls = false;
  for (Block const& b : response.content) {
    if (b.type == BlockType::Text) text.append(b.text);
    if (b.type == BlockType::Thinking) {
      if (!reasoning.empty() && !b.text.empty()) reasoning.append("\n\n");
      reasoning.append(b.text);
    }
    has_calls |= b.type == BlockType::ToolCall;
  }
  bool only_calls = text.empty() && has_calls;
  if (only_calls) {
    out.null("content");
  } else {
    out.str("content", text);
  }
  // Reasoning text goes in DeepSeek's reasoning_content, the field Chat clients read it from;
  // signatures and redacted reasoning have no Chat form.
  if (!reasoning.empty()) out.str("reasoning_content", reasoning);
  if (has_calls) {
    out.beginArray("tool_calls");
    std::size_t position = 0;
    for (Block const& b : response.content) {
      if (b.type != BlockType::ToolCall) continue;
      std::string call_id = b.id.empty() ? inventedCallId(id, position) : b.id;
      out.beginObject().str("id", call_id).str("type", "function").beginObject("function");
      out.str("name", b.name).str("arguments", b.arguments.empty() ? "{}" : b.arguments);
      out.endObject().endObject();
      ++position;
    }
    out.endArray();
  }
  out.null("refusal").endObject();
  out.null("logprobs").str("finish_reason", finishReasonFor(response.stop, has_calls));
  out.endObject().endArray();
  if (response.usage) writeUsage(out, *response.usage);
  out.endObject();
  return body;
}

}  // namespace llmux::translate::openai_chat

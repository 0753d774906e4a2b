// A Responses API request body (REFERENCE.md §2.2) in the neutral model.
#include <boost/json/array.hpp>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <string>
#include <unordered_map>

#include "translate/json_access.h"
#include "translate/openai_responses/codec.h"
#include "translate/openai_responses/request_options.h"
#include "translate/openai_responses/wire.h"
#include "translate/signature_tag.h"

namespace llmux::translate::openai_responses {
namespace {

namespace json = boost::json;

Error invalid(std::string message) {
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

std::string at(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

bool isNull(json::value const* v) {
  return v == nullptr || v->is_null();
}

/// Every piece of text is kept; an empty text adds no block.
void addText(std::vector<Block>& blocks, std::string_view text) {
  if (text.empty()) return;
  blocks.push_back(Block{.type = BlockType::Text, .text = std::string(text)});
}

class Decoder {
 public:
  explicit Decoder(Request& request) : req_(request) {}

  Result<void> body(json::object const& body);

 private:
  Result<void> input(json::value const& value);
  Result<void> item(json::object const& item, std::string const& where);
  Result<void> message(json::object const& item, std::string const& where);
  Result<void> functionCall(json::object const& item, std::string const& where);
  Result<void> functionCallOutput(json::object const& item, std::string const& where);
  Result<void> reasoningItem(json::object const& item, std::string const& where);
  Result<void> parts(json::value const& content, std::string const& where,
                     std::vector<Block>& blocks);
  Result<void> part(json::object const& part, std::string const& where, std::vector<Block>& blocks);

  /// The trailing message when it has `role` (and, for a user turn, holds only tool results),
  /// else a new one: assistant items of one turn share a message, as do tool results.
  Message& assistantTurn();
  Message& toolResultTurn();
  void drop(std::string name);

  Request& req_;
  bool conversation_started_ = false;
  std::unordered_map<std::string, std::string> call_names_;  ///< call_id -> function name
};

void Decoder::drop(std::string name) {
  dropField(req_, std::move(name));
}

Message& Decoder::assistantTurn() {
  if (req_.messages.empty() || req_.messages.back().role != Role::Assistant) {
    req_.messages.push_back(Message{.role = Role::Assistant});
  }
  return req_.messages.back();
}

Message& Decoder::toolResultTurn() {
  bool reuse = !req_.messages.empty() && req_.messages.back().role == Role::User;
  if (reuse) {
    for (Block const& b : req_.messages.back().blocks) {
      if (b.type != BlockType::ToolResult) reuse = false;
    }
  }
  if (!reuse) req_.messages.push_back(Message{.role = Role::User});
  return req_.messages.back();
}

Result<void> Decoder::body(json::object const& body) {
  auto const* model = body.if_contains("model");
  if (isNull(model)) return invalid("Missing required parameter: 'model'.");
  if (!model->is_string()) return invalid("Invalid type for 'model': expected a string.");
  req_.model = std::string(model->as_string());

  for (auto const& [key, value] : body) {
    std::string_view k = key;
    if (k == "model" || k == "input") continue;
    if (value.is_null()) continue;
    if (k == "stream") {
      if (!value.is_bool()) return invalid("Invalid type for 'stream': expected a boolean.");
      req_.stream = value.as_bool();
    } else if (k == "instructions") {
      if (value.is_string()) {
        addText(req_.system, value.as_string());
      } else {
        return invalid("Invalid type for 'instructions': expected a string.");
      }
    } else if (k == "tools") {
      if (auto r = decodeTools(value, req_); !r) return r;
    } else if (k == "tool_choice") {
      if (auto r = decodeToolChoice(value, req_); !r) return r;
    } else if (k == "parallel_tool_calls") {
      if (!value.is_bool())
        return invalid("Invalid type for 'parallel_tool_calls': expected a boolean.");
      req_.parallel_tool_calls = value.as_bool();
    } else if (k == "max_output_tokens") {
      auto n = intAt(body, k);
      if (!n || !value.is_number())
        return invalid("Invalid type for 'max_output_tokens': expected an integer.");
      req_.max_output_tokens = *n;
    } else if (k == "temperature" || k == "top_p") {
      auto x = numberAt(body, k);
      if (!x) return invalid("Invalid type for '" + std::string(k) + "': expected a number.");
      (k == "temperature" ? req_.temperature : req_.top_p) = *x;
    } else if (k == "top_k") {  // not OpenAI's, but some compatible servers take it
      auto n = intAt(body, k);
      if (!n) return invalid("Invalid type for 'top_k': expected an integer.");
      req_.top_k = *n;
    } else if (k == "stop") {  // likewise
      if (value.is_string()) {
        req_.stop.emplace_back(value.as_string());
      } else if (value.is_array()) {
        for (auto const& s : value.as_array()) {
          if (!s.is_string()) return invalid("Invalid type for 'stop': expected strings.");
          req_.stop.emplace_back(s.as_string());
        }
      } else {
        return invalid("Invalid type for 'stop': expected a string or an array of strings.");
      }
    } else if (k == "reasoning") {
      if (auto r = decodeReasoning(value, req_); !r) return r;
    } else if (k == "text") {
      if (auto r = decodeText(value, req_); !r) return r;
    } else if (k == "user") {
      if (!value.is_string()) return invalid("Invalid type for 'user': expected a string.");
      req_.user = std::string(value.as_string());
    } else if (k == "safety_identifier") {
      if (!value.is_string())
        return invalid("Invalid type for 'safety_identifier': expected a string.");
      if (!body.contains("user") || body.at("user").is_null()) {
        req_.user = std::string(value.as_string());
      }
    } else if (k == "prompt_cache_key") {
      if (!value.is_string())
        return invalid("Invalid type for 'prompt_cache_key': expected a string.");
      req_.prompt_cache_key = std::string(value.as_string());
    } else if (k == "previous_response_id" || k == "conversation") {
      // Stateful: the history lives at OpenAI, which this hop does not reach (REFERENCE §2.1).
      return invalid("'" + std::string(k) +
                     "' is not supported for this model: send the whole conversation in 'input'.");
    } else if (k == "background") {
      if (value.is_bool() && value.as_bool()) {
        return invalid("'background' is not supported for this model.");
      }
    } else {
      // store, include, metadata, service_tier, truncation, stream_options, prompt, top_logprobs,
      // max_tool_calls, client_metadata, ...: nothing in the neutral model carries them.
      drop(std::string(k));
    }
  }

  auto const* in = body.if_contains("input");
  if (isNull(in)) return invalid("Missing required parameter: 'input'.");
  if (auto r = input(*in); !r) return r;
  // A Responses stream always ends with its usage (response.completed).
  req_.include_usage = req_.stream;
  return {};
}

Result<void> Decoder::input(json::value const& value) {
  if (value.is_string()) {
    Message m{.role = Role::User};
    addText(m.blocks, value.as_string());
    if (m.blocks.empty()) m.blocks.push_back(Block{.type = BlockType::Text});
    req_.messages.push_back(std::move(m));
    return {};
  }
  if (!value.is_array()) return invalid("Invalid type for 'input': expected a string or an array.");
  auto const& items = value.as_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    std::string where = at("input", i);
    if (!items[i].is_object())
      return invalid("Invalid type for '" + where + "': expected an object.");
    if (auto r = item(items[i].as_object(), where); !r) return r;
  }
  return {};
}

Result<void> Decoder::item(json::object const& item, std::string const& where) {
  auto type = stringAt(item, "type");
  if (auto const* t = item.if_contains("type"); t && !t->is_string() && !t->is_null()) {
    return invalid("Invalid type for '" + where + ".type': expected a string.");
  }
  if (!type || *type == "message") return message(item, where);
  if (*type == "function_call") return functionCall(item, where);
  if (*type == "function_call_output") return functionCallOutput(item, where);
  if (*type == "reasoning") return reasoningItem(item, where);
  // item_reference, built-in tool calls and their outputs (web_search_call, custom_tool_call,
  // local_shell_call, mcp_*, ...) belong to OpenAI's own state or tools.
  drop("input[]." + std::string(*type));
  return {};
}

Result<void> Decoder::message(json::object const& item, std::string const& where) {
  auto role = stringAt(item, "role");
  if (!role) return invalid("Missing required parameter: '" + where + ".role'.");
  auto const* content = item.if_contains("content");
  if (isNull(content)) return invalid("Missing required parameter: '" + where + ".content'.");
  std::vector<Block> blocks;
  if (auto r = parts(*content, where + ".content", blocks); !r) return r;

  if (*role == "system" || *role == "developer") {
    std::vector<Block> texts;
    for (Block& b : blocks) {
      if (b.type == BlockType::Text) {
        texts.push_back(std::move(b));
      } else {
        drop("input[].content[] (non-text system content)");
      }
    }
    if (!conversation_started_) {
      for (Block& b : texts) req_.system.push_back(std::move(b));
    } else if (!texts.empty()) {
      req_.messages.push_back(Message{.role = Role::System, .blocks = std::move(texts)});
    }
    return {};
  }
  if (*role == "user") {
    conversation_started_ = true;
    if (blocks.empty()) return {};
    Message& m = toolResultTurn();
    for (Block& b : blocks) m.blocks.push_back(std::move(b));
    return {};
  }
  if (*role == "assistant") {
    conversation_started_ = true;
    if (blocks.empty()) return {};
    auto id = stringAt(item, "id");
    Message& m = assistantTurn();
    for (Block& b : blocks) {
      if (b.type != BlockType::Text) {
        drop("input[].content[] (non-text assistant content)");
        continue;
      }
      if (id) b.item_id = std::string(*id);
      m.blocks.push_back(std::move(b));
    }
    return {};
  }
  return invalid("Invalid value for '" + where + ".role': '" + std::string(*role) +
                 "'. Supported values are: 'user', 'assistant', 'system' and 'developer'.");
}

Result<void> Decoder::parts(json::value const& content, std::string const& where,
                            std::vector<Block>& blocks) {
  if (content.is_string()) {
    addText(blocks, content.as_string());
    return {};
  }
  if (!content.is_array()) {
    return invalid("Invalid type for '" + where + "': expected a string or an array of parts.");
  }
  auto const& list = content.as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string w = at(where, i);
    if (!list[i].is_object()) return invalid("Invalid type for '" + w + "': expected an object.");
    if (auto r = part(list[i].as_object(), w, blocks); !r) return r;
  }
  return {};
}

Result<void> Decoder::part(json::object const& part, std::string const& where,
                           std::vector<Block>& blocks) {
  auto type = stringAt(part, "type");
  if (!type) return invalid("Missing required parameter: '" + where + ".type'.");
  if (*type == "input_text" || *type == "output_text" || *type == "text" ||
      *type == "summary_text") {
    auto text = stringAt(part, "text");
    if (!text) return invalid("Missing required parameter: '" + where + ".text'.");
    addText(blocks, *text);
    return {};
  }
  if (*type == "refusal") {
    auto text = stringAt(part, "refusal");
    if (!text) return invalid("Missing required parameter: '" + where + ".refusal'.");
    addText(blocks, *text);
    return {};
  }
  if (*type == "input_image") {
    Block b{.type = BlockType::Image};
    auto url = stringAt(part, "image_url");
    auto file = stringAt(part, "file_id");
    if (url) {
      if (auto data = parseDataUrl(*url)) {
        b.media_type = std::string(data->media_type);
        b.data = std::string(data->data);
      } else {
        b.url = std::string(*url);
      }
    } else if (file) {
      b.file_id = std::string(*file);
      b.file_origin = Protocol::OpenAiResponses;
    } else {
      return invalid("'" + where + "' needs an 'image_url' or a 'file_id'.");
    }
    if (auto detail = stringAt(part, "detail")) b.detail = std::string(*detail);
    blocks.push_back(std::move(b));
    return {};
  }
  if (*type == "input_file") {
    Block b{.type = BlockType::Document};
    if (auto data = stringAt(part, "file_data")) {
      if (auto parsed = parseDataUrl(*data)) {
        b.media_type = std::string(parsed->media_type);
        b.data = std::string(parsed->data);
      } else {
        b.media_type = "application/pdf";  // bare base64: OpenAI's own default file type
        b.data = std::string(*data);
      }
    } else if (auto url = stringAt(part, "file_url")) {
      b.url = std::string(*url);
    } else if (auto file = stringAt(part, "file_id")) {
      b.file_id = std::string(*file);
      b.file_origin = Protocol::OpenAiResponses;
    } else {
      return invalid("'" + where + "' needs 'file_data', 'file_url' or 'file_id'.");
    }
    if (part.contains("filename")) drop("input[].content[].filename");
    blocks.push_back(std::move(b));
    return {};
  }
  drop("input[].content[]." + std::string(*type));  // input_audio, ...
  return {};
}

Result<void> Decoder::functionCall(json::object const& item, std::string const& where) {
  auto call_id = stringAt(item, "call_id");
  auto name = stringAt(item, "name");
  if (!call_id) return invalid("Missing required parameter: '" + where + ".call_id'.");
  if (!name) return invalid("Missing required parameter: '" + where + ".name'.");
  auto const* args = item.if_contains("arguments");
  if (args && !args->is_string() && !args->is_null()) {
    return invalid("Invalid type for '" + where + ".arguments': expected a JSON string.");
  }
  conversation_started_ = true;
  Block b{.type = BlockType::ToolCall, .id = std::string(*call_id), .name = std::string(*name)};
  b.arguments = args && args->is_string() && !args->as_string().empty()
                    ? std::string(args->as_string())
                    : std::string("{}");
  if (auto id = stringAt(item, "id")) b.item_id = std::string(*id);
  call_names_[b.id] = b.name;
  assistantTurn().blocks.push_back(std::move(b));
  return {};
}

Result<void> Decoder::functionCallOutput(json::object const& item, std::string const& where) {
  auto call_id = stringAt(item, "call_id");
  if (!call_id) return invalid("Missing required parameter: '" + where + ".call_id'.");
  auto const* output = item.if_contains("output");
  if (isNull(output)) return invalid("Missing required parameter: '" + where + ".output'.");
  conversation_started_ = true;
  Block b{.type = BlockType::ToolResult, .id = std::string(*call_id)};
  if (auto it = call_names_.find(b.id); it != call_names_.end()) b.name = it->second;
  if (output->is_string()) {
    // The whole string is the result, even when empty: the call was answered.
    b.content.push_back(Block{.type = BlockType::Text, .text = std::string(output->as_string())});
  } else if (auto r = parts(*output, where + ".output", b.content); !r) {
    return r;
  }
  toolResultTurn().blocks.push_back(std::move(b));
  return {};
}

Result<void> Decoder::reasoningItem(json::object const& item, std::string const& where) {
  conversation_started_ = true;
  Block b{.type = BlockType::Thinking};
  // Summary parts first, then raw reasoning text, joined as the stream decoder joins them.
  for (std::string_view list : {"summary", "content"}) {
    auto const* parts = item.if_contains(list);
    if (isNull(parts)) continue;
    if (!parts->is_array()) {
      return invalid("Invalid type for '" + where + "." + std::string(list) +
                     "': expected an array.");
    }
    for (auto const& p : parts->as_array()) {
      if (!p.is_object()) continue;
      auto text = stringAt(p.as_object(), "text");
      if (!text || text->empty()) continue;
      if (!b.text.empty()) b.text += "\n\n";
      b.text += *text;
    }
  }
  b.signature_origin = Protocol::OpenAiResponses;
  if (auto enc = stringAt(item, "encrypted_content")) {
    // Another provider's signature that an earlier translated answer carried here, tagged
    // (openai_responses/wire.h clientEncryptedContent), goes back to that provider.
    CarriedSignature carried = untagSignature(*enc, Protocol::OpenAiResponses);
    b.signature = std::move(carried.value);
    if (carried.origin) b.signature_origin = carried.origin;
    if (carried.kind == SignatureKind::Redacted) {
      b.type = BlockType::RedactedThinking;
      b.text.clear();
    }
  }
  if (auto id = stringAt(item, "id")) b.item_id = std::string(*id);
  assistantTurn().blocks.push_back(std::move(b));
  return {};
}

}  // namespace

Result<Request> decodeRequest(std::string_view body) {
  // One arena for the whole document: a 200 KB agent request is thousands of small strings.
  json::monotonic_resource arena(body.size() + 1024);
  boost::system::error_code ec;
  json::value doc = json::parse(body, ec, &arena);
  if (ec) return invalid("The request body is not valid JSON: " + ec.message());
  if (!doc.is_object()) return invalid("The request body must be a JSON object");
  Request request;
  Decoder decoder(request);
  if (auto r = decoder.body(doc.as_object()); !r) return r.error();
  return request;
}

}  // namespace llmux::translate::openai_responses

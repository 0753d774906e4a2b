// An OpenAI Chat Completions request body (REFERENCE.md §1.2) in the neutral model: the body and
// its messages (tools and generation settings: request_options.cpp).

#include <algorithm>
#include <string>

#include "translate/json_access.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_chat/request_reader.h"
#include "translate/openai_chat/wire.h"

namespace llmux::translate::openai_chat {

namespace json = boost::json;

void RequestReader::drop(std::string name) {
  if (std::find(request_.dropped.begin(), request_.dropped.end(), name) == request_.dropped.end()) {
    request_.dropped.push_back(std::move(name));
  }
}

Result<Request> RequestReader::read(json::object const& body) {
  auto model = stringAt(body, "model");
  if (!model) return invalid("'model' is required and must be a string");
  request_.model = std::string(*model);

  if (auto const* stream = body.if_contains("stream"); stream && !stream->is_null()) {
    if (!stream->is_bool()) return invalid("'stream' must be a boolean");
    request_.stream = stream->as_bool();
  }
  if (auto const* options = objectAt(body, "stream_options")) {
    request_.include_usage = boolAt(*options, "include_usage").value_or(false);
    for (auto const& member : *options) {
      if (member.key() != "include_usage") drop("stream_options." + std::string(member.key()));
    }
  }

  auto const* messages = body.if_contains("messages");
  if (messages == nullptr) return invalid("'messages' is required");
  if (!messages->is_array()) return invalid("'messages' must be an array");
  if (messages->as_array().empty()) return invalid("'messages' must not be empty");
  if (auto error = readMessages(messages->as_array())) return std::move(*error);
  if (auto error = readTools(body)) return std::move(*error);
  if (auto error = readToolChoice(body)) return std::move(*error);
  if (auto error = readSampling(body)) return std::move(*error);
  if (auto error = readReasoning(body)) return std::move(*error);

  if (auto const* format = body.if_contains("response_format"); format && !format->is_null()) {
    if (auto error = readResponseFormat(*format)) return std::move(*error);
  }
  if (auto user = stringAt(body, "user")) request_.user = std::string(*user);
  if (auto id = stringAt(body, "safety_identifier")) {
    if (request_.user.empty()) {
      request_.user = std::string(*id);
    } else {
      drop("safety_identifier");
    }
  }
  if (auto key = stringAt(body, "prompt_cache_key")) request_.prompt_cache_key = std::string(*key);
  // Only translated requests are decoded, and no other protocol can give several choices: an
  // answer with one choice where n asked for more would silently break the client (REFERENCE §9.6).
  if (auto n = intAt(body, "n"); n && *n != 1) {
    return invalid(
        "'n' must be 1: this model is served by a provider that returns a single choice per "
        "request");
  }

  static constexpr std::string_view kRead[] = {
      "model",       "stream",           "stream_options",    "messages",
      "tools",       "tool_choice",      "parallel_tool_calls", "functions",
      "function_call", "max_tokens",     "max_completion_tokens", "temperature",
      "top_p",       "top_k",            "stop",              "response_format",
      "reasoning_effort", "reasoning",   "user",              "safety_identifier",
      "prompt_cache_key", "n"};
  for (auto const& member : body) {
    std::string_view key = member.key();
    if (std::find(std::begin(kRead), std::end(kRead), key) == std::end(kRead)) {
      drop(std::string(key));
    }
  }
  return std::move(request_);
}

MaybeError RequestReader::readMessages(json::array const& messages) {
  bool leading = true;  // system messages before the first other message form the system prompt
  for (std::size_t i = 0; i < messages.size(); ++i) {
    std::string where = at("messages", i);
    if (!messages[i].is_object()) return invalid("'" + where + "' must be an object");
    if (auto error = readMessage(messages[i].as_object(), where, leading)) return error;
  }
  return std::nullopt;
}

MaybeError RequestReader::readMessage(json::object const& message, std::string const& where,
                                      bool& leading) {
  auto role = stringAt(message, "role");
  if (!role) return invalid("'" + where + ".role' is required");
  if (message.contains("name")) drop("messages[].name");

  if (*role == "system" || *role == "developer") {
    std::vector<Block> blocks;
    if (auto error = readContent(message.if_contains("content"), where, PartsOf::System, blocks)) {
      return error;
    }
    if (leading) {
      for (auto& b : blocks) request_.system.push_back(std::move(b));
    } else if (!blocks.empty()) {
      request_.messages.push_back(Message{Role::System, std::move(blocks)});
    }
    return std::nullopt;
  }
  leading = false;
  if (*role == "user") {
    Message m{Role::User, {}};
    if (auto error = readContent(message.if_contains("content"), where, PartsOf::User, m.blocks)) {
      return error;
    }
    if (!m.blocks.empty()) request_.messages.push_back(std::move(m));
    return std::nullopt;
  }
  if (*role == "assistant") return readAssistant(message, where);
  if (*role == "tool" || *role == "function") return readToolResult(message, where);
  return invalid("'" + where + ".role' must be one of system, developer, user, assistant, tool");
}

MaybeError RequestReader::readContent(json::value const* content, std::string const& where,
                                      PartsOf parts, std::vector<Block>& out) {
  std::string field = where + ".content";
  if (content == nullptr || content->is_null()) {
    if (parts == PartsOf::Assistant || parts == PartsOf::Tool) return std::nullopt;
    return invalid("'" + field + "' is required (a string or an array of content parts)");
  }
  if (content->is_string()) {
    if (!content->as_string().empty()) {
      out.push_back(Block{.type = BlockType::Text, .text = std::string(content->as_string())});
    }
    return std::nullopt;
  }
  if (!content->is_array()) {
    return invalid("'" + field + "' must be a string or an array of content parts");
  }
  auto const& array = content->as_array();
  for (std::size_t j = 0; j < array.size(); ++j) {
    std::string part_where = at(field, j);
    if (!array[j].is_object()) return invalid("'" + part_where + "' must be an object");
    std::size_t before = out.size();
    if (auto error = readPart(array[j].as_object(), part_where, parts, out)) return error;
    // OpenRouter-style clients (Cline, Roo Code) mark Anthropic cache breakpoints on parts.
    if (out.size() > before && objectAt(array[j].as_object(), "cache_control")) {
      out.back().cache_marker = true;
    }
  }
  return std::nullopt;
}

MaybeError RequestReader::readPart(json::object const& part, std::string const& where,
                                   PartsOf parts, std::vector<Block>& out) {
  auto type = stringAt(part, "type");
  if (!type) return invalid("'" + where + ".type' is required");
  if (*type == "text" || (*type == "refusal" && parts == PartsOf::Assistant)) {
    auto text = stringAt(part, *type == "text" ? "text" : "refusal");
    if (!text) return invalid("'" + where + "." + std::string(*type) + "' must be a string");
    if (!text->empty()) out.push_back(Block{.type = BlockType::Text, .text = std::string(*text)});
    return std::nullopt;
  }
  if (*type == "image_url" && (parts == PartsOf::User || parts == PartsOf::Tool)) {
    return readImage(part, where, out);
  }
  if (*type == "file" && parts == PartsOf::User) return readFile(part, where, out);
  drop("messages[].content[]." + std::string(*type));
  return std::nullopt;
}

MaybeError RequestReader::readImage(json::object const& part, std::string const& where,
                                    std::vector<Block>& out) {
  Block image{.type = BlockType::Image};
  std::string_view url;
  if (auto const* object = objectAt(part, "image_url")) {
    url = stringAt(*object, "url").value_or("");
    image.detail = std::string(stringAt(*object, "detail").value_or(""));
  } else if (auto plain = stringAt(part, "image_url")) {
    url = *plain;  // an older shorthand some clients still send
  }
  if (url.empty()) return invalid("'" + where + ".image_url.url' is required");
  if (auto data = parseDataUrl(url)) {
    image.media_type = std::string(data->media_type);
    image.data = std::string(data->data);
  } else {
    image.url = std::string(url);
    image.media_type = std::string(mediaTypeFromName(url));
  }
  out.push_back(std::move(image));
  return std::nullopt;
}

MaybeError RequestReader::readFile(json::object const& part, std::string const& where,
                                   std::vector<Block>& out) {
  auto const* file = objectAt(part, "file");
  if (file == nullptr) return invalid("'" + where + ".file' must be an object");
  Block document{.type = BlockType::Document};
  std::string_view filename = stringAt(*file, "filename").value_or("");
  if (auto id = stringAt(*file, "file_id")) {
    document.file_id = std::string(*id);
    document.file_origin = Protocol::OpenAiChat;
  } else if (auto data = stringAt(*file, "file_data")) {
    if (auto url = parseDataUrl(*data)) {
      document.media_type = std::string(url->media_type);
      document.data = std::string(url->data);
    } else {
      document.data = std::string(*data);
      document.media_type = std::string(mediaTypeFromName(filename));
      if (document.media_type.empty()) document.media_type = "application/pdf";
    }
  } else {
    return invalid("'" + where + ".file' needs a file_id or file_data");
  }
  if (!filename.empty()) drop("messages[].content[].file.filename");
  out.push_back(std::move(document));
  return std::nullopt;
}

MaybeError RequestReader::readAssistant(json::object const& message, std::string const& where) {
  Message m{Role::Assistant, {}};
  // Reasoning text of an earlier turn (DeepSeek's reasoning_content, OpenRouter's reasoning).
  for (std::string_view key : {"reasoning_content", "reasoning"}) {
    if (auto text = stringAt(message, key); text && !text->empty()) {
      m.blocks.push_back(Block{.type = BlockType::Thinking, .text = std::string(*text)});
      break;
    }
  }
  if (auto error = readContent(message.if_contains("content"), where, PartsOf::Assistant, m.blocks)) {
    return error;
  }
  if (auto refusal = stringAt(message, "refusal"); refusal && !refusal->empty()) {
    m.blocks.push_back(Block{.type = BlockType::Text, .text = std::string(*refusal)});
  }
  if (auto const* calls = message.if_contains("tool_calls"); calls && !calls->is_null()) {
    if (!calls->is_array()) return invalid("'" + where + ".tool_calls' must be an array");
    auto const& array = calls->as_array();
    for (std::size_t j = 0; j < array.size(); ++j) {
      std::string call_where = at(where + ".tool_calls", j);
      if (!array[j].is_object()) return invalid("'" + call_where + "' must be an object");
      if (auto error = readToolCall(array[j].as_object(), call_where, m.blocks)) return error;
    }
  }
  if (auto const* legacy = objectAt(message, "function_call")) {
    // The pre-tools form: no id, so one is made up and the next `function` message gets it.
    std::string name(stringAt(*legacy, "name").value_or(""));
    if (name.empty()) return invalid("'" + where + ".function_call.name' is required");
    std::string id = "call_legacy_" + std::to_string(legacy_calls_++);
    std::string arguments(stringAt(*legacy, "arguments").value_or(""));
    legacy_ids_[name] = id;
    call_names_[id] = name;
    m.blocks.push_back(Block{.type = BlockType::ToolCall,
                             .id = id,
                             .name = name,
                             .arguments = arguments.empty() ? "{}" : arguments});
  }
  if (message.contains("audio")) drop("messages[].audio");
  if (!m.blocks.empty()) request_.messages.push_back(std::move(m));
  return std::nullopt;
}

MaybeError RequestReader::readToolCall(json::object const& call, std::string const& where,
                                       std::vector<Block>& out) {
  std::string_view type = stringAt(call, "type").value_or("function");
  if (type != "function") {
    drop("messages[].tool_calls[]." + std::string(type));
    return std::nullopt;
  }
  auto id = stringAt(call, "id");
  if (!id || id->empty()) return invalid("'" + where + ".id' is required");
  auto const* function = objectAt(call, "function");
  if (function == nullptr) return invalid("'" + where + ".function' must be an object");
  auto name = stringAt(*function, "name");
  if (!name || name->empty()) return invalid("'" + where + ".function.name' is required");
  Block block{.type = BlockType::ToolCall, .id = std::string(*id), .name = std::string(*name)};
  if (auto const* arguments = function->if_contains("arguments")) {
    if (arguments->is_string()) {
      block.arguments = std::string(arguments->as_string());
    } else if (arguments->is_object()) {
      block.arguments = toJson(*arguments);  // lenient: an object where a string belongs
    } else if (!arguments->is_null()) {
      return invalid("'" + where + ".function.arguments' must be a string");
    }
  }
  if (block.arguments.empty()) block.arguments = "{}";
  call_names_[block.id] = block.name;
  out.push_back(std::move(block));
  return std::nullopt;
}

MaybeError RequestReader::readToolResult(json::object const& message, std::string const& where) {
  Block result{.type = BlockType::ToolResult};
  if (stringAt(message, "role") == "function") {
    auto name = stringAt(message, "name");
    if (!name) return invalid("'" + where + ".name' is required for a function message");
    result.name = std::string(*name);
    auto it = legacy_ids_.find(result.name);
    result.id = it != legacy_ids_.end() ? it->second : "call_legacy_" + result.name;
  } else {
    auto id = stringAt(message, "tool_call_id");
    if (!id || id->empty()) return invalid("'" + where + ".tool_call_id' is required");
    result.id = std::string(*id);
    auto it = call_names_.find(result.id);
    if (it != call_names_.end()) result.name = it->second;
  }
  if (auto error = readContent(message.if_contains("content"), where, PartsOf::Tool,
                               result.content)) {
    return error;
  }
  addToolResult(std::move(result));
  return std::nullopt;
}

void RequestReader::addToolResult(Block result) {
  // Consecutive tool messages answer one assistant turn: one user turn holds all their results.
  auto& messages = request_.messages;
  bool extend = !messages.empty() && messages.back().role == Role::User &&
                std::all_of(messages.back().blocks.begin(), messages.back().blocks.end(),
                            [](Block const& b) { return b.type == BlockType::ToolResult; });
  if (!extend) messages.push_back(Message{Role::User, {}});
  messages.back().blocks.push_back(std::move(result));
}

Result<Request> decodeRequest(std::string_view body) {
  auto object = parseObject(body, "the request body");
  if (!object) return object.takeError();
  return RequestReader{}.read(*object);
}

}  // namespace llmux::translate::openai_chat

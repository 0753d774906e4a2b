// An OpenAI Chat Completions request body (REFERENCE.md §1.2) in the neutral model.

#include <boost/json/value.hpp>

#include <algorithm>
#include <optional>
#include <string>
#include <unordered_map>

#include "translate/json_access.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_chat/wire.h"

namespace llmux::translate::openai_chat {
namespace {

namespace json = boost::json;

using MaybeError = std::optional<Error>;

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

std::string at(std::string_view base, std::size_t i) {
  return std::string(base) + "[" + std::to_string(i) + "]";
}

/// Which content parts a message role may carry.
enum class PartsOf { System, User, Assistant, Tool };

class RequestReader {
 public:
  Result<Request> read(json::object const& body);

 private:
  MaybeError readMessages(json::array const& messages);
  MaybeError readMessage(json::object const& message, std::string const& where, bool& leading);
  MaybeError readContent(json::value const* content, std::string const& where, PartsOf parts,
                         std::vector<Block>& out);
  MaybeError readPart(json::object const& part, std::string const& where, PartsOf parts,
                      std::vector<Block>& out);
  MaybeError readImage(json::object const& part, std::string const& where, std::vector<Block>& out);
  MaybeError readFile(json::object const& part, std::string const& where, std::vector<Block>& out);
  MaybeError readAssistant(json::object const& message, std::string const& where);
  MaybeError readToolCall(json::object const& call, std::string const& where,
                          std::vector<Block>& out);
  MaybeError readToolResult(json::object const& message, std::string const& where);
  MaybeError readTools(json::object const& body);
  MaybeError readToolChoice(json::object const& body);
  MaybeError readSampling(json::object const& body);
  MaybeError readResponseFormat(json::value const& format);
  MaybeError readReasoning(json::object const& body);
  void addToolResult(Block result);
  void drop(std::string name);

  Request request_;
  std::unordered_map<std::string, std::string> call_names_;  ///< tool-call id -> tool name
  std::unordered_map<std::string, std::string> legacy_ids_;  ///< legacy function name -> call id
  std::size_t legacy_calls_ = 0;
};

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
  if (auto n = intAt(body, "n"); n && *n != 1) drop("n");

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
    if (auto error = readPart(array[j].as_object(), part_where, parts, out)) return error;
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

MaybeError RequestReader::readTools(json::object const& body) {
  auto addFunction = [&](json::object const& fn, std::string const& where) -> MaybeError {
    auto name = stringAt(fn, "name");
    if (!name || name->empty()) return invalid("'" + where + ".name' is required");
    ToolSpec tool{.name = std::string(*name)};
    tool.description = std::string(stringAt(fn, "description").value_or(""));
    if (auto const* parameters = fn.if_contains("parameters"); parameters && !parameters->is_null()) {
      if (!parameters->is_object()) return invalid("'" + where + ".parameters' must be an object");
      tool.parameters = toJson(*parameters);
    }
    tool.strict = boolAt(fn, "strict").value_or(false);
    request_.tools.push_back(std::move(tool));
    return std::nullopt;
  };
  if (auto const* tools = body.if_contains("tools"); tools && !tools->is_null()) {
    if (!tools->is_array()) return invalid("'tools' must be an array");
    auto const& array = tools->as_array();
    for (std::size_t j = 0; j < array.size(); ++j) {
      std::string where = at("tools", j);
      if (!array[j].is_object()) return invalid("'" + where + "' must be an object");
      auto const& tool = array[j].as_object();
      std::string_view type = stringAt(tool, "type").value_or("function");
      if (type != "function") {
        drop("tools[]." + std::string(type));
        continue;
      }
      auto const* fn = objectAt(tool, "function");
      if (fn == nullptr) return invalid("'" + where + ".function' must be an object");
      if (auto error = addFunction(*fn, where + ".function")) return error;
    }
  }
  if (auto const* functions = arrayAt(body, "functions")) {
    for (std::size_t j = 0; j < functions->size(); ++j) {
      std::string where = at("functions", j);
      if (!(*functions)[j].is_object()) return invalid("'" + where + "' must be an object");
      if (auto error = addFunction((*functions)[j].as_object(), where)) return error;
    }
  }
  if (auto const* parallel = body.if_contains("parallel_tool_calls");
      parallel && !parallel->is_null()) {
    if (!parallel->is_bool()) return invalid("'parallel_tool_calls' must be a boolean");
    request_.parallel_tool_calls = parallel->as_bool();
  }
  return std::nullopt;
}

MaybeError RequestReader::readToolChoice(json::object const& body) {
  json::value const* choice = body.if_contains("tool_choice");
  bool legacy = false;
  if (choice == nullptr || choice->is_null()) {
    choice = body.if_contains("function_call");
    legacy = true;
  }
  if (choice == nullptr || choice->is_null()) return std::nullopt;
  std::string_view field = legacy ? "function_call" : "tool_choice";
  if (choice->is_string()) {
    std::string_view mode = choice->as_string();
    if (mode == "auto") {
      request_.tool_choice = ToolChoice{ToolChoiceMode::Auto, {}};
    } else if (mode == "none") {
      request_.tool_choice = ToolChoice{ToolChoiceMode::None, {}};
    } else if (mode == "required" && !legacy) {
      request_.tool_choice = ToolChoice{ToolChoiceMode::Required, {}};
    } else {
      return invalid("'" + std::string(field) + "' must be auto, none, required or a function");
    }
    return std::nullopt;
  }
  if (!choice->is_object()) return invalid("'" + std::string(field) + "' has an invalid type");
  auto const& object = choice->as_object();
  if (legacy) {
    auto name = stringAt(object, "name");
    if (!name) return invalid("'function_call.name' is required");
    request_.tool_choice = ToolChoice{ToolChoiceMode::Named, std::string(*name)};
    return std::nullopt;
  }
  std::string_view type = stringAt(object, "type").value_or("function");
  if (type == "function") {
    auto const* fn = objectAt(object, "function");
    auto name = fn ? stringAt(*fn, "name") : std::nullopt;
    if (!name) return invalid("'tool_choice.function.name' is required");
    request_.tool_choice = ToolChoice{ToolChoiceMode::Named, std::string(*name)};
  } else if (type == "allowed_tools") {
    // The allow-list itself has no neutral form: its mode is kept, the list dropped.
    auto const* allowed = objectAt(object, "allowed_tools");
    std::string_view mode = allowed ? stringAt(*allowed, "mode").value_or("auto") : "auto";
    request_.tool_choice =
        ToolChoice{mode == "required" ? ToolChoiceMode::Required : ToolChoiceMode::Auto, {}};
    drop("tool_choice.allowed_tools");
  } else {
    drop("tool_choice." + std::string(type));
  }
  return std::nullopt;
}

MaybeError RequestReader::readSampling(json::object const& body) {
  auto number = [&](std::string_view key, std::optional<double>& out) -> MaybeError {
    auto const* v = body.if_contains(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number()) return invalid("'" + std::string(key) + "' must be a number");
    out = v->to_number<double>();
    return std::nullopt;
  };
  auto integer = [&](std::string_view key, std::optional<std::int64_t>& out) -> MaybeError {
    auto const* v = body.if_contains(key);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_int64() && !v->is_uint64()) {
      return invalid("'" + std::string(key) + "' must be an integer");
    }
    out = intAt(body, key);
    return std::nullopt;
  };
  if (auto e = number("temperature", request_.temperature)) return e;
  if (auto e = number("top_p", request_.top_p)) return e;
  if (auto e = integer("top_k", request_.top_k)) return e;
  std::optional<std::int64_t> max_tokens, max_completion_tokens;
  if (auto e = integer("max_tokens", max_tokens)) return e;
  if (auto e = integer("max_completion_tokens", max_completion_tokens)) return e;
  request_.max_output_tokens = max_completion_tokens ? max_completion_tokens : max_tokens;

  if (auto const* stop = body.if_contains("stop"); stop && !stop->is_null()) {
    if (stop->is_string()) {
      request_.stop.emplace_back(stop->as_string());
    } else if (stop->is_array()) {
      for (auto const& s : stop->as_array()) {
        if (!s.is_string()) return invalid("'stop' must be a string or an array of strings");
        request_.stop.emplace_back(s.as_string());
      }
    } else {
      return invalid("'stop' must be a string or an array of strings");
    }
  }
  return std::nullopt;
}

MaybeError RequestReader::readResponseFormat(json::value const& format) {
  if (!format.is_object()) return invalid("'response_format' must be an object");
  auto const& object = format.as_object();
  std::string_view type = stringAt(object, "type").value_or("");
  if (type == "text") {
    request_.response_format = ResponseFormat{ResponseFormatType::Text};
  } else if (type == "json_object") {
    request_.response_format = ResponseFormat{ResponseFormatType::JsonObject};
  } else if (type == "json_schema") {
    auto const* spec = objectAt(object, "json_schema");
    if (spec == nullptr) return invalid("'response_format.json_schema' must be an object");
    ResponseFormat rf{ResponseFormatType::JsonSchema};
    rf.name = std::string(stringAt(*spec, "name").value_or(""));
    if (auto const* schema = objectAt(*spec, "schema")) rf.schema = toJson(*schema);
    rf.strict = boolAt(*spec, "strict").value_or(false);
    if (spec->contains("description")) drop("response_format.json_schema.description");
    request_.response_format = std::move(rf);
  } else {
    return invalid("'response_format.type' must be text, json_object or json_schema");
  }
  return std::nullopt;
}

MaybeError RequestReader::readReasoning(json::object const& body) {
  std::optional<Reasoning> reasoning;
  if (auto const* effort = body.if_contains("reasoning_effort"); effort && !effort->is_null()) {
    if (!effort->is_string()) return invalid("'reasoning_effort' must be a string");
    std::string_view value = effort->as_string();
    reasoning = Reasoning{};
    if (value == "none") {
      reasoning->enabled = false;
    } else {
      reasoning->effort = std::string(value);
      reasoning->include_thoughts = true;  // Chat clients read reasoning_content back
    }
  }
  // OpenRouter's form: {"effort", "max_tokens", "enabled", "exclude"}.
  if (auto const* object = objectAt(body, "reasoning")) {
    if (!reasoning) reasoning = Reasoning{.include_thoughts = true};
    if (auto effort = stringAt(*object, "effort"); effort && reasoning->effort.empty()) {
      if (*effort == "none") {
        reasoning->enabled = false;
      } else {
        reasoning->effort = std::string(*effort);
      }
    }
    if (auto budget = intAt(*object, "max_tokens")) reasoning->budget_tokens = *budget;
    if (boolAt(*object, "enabled") == false) reasoning->enabled = false;
    if (boolAt(*object, "exclude") == true) reasoning->include_thoughts = false;
  }
  if (reasoning && !reasoning->enabled) reasoning->include_thoughts = false;
  request_.reasoning = std::move(reasoning);
  return std::nullopt;
}

}  // namespace

Result<Request> decodeRequest(std::string_view body) {
  auto object = parseObject(body, "the request body");
  if (!object) return object.takeError();
  return RequestReader{}.read(*object);
}

}  // namespace llmux::translate::openai_chat

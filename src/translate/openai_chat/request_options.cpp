// The tools and generation settings of an OpenAI Chat Completions request (REFERENCE.md §1.2):
// tools and tool_choice (legacy functions included), sampling, stop, response_format, reasoning.

#include <string>

#include "translate/json_access.h"
#include "translate/openai_chat/request_reader.h"

namespace llmux::translate::openai_chat {

namespace json = boost::json;

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

}  // namespace llmux::translate::openai_chat

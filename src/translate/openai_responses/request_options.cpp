// Top-level options of a Responses API request body (tools, tool_choice, reasoning, text).
#include "translate/openai_responses/request_options.h"

#include <boost/json/array.hpp>

#include "translate/json_access.h"

namespace llmux::translate::openai_responses {
namespace {

namespace json = boost::json;

Error invalid(std::string message) {
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

std::string at(std::string_view field, std::size_t i) {
  return std::string(field) + "[" + std::to_string(i) + "]";
}

}  // namespace

void dropField(Request& request, std::string name) {
  for (auto const& d : request.dropped) {
    if (d == name) return;
  }
  request.dropped.push_back(std::move(name));
}

Result<void> decodeTools(json::value const& value, Request& request) {
  if (!value.is_array()) return invalid("Invalid type for 'tools': expected an array.");
  auto const& list = value.as_array();
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = at("tools", i);
    if (!list[i].is_object())
      return invalid("Invalid type for '" + where + "': expected an object.");
    auto const& tool = list[i].as_object();
    auto type = stringAt(tool, "type");
    if (!type) return invalid("Missing required parameter: '" + where + ".type'.");
    if (*type != "function") {
      dropField(
          request,
          "tools[]." + std::string(*type));  // web_search, file_search, namespace, custom, mcp...
      continue;
    }
    auto name = stringAt(tool, "name");
    if (!name || name->empty()) return invalid("Missing required parameter: '" + where + ".name'.");
    ToolSpec spec{.name = std::string(*name)};
    if (auto d = stringAt(tool, "description")) spec.description = std::string(*d);
    if (auto const* p = tool.if_contains("parameters"); p && !p->is_null()) {
      if (!p->is_object()) {
        return invalid("Invalid type for '" + where + ".parameters': expected an object.");
      }
      spec.parameters = toJson(*p);
    }
    // Omitted strict is taken as false: a strict schema upstream can turn a valid call into a 400.
    spec.strict = boolAt(tool, "strict").value_or(false);
    request.tools.push_back(std::move(spec));
  }
  return {};
}

Result<void> decodeToolChoice(json::value const& value, Request& request) {
  if (value.is_string()) {
    std::string_view s = value.as_string();
    if (s == "auto") {
      request.tool_choice = ToolChoice{.mode = ToolChoiceMode::Auto};
    } else if (s == "none") {
      request.tool_choice = ToolChoice{.mode = ToolChoiceMode::None};
    } else if (s == "required") {
      request.tool_choice = ToolChoice{.mode = ToolChoiceMode::Required};
    } else {
      return invalid("Invalid value for 'tool_choice': '" + std::string(s) +
                     "'. Supported values are: 'none', 'auto' and 'required'.");
    }
    return {};
  }
  if (!value.is_object())
    return invalid("Invalid type for 'tool_choice': expected a string or an object.");
  auto const& choice = value.as_object();
  auto type = stringAt(choice, "type");
  if (!type) return invalid("Missing required parameter: 'tool_choice.type'.");
  if (*type == "function") {
    auto name = stringAt(choice, "name");
    if (!name || name->empty()) return invalid("Missing required parameter: 'tool_choice.name'.");
    request.tool_choice = ToolChoice{.mode = ToolChoiceMode::Named, .name = std::string(*name)};
  } else if (*type == "allowed_tools") {
    // The subset cannot be expressed elsewhere; its mode can.
    auto mode = stringAt(choice, "mode");
    request.tool_choice = ToolChoice{.mode = mode && *mode == "required" ? ToolChoiceMode::Required
                                                                         : ToolChoiceMode::Auto};
    dropField(request, "tool_choice.allowed_tools");
  } else {
    dropField(request, "tool_choice." + std::string(*type));  // a built-in tool or a custom tool
  }
  return {};
}

Result<void> decodeReasoning(json::value const& value, Request& request) {
  if (!value.is_object()) return invalid("Invalid type for 'reasoning': expected an object.");
  auto const& r = value.as_object();
  Reasoning out;
  if (auto effort = stringAt(r, "effort")) {
    if (*effort == "none") {
      out.enabled = false;
    } else {
      out.effort = std::string(*effort);
    }
  }
  for (std::string_view key : {"summary", "generate_summary"}) {
    auto summary = stringAt(r, key);
    if (summary && !summary->empty()) out.include_thoughts = true;
  }
  if (out.effort.empty() && out.enabled && !out.include_thoughts) return {};  // says nothing
  request.reasoning = out;
  return {};
}

Result<void> decodeText(json::value const& value, Request& request) {
  if (!value.is_object()) return invalid("Invalid type for 'text': expected an object.");
  auto const& t = value.as_object();
  if (auto const* v = t.if_contains("verbosity"); v && !v->is_null())
    dropField(request, "text.verbosity");
  auto const* format = objectAt(t, "format");
  if (!format) return {};
  auto type = stringAt(*format, "type");
  if (!type) return invalid("Missing required parameter: 'text.format.type'.");
  if (*type == "json_object") {
    request.response_format = ResponseFormat{.type = ResponseFormatType::JsonObject};
  } else if (*type == "json_schema") {
    ResponseFormat f{.type = ResponseFormatType::JsonSchema};
    auto const* schema = format->if_contains("schema");
    if (!schema || !schema->is_object()) {
      return invalid("Missing required parameter: 'text.format.schema'.");
    }
    f.schema = toJson(*schema);
    if (auto name = stringAt(*format, "name")) f.name = std::string(*name);
    f.strict = boolAt(*format, "strict").value_or(false);
    if (format->contains("description")) dropField(request, "text.format.description");
    request.response_format = std::move(f);
  } else if (*type != "text") {
    return invalid("Invalid value for 'text.format.type': '" + std::string(*type) + "'.");
  }
  return {};
}

}  // namespace llmux::translate::openai_responses

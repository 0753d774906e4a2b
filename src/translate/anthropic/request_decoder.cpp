// Anthropic Messages request body -> neutral Request (REFERENCE.md §3.2).
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <unordered_map>

#include "translate/anthropic/blocks.h"
#include "translate/anthropic/codec.h"
#include "translate/anthropic/wire.h"
#include "translate/json_access.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;

Error invalid(std::string message) {
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

/// Whether `block` is a thinking block carrying the signature of the block after it (Gemini's,
/// anthropic/wire.h thinkingSignature).
bool carriesNextSignature(json::object const& block) {
  return stringAt(block, "type") == std::optional<std::string_view>("thinking") &&
         parseClientSignature(stringAt(block, "signature").value_or("")).next_part;
}

/// Puts a signature a thinking block carried for the block after it back on that block, where
/// Gemini wants it; it stays on the thinking block when that block cannot take it.
void returnNextSignature(Block& carrier, Block& next) {
  bool takes = (next.type == BlockType::Text || next.type == BlockType::ToolCall) &&
               next.signature.empty();
  if (!takes) return;
  next.signature = std::move(carrier.signature);
  next.signature_origin = carrier.signature_origin;
  carrier.signature.clear();
}

Result<void> decodeContent(json::value const& content, std::string const& where,
                           std::vector<Block>& out, std::vector<std::string>& dropped) {
  if (content.is_string()) {
    Block text;
    text.text = content.get_string();
    out.push_back(std::move(text));
    return {};
  }
  if (!content.is_array()) return invalid(where + ": must be a string or a list of blocks");
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::size_t k = 0;
  std::size_t carrier = kNone;  // the thinking block holding the next block's signature
  for (auto const& item : content.get_array()) {
    std::string block_where = where + "." + std::to_string(k++);
    if (!item.is_object()) return invalid(block_where + ": a content block must be an object");
    std::size_t first = out.size();
    auto ok = decodeBlock(item.get_object(), block_where, out, dropped);
    if (!ok) return ok;
    if (out.size() == first) continue;  // nothing carried (a server tool block)
    if (carrier != kNone) returnNextSignature(out[carrier], out[first]);
    carrier = carriesNextSignature(item.get_object()) ? first : kNone;
  }
  return {};
}

Result<void> decodeSystem(json::value const& system, Request& request) {
  if (system.is_null()) return {};
  auto ok = decodeContent(system, "system", request.system, request.dropped);
  if (!ok) return ok;
  for (Block const& b : request.system) {
    if (b.type != BlockType::Text) return invalid("system: only text blocks are allowed");
  }
  return {};
}

Result<void> decodeMessages(json::array const& messages, Request& request) {
  request.messages.reserve(messages.size());
  std::unordered_map<std::string_view, std::string_view> tool_names;  // call id -> tool name
  for (std::size_t i = 0; i < messages.size(); ++i) {
    std::string where = "messages." + std::to_string(i);
    if (!messages[i].is_object()) return invalid(where + ": a message must be an object");
    json::object const& m = messages[i].get_object();
    std::string_view role = stringAt(m, "role").value_or("");
    Message message;
    if (role == "user") {
      message.role = Role::User;
    } else if (role == "assistant") {
      message.role = Role::Assistant;
    } else if (role == "system") {
      message.role = Role::System;
    } else {
      return invalid(where + ".role: must be \"user\", \"assistant\" or \"system\"");
    }
    json::value const* content = m.if_contains("content");
    if (content == nullptr) return invalid(where + ".content: field required");
    auto ok = decodeContent(*content, where + ".content", message.blocks, request.dropped);
    if (!ok) return ok;
    request.messages.push_back(std::move(message));
  }
  // Gemini pairs results with calls by name: give every result the name of its call.
  for (Message const& message : request.messages) {
    for (Block const& b : message.blocks) {
      if (b.type == BlockType::ToolCall) tool_names[b.id] = b.name;
    }
  }
  for (Message& message : request.messages) {
    for (Block& b : message.blocks) {
      if (b.type != BlockType::ToolResult) continue;
      if (auto it = tool_names.find(b.id); it != tool_names.end()) b.name = it->second;
    }
  }
  return {};
}

Result<void> decodeTools(json::array const& tools, Request& request) {
  for (std::size_t i = 0; i < tools.size(); ++i) {
    std::string where = "tools." + std::to_string(i);
    if (!tools[i].is_object()) return invalid(where + ": a tool must be an object");
    json::object const& t = tools[i].get_object();
    std::string_view type = stringAt(t, "type").value_or("custom");
    if (type != "custom") {
      addDropped(request.dropped, "tools." + std::string(type));  // a server tool
      continue;
    }
    auto name = stringAt(t, "name");
    if (!name || name->empty()) return invalid(where + ".name: a non-empty string is required");
    ToolSpec spec;
    spec.name = *name;
    spec.description = stringAt(t, "description").value_or("");
    if (json::value const* schema = t.if_contains("input_schema"); schema && !schema->is_null()) {
      if (!schema->is_object()) return invalid(where + ".input_schema: must be an object");
      spec.parameters = toJson(*schema);
    }
    spec.strict = boolAt(t, "strict").value_or(false);
    for (auto const& member : t) {
      std::string_view key = member.key();
      if (key != "type" && key != "name" && key != "description" && key != "input_schema" &&
          key != "strict") {
        addDropped(request.dropped, "tools." + std::string(key));
      }
    }
    request.tools.push_back(std::move(spec));
  }
  return {};
}

Result<void> decodeToolChoice(json::object const& choice, Request& request) {
  std::string_view type = stringAt(choice, "type").value_or("");
  ToolChoice tc;
  if (type == "auto") {
    tc.mode = ToolChoiceMode::Auto;
  } else if (type == "any") {
    tc.mode = ToolChoiceMode::Required;
  } else if (type == "none") {
    tc.mode = ToolChoiceMode::None;
  } else if (type == "tool") {
    auto name = stringAt(choice, "name");
    if (!name || name->empty()) return invalid("tool_choice.name: required for type \"tool\"");
    tc.mode = ToolChoiceMode::Named;
    tc.name = *name;
  } else {
    return invalid("tool_choice.type: must be auto, any, tool or none");
  }
  request.tool_choice = std::move(tc);
  if (auto disable = boolAt(choice, "disable_parallel_tool_use")) {
    request.parallel_tool_calls = !*disable;
  }
  return {};
}

Result<void> decodeFormat(json::object const& format, Request& request) {
  std::string_view type = stringAt(format, "type").value_or("");
  if (type != "json_schema") return invalid("output_config.format.type: must be \"json_schema\"");
  ResponseFormat rf;
  rf.type = ResponseFormatType::JsonSchema;
  if (json::object const* schema = objectAt(format, "schema")) rf.schema = toJson(*schema);
  request.response_format = std::move(rf);
  return {};
}

/// thinking + output_config.effort -> Reasoning.
Result<void> decodeReasoning(json::object const& body, std::string_view effort, Request& request) {
  json::value const* thinking = body.if_contains("thinking");
  if (thinking == nullptr || thinking->is_null()) {
    if (!effort.empty()) request.reasoning = Reasoning{true, std::string(effort), {}, false};
    return {};
  }
  if (!thinking->is_object()) return invalid("thinking: must be an object");
  json::object const& t = thinking->get_object();
  std::string_view type = stringAt(t, "type").value_or("");
  Reasoning r;
  r.effort = effort;
  r.include_thoughts = stringAt(t, "display").value_or("summarized") != "omitted";
  if (type == "enabled") {
    auto budget = intAt(t, "budget_tokens");
    if (!budget) return invalid("thinking.budget_tokens: an integer is required");
    r.budget_tokens = *budget;
  } else if (type == "disabled") {
    r = Reasoning{};
    r.enabled = false;
  } else if (type != "adaptive") {
    return invalid("thinking.type: must be enabled, disabled or adaptive");
  }
  request.reasoning = std::move(r);
  return {};
}

Result<void> checkNumber(json::object const& body, std::string_view key) {
  json::value const* v = body.if_contains(key);
  if (v != nullptr && !v->is_null() && !v->is_number()) {
    return invalid(std::string(key) + ": must be a number");
  }
  return {};
}

}  // namespace

Result<Request> decodeRequest(std::string_view body) {
  unsigned char scratch[4096];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  json::parse_options options;
  options.max_depth = 256;
  boost::system::error_code ec;
  json::value document = json::parse(body, ec, &resource, options);
  if (ec) return invalid("the request body is not valid JSON: " + ec.message());
  if (!document.is_object()) return invalid("the request body must be a JSON object");
  json::object const& o = document.get_object();

  Request request;
  auto model = stringAt(o, "model");
  if (!model) return invalid("model: a string is required");
  request.model = *model;
  json::array const* messages = arrayAt(o, "messages");
  if (messages == nullptr) return invalid("messages: a list is required");

  for (std::string_view key : {"max_tokens", "temperature", "top_p", "top_k"}) {
    auto ok = checkNumber(o, key);
    if (!ok) return ok.error();
  }
  if (auto v = intAt(o, "max_tokens")) {
    if (*v < 1) return invalid("max_tokens: must be at least 1");
    request.max_output_tokens = *v;
  }
  request.temperature = numberAt(o, "temperature");
  request.top_p = numberAt(o, "top_p");
  request.top_k = intAt(o, "top_k");
  if (json::value const* stream = o.if_contains("stream"); stream && !stream->is_null()) {
    if (!stream->is_bool()) return invalid("stream: must be a boolean");
    request.stream = stream->get_bool();
  }
  request.include_usage = request.stream;  // Anthropic streams always report usage

  if (json::value const* stop = o.if_contains("stop_sequences"); stop && !stop->is_null()) {
    if (!stop->is_array()) return invalid("stop_sequences: must be a list of strings");
    for (auto const& s : stop->get_array()) {
      if (!s.is_string()) return invalid("stop_sequences: must be a list of strings");
      request.stop.emplace_back(s.get_string());
    }
  }
  if (json::value const* system = o.if_contains("system")) {
    auto ok = decodeSystem(*system, request);
    if (!ok) return ok.error();
  }
  if (auto ok = decodeMessages(*messages, request); !ok) return ok.error();
  if (json::value const* tools = o.if_contains("tools"); tools && !tools->is_null()) {
    if (!tools->is_array()) return invalid("tools: must be a list");
    auto ok = decodeTools(tools->get_array(), request);
    if (!ok) return ok.error();
  }
  if (json::value const* choice = o.if_contains("tool_choice"); choice && !choice->is_null()) {
    if (!choice->is_object()) return invalid("tool_choice: must be an object");
    auto ok = decodeToolChoice(choice->get_object(), request);
    if (!ok) return ok.error();
  }

  std::string_view effort;
  if (json::object const* config = objectAt(o, "output_config")) {
    effort = stringAt(*config, "effort").value_or("");
    for (auto const& member : *config) {
      if (member.key() == "effort") continue;
      if (member.key() == "format" && member.value().is_object()) {
        auto ok = decodeFormat(member.value().get_object(), request);
        if (!ok) return ok.error();
      } else if (!member.value().is_null()) {
        addDropped(request.dropped, "output_config." + std::string(member.key()));
      }
    }
  }
  if (json::object const* format = objectAt(o, "output_format");
      format && !request.response_format) {
    auto ok = decodeFormat(*format, request);
    if (!ok) return ok.error();
  }
  if (auto ok = decodeReasoning(o, effort, request); !ok) return ok.error();

  if (json::object const* metadata = objectAt(o, "metadata")) {
    for (auto const& member : *metadata) {
      if (member.key() == "user_id" && member.value().is_string()) {
        request.user = member.value().get_string();
      } else if (!member.value().is_null()) {
        addDropped(request.dropped, "metadata." + std::string(member.key()));
      }
    }
  }

  static constexpr std::string_view kKnown[] = {
      "model",          "messages",    "system",        "max_tokens",    "stream",
      "stop_sequences", "temperature", "top_p",         "top_k",         "tools",
      "tool_choice",    "thinking",    "output_config", "output_format", "metadata"};
  for (auto const& member : o) {
    std::string_view key = member.key();
    bool known = false;
    for (std::string_view k : kKnown) known |= k == key;
    if (!known) addDropped(request.dropped, key);  // service_tier, container, mcp_servers, ...
  }
  return request;
}

}  // namespace llmux::translate::anthropic

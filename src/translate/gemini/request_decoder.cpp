// A Gemini client's generateContent / streamGenerateContent body in the neutral model
// (REFERENCE §4.2). Field names are accepted in camelCase and snake_case, as Gemini does.
#include <boost/json/serialize.hpp>

#include <string>
#include <vector>

#include "core/strings.h"
#include "translate/gemini/codec.h"
#include "translate/gemini/common.h"
#include "translate/gemini/parts.h"
#include "translate/gemini/schema.h"
#include "translate/json_access.h"

namespace llmux::translate::gemini {

namespace json = boost::json;
using namespace detail;

namespace {

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

std::string at(std::string_view what, std::size_t index) {
  return std::string(what) + "[" + std::to_string(index) + "]";
}

/// A function call of the latest model turn, for pairing responses that carry no id.
struct PendingCall {
  std::string id;
  std::string name;
  bool answered = false;
};

class Decoder {
 public:
  Decoder(json::object const& root, Request& request) : root_(root), request_(request) {}

  Result<void> run() {
    for (auto const& entry : root_) {
      std::string_view key = entry.key();
      Result<void> ok;
      if (key == "contents") {
        ok = contents(entry.value());
      } else if (key == "systemInstruction" || key == "system_instruction") {
        ok = systemInstruction(entry.value());
      } else if (key == "tools") {
        ok = tools(entry.value());
      } else if (key == "toolConfig" || key == "tool_config") {
        ok = toolConfig(entry.value());
      } else if (key == "generationConfig" || key == "generation_config") {
        ok = generationConfig(entry.value());
      } else if (key == "model") {
        // The model comes from the URL; a copy in the body changes nothing.
      } else {
        drop(key);
      }
      if (!ok) return ok;
    }
    if (!root_.contains("contents")) return invalid("contents must be a non-empty array");
    return {};
  }

 private:
  void drop(std::string_view name) { request_.dropped.emplace_back(name); }

  Result<void> contents(json::value const& value) {
    if (!value.is_array() || value.get_array().empty()) {
      return invalid("contents must be a non-empty array");
    }
    json::array const& contents = value.get_array();
    for (std::size_t i = 0; i < contents.size(); ++i) {
      if (!contents[i].is_object()) return invalid(at("contents", i) + " must be an object");
      if (auto ok = content(contents[i].get_object(), i); !ok) return ok;
    }
    return {};
  }

  Result<void> content(json::object const& content, std::size_t index) {
    std::string where = at("contents", index);
    std::string_view role = stringMember(content, "role", "").value_or("user");
    Message message;
    if (role == "user" || role == "function" || role == "tool" || role.empty()) {
      message.role = Role::User;
    } else if (role == "model") {
      message.role = Role::Assistant;
      pending_.clear();
    } else {
      return invalid(where + ".role must be \"user\" or \"model\", not \"" + std::string(role) +
                     "\"");
    }
    json::array const* parts = arrayMember(content, "parts", "");
    if (parts == nullptr) return invalid(where + ".parts must be an array");
    for (std::size_t j = 0; j < parts->size(); ++j) {
      std::string part_where = where + at(".parts", j);
      if (!(*parts)[j].is_object()) return invalid(part_where + " must be an object");
      if (auto ok = part((*parts)[j].get_object(), part_where, index, j, message); !ok) return ok;
    }
    if (!message.blocks.empty()) request_.messages.push_back(std::move(message));
    return {};
  }

  Result<void> part(json::object const& part, std::string const& where, std::size_t content_index,
                    std::size_t part_index, Message& message) {
    std::string_view signature = partSignature(part);
    bool thought = boolMember(part, "thought", "").value_or(false);
    auto sign = [&](Block& block) {
      if (signature.empty()) return;
      block.signature = std::string(signature);
      block.signature_origin = Protocol::Gemini;
    };
    if (json::value const* text = part.if_contains("text")) {
      if (!text->is_string()) return invalid(where + ".text must be a string");
      Block block;
      block.text = std::string(text->get_string());
      block.type = thought || block.text.empty() ? BlockType::Thinking : BlockType::Text;
      if (block.text.empty() && signature.empty()) return {};  // nothing to carry
      sign(block);
      message.blocks.push_back(std::move(block));
      return {};
    }
    if (json::value const* call = member(part, "functionCall", "function_call")) {
      if (!call->is_object()) return invalid(where + ".functionCall must be an object");
      json::object const& fc = call->get_object();
      auto name = stringMember(fc, "name", "");
      if (!name || name->empty()) {
        return invalid(where + ".functionCall.name must be a non-empty string");
      }
      Block block;
      block.type = BlockType::ToolCall;
      block.name = std::string(*name);
      json::value const* args = fc.if_contains("args");
      if (args != nullptr && !args->is_null() && !args->is_object()) {
        return invalid(where + ".functionCall.args must be an object");
      }
      block.arguments = args != nullptr && args->is_object() ? json::serialize(*args) : "{}";
      block.id = std::string(stringMember(fc, "id", "").value_or(""));
      if (block.id.empty()) {
        block.id = madeUpCallId("request", (content_index << 16) | part_index, block.name);
      }
      sign(block);
      pending_.push_back(PendingCall{block.id, block.name});
      message.blocks.push_back(std::move(block));
      return {};
    }
    if (json::value const* response = member(part, "functionResponse", "function_response")) {
      if (!response->is_object()) return invalid(where + ".functionResponse must be an object");
      auto block = toolResultBlock(response->get_object());
      if (!block) return invalid(where + "." + block.error().message);
      pairResult(*block, content_index, part_index);
      sign(*block);
      message.blocks.push_back(std::move(*block));
      return {};
    }
    if (auto media = mediaBlock(part)) {
      if (!media->ok()) return invalid(where + "." + media->error().message);
      message.blocks.push_back(std::move(media->value()));
      return {};
    }
    for (auto const& entry : part) {
      std::string_view key = entry.key();
      if (key == "thought" || key == "thoughtSignature" || key == "thought_signature") continue;
      drop("contents.parts." + std::string(key));
    }
    return {};
  }

  /// Gemini pairs results with calls by name and order; ids are optional on both sides.
  void pairResult(Block& result, std::size_t content_index, std::size_t part_index) {
    if (!result.id.empty()) {
      for (auto& call : pending_) {
        if (call.id == result.id) call.answered = true;
      }
      return;
    }
    for (auto& call : pending_) {
      if (!call.answered && call.name == result.name) {
        call.answered = true;
        result.id = call.id;
        return;
      }
    }
    result.id = madeUpCallId("result", (content_index << 16) | part_index, result.name);
  }

  Result<void> systemInstruction(json::value const& value) {
    if (value.is_string()) {
      request_.system.push_back(Block{.type = BlockType::Text, .text = std::string(value.get_string())});
      return {};
    }
    if (!value.is_object()) return invalid("systemInstruction must be an object");
    json::array const* parts = arrayMember(value.get_object(), "parts", "");
    if (parts == nullptr) return invalid("systemInstruction.parts must be an array");
    for (std::size_t j = 0; j < parts->size(); ++j) {
      json::value const& p = (*parts)[j];
      if (!p.is_object()) return invalid(at("systemInstruction.parts", j) + " must be an object");
      json::value const* text = p.get_object().if_contains("text");
      if (text == nullptr) {
        drop("systemInstruction.parts");
        continue;
      }
      if (!text->is_string()) return invalid(at("systemInstruction.parts", j) + ".text must be a string");
      if (text->get_string().empty()) continue;
      request_.system.push_back(Block{.type = BlockType::Text, .text = std::string(text->get_string())});
    }
    return {};
  }

  Result<void> tools(json::value const& value) {
    if (!value.is_array()) return invalid("tools must be an array");
    for (std::size_t i = 0; i < value.get_array().size(); ++i) {
      json::value const& tool = value.get_array()[i];
      if (!tool.is_object()) return invalid(at("tools", i) + " must be an object");
      for (auto const& entry : tool.get_object()) {
        std::string_view key = entry.key();
        if (key != "functionDeclarations" && key != "function_declarations") {
          drop("tools." + std::string(key));
          continue;
        }
        if (!entry.value().is_array()) {
          return invalid(at("tools", i) + ".functionDeclarations must be an array");
        }
        json::array const& declarations = entry.value().get_array();
        for (std::size_t j = 0; j < declarations.size(); ++j) {
          std::string where = at("tools", i) + at(".functionDeclarations", j);
          if (!declarations[j].is_object()) return invalid(where + " must be an object");
          if (auto ok = declaration(declarations[j].get_object(), where); !ok) return ok;
        }
      }
    }
    return {};
  }

  Result<void> declaration(json::object const& decl, std::string const& where) {
    ToolSpec spec;
    auto name = stringMember(decl, "name", "");
    if (!name || name->empty()) return invalid(where + ".name must be a non-empty string");
    spec.name = std::string(*name);
    spec.description = std::string(stringMember(decl, "description", "").value_or(""));
    if (json::value const* schema = member(decl, "parametersJsonSchema", "parameters_json_schema")) {
      if (!schema->is_object()) return invalid(where + ".parametersJsonSchema must be an object");
      spec.parameters = json::serialize(*schema);
    } else if (json::value const* params = decl.if_contains("parameters")) {
      if (!params->is_object()) return invalid(where + ".parameters must be an object");
      spec.parameters = jsonSchemaFromOpenApi(*params);
    }
    for (auto const& entry : decl) {
      std::string_view key = entry.key();
      if (key != "name" && key != "description" && key != "parameters" &&
          key != "parametersJsonSchema" && key != "parameters_json_schema") {
        drop("tools.functionDeclarations." + std::string(key));
      }
    }
    request_.tools.push_back(std::move(spec));
    return {};
  }

  Result<void> toolConfig(json::value const& value) {
    if (!value.is_object()) return invalid("toolConfig must be an object");
    for (auto const& entry : value.get_object()) {
      std::string_view key = entry.key();
      if (key != "functionCallingConfig" && key != "function_calling_config") {
        drop("toolConfig." + std::string(key));
      }
    }
    json::object const* calling =
        objectMember(value.get_object(), "functionCallingConfig", "function_calling_config");
    if (calling == nullptr) return {};
    std::string mode = toLower(stringMember(*calling, "mode", "").value_or(""));
    std::vector<std::string> allowed;
    if (json::array const* names =
            arrayMember(*calling, "allowedFunctionNames", "allowed_function_names")) {
      for (auto const& n : *names) {
        if (!n.is_string()) {
          return invalid("toolConfig.functionCallingConfig.allowedFunctionNames must hold strings");
        }
        allowed.emplace_back(n.get_string());
      }
    }
    ToolChoice choice;
    if (mode == "none") {
      choice.mode = ToolChoiceMode::None;
    } else if (mode == "any") {
      choice.mode = allowed.size() == 1 ? ToolChoiceMode::Named : ToolChoiceMode::Required;
      if (allowed.size() == 1) choice.name = allowed.front();
      if (allowed.size() > 1) drop("toolConfig.functionCallingConfig.allowedFunctionNames");
    } else if (mode == "auto" || mode == "validated" || mode == "mode_unspecified" || mode.empty()) {
      choice.mode = ToolChoiceMode::Auto;
      if (mode == "validated") drop("toolConfig.functionCallingConfig.mode");
      if (!allowed.empty()) drop("toolConfig.functionCallingConfig.allowedFunctionNames");
    } else {
      return invalid("toolConfig.functionCallingConfig.mode must be AUTO, ANY, NONE or VALIDATED");
    }
    request_.tool_choice = choice;
    return {};
  }

  Result<void> generationConfig(json::value const& value) {
    if (!value.is_object()) return invalid("generationConfig must be an object");
    json::object const& config = value.get_object();
    auto number = [&](std::string_view camel, std::string_view snake) -> Result<std::optional<double>> {
      json::value const* v = member(config, camel, snake);
      if (v == nullptr || v->is_null()) return std::optional<double>();
      auto n = numberMember(config, camel, snake);
      if (!n) return invalid("generationConfig." + std::string(camel) + " must be a number");
      return n;
    };
    auto integer = [&](std::string_view camel, std::string_view snake) -> Result<std::optional<std::int64_t>> {
      json::value const* v = member(config, camel, snake);
      if (v == nullptr || v->is_null()) return std::optional<std::int64_t>();
      if (!v->is_int64() && !v->is_uint64()) {
        return invalid("generationConfig." + std::string(camel) + " must be an integer");
      }
      return intMember(config, camel, snake);
    };
    auto temperature = number("temperature", "");
    if (!temperature) return temperature.takeError();
    request_.temperature = *temperature;
    auto top_p = number("topP", "top_p");
    if (!top_p) return top_p.takeError();
    request_.top_p = *top_p;
    auto top_k = integer("topK", "top_k");
    if (!top_k) {
      // Some clients send topK as a float (40.0).
      auto as_number = number("topK", "top_k");
      if (!as_number) return as_number.takeError();
      if (*as_number) request_.top_k = static_cast<std::int64_t>(**as_number);
    } else {
      request_.top_k = *top_k;
    }
    auto max_tokens = integer("maxOutputTokens", "max_output_tokens");
    if (!max_tokens) return max_tokens.takeError();
    request_.max_output_tokens = *max_tokens;
    if (json::value const* stops = member(config, "stopSequences", "stop_sequences")) {
      if (!stops->is_array()) return invalid("generationConfig.stopSequences must be an array");
      for (auto const& s : stops->get_array()) {
        if (!s.is_string()) return invalid("generationConfig.stopSequences must hold strings");
        request_.stop.emplace_back(s.get_string());
      }
    }
    if (auto ok = responseFormat(config); !ok) return ok;
    if (auto ok = thinking(config); !ok) return ok;
    static constexpr std::string_view kHandled[] = {
        "temperature",         "topP",          "top_p",           "topK",
        "top_k",               "maxOutputTokens", "max_output_tokens", "stopSequences",
        "stop_sequences",      "responseMimeType", "response_mime_type", "responseSchema",
        "response_schema",     "responseJsonSchema", "response_json_schema", "thinkingConfig",
        "thinking_config"};
    for (auto const& entry : config) {
      std::string_view key = entry.key();
      bool handled = false;
      for (auto h : kHandled) handled |= key == h;
      if ((key == "candidateCount" || key == "candidate_count") && entry.value().is_int64() &&
          entry.value().get_int64() == 1) {
        handled = true;
      }
      if (!handled) drop("generationConfig." + std::string(key));
    }
    return {};
  }

  Result<void> responseFormat(json::object const& config) {
    std::string_view mime = stringMember(config, "responseMimeType", "response_mime_type").value_or("");
    json::value const* json_schema = member(config, "responseJsonSchema", "response_json_schema");
    json::value const* schema = member(config, "responseSchema", "response_schema");
    if (json_schema != nullptr && !json_schema->is_object()) {
      return invalid("generationConfig.responseJsonSchema must be an object");
    }
    if (schema != nullptr && !schema->is_object()) {
      return invalid("generationConfig.responseSchema must be an object");
    }
    if (json_schema != nullptr || schema != nullptr) {
      ResponseFormat format;
      format.type = ResponseFormatType::JsonSchema;
      format.name = "response";
      format.schema = json_schema != nullptr ? json::serialize(*json_schema)
                                             : jsonSchemaFromOpenApi(*schema);
      request_.response_format = std::move(format);
    } else if (mime == "application/json") {
      request_.response_format = ResponseFormat{.type = ResponseFormatType::JsonObject};
    } else if (!mime.empty() && mime != "text/plain") {
      drop("generationConfig.responseMimeType");
    }
    return {};
  }

  Result<void> thinking(json::object const& config) {
    json::value const* value = member(config, "thinkingConfig", "thinking_config");
    if (value == nullptr || value->is_null()) return {};
    if (!value->is_object()) return invalid("generationConfig.thinkingConfig must be an object");
    json::object const& thinking = value->get_object();
    Reasoning reasoning;
    if (member(thinking, "thinkingBudget", "thinking_budget") != nullptr) {
      auto n = intMember(thinking, "thinkingBudget", "thinking_budget");
      if (!n) return invalid("generationConfig.thinkingConfig.thinkingBudget must be an integer");
      if (*n == 0) {
        reasoning.enabled = false;
      } else if (*n > 0) {
        reasoning.budget_tokens = *n;
      }  // -1: dynamic, the model decides
    }
    if (json::value const* level = member(thinking, "thinkingLevel", "thinking_level")) {
      if (!level->is_string()) {
        return invalid("generationConfig.thinkingConfig.thinkingLevel must be a string");
      }
      std::string effort = toLower(level->get_string());
      if (effort == "minimal" || effort == "low" || effort == "medium" || effort == "high") {
        reasoning.effort = effort;
      } else if (effort != "thinking_level_unspecified") {
        return invalid("generationConfig.thinkingConfig.thinkingLevel must be minimal, low, "
                       "medium or high");
      }
    }
    reasoning.include_thoughts =
        boolMember(thinking, "includeThoughts", "include_thoughts").value_or(false);
    request_.reasoning = reasoning;
    return {};
  }

  json::object const& root_;
  Request& request_;
  std::vector<PendingCall> pending_;
};

}  // namespace

Result<Request> decodeRequest(std::string_view body, std::string_view model, bool stream) {
  auto parsed = parseObject(body, "request body");
  if (!parsed) return parsed.takeError();
  Request request;
  request.model = std::string(bareModelName(model));
  request.stream = stream;
  // A Gemini client always gets usageMetadata, streamed or not.
  request.include_usage = stream;
  Decoder decoder(*parsed, request);
  if (auto ok = decoder.run(); !ok) return ok.error();
  return request;
}

}  // namespace llmux::translate::gemini

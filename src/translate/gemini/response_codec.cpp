// A complete Gemini GenerateContentResponse ↔ the neutral Response (REFERENCE §4.3, §7, §8).
#include <string>

#include "translate/gemini/codec.h"
#include "translate/gemini/common.h"
#include "translate/gemini/parts.h"
#include "translate/json_access.h"
#include "translate/usage.h"

#include <boost/json/serialize.hpp>

namespace llmux::translate::gemini {

namespace json = boost::json;
using namespace detail;

namespace {

/// One response part as neutral blocks (appended to `out`). Code-execution parts have no neutral
/// form and are skipped.
Result<void> appendBlocks(json::object const& part, std::string_view seed, std::size_t& calls,
                          std::vector<Block>& out) {
  std::string_view signature = partSignature(part);
  auto sign = [&](Block& block) {
    if (signature.empty()) return;
    block.signature = std::string(signature);
    block.signature_origin = Protocol::Gemini;
  };
  bool thought = boolMember(part, "thought", "").value_or(false);
  if (auto text = stringMember(part, "text", "")) {
    if (text->empty() && signature.empty()) return {};
    Block block;
    block.type = thought || text->empty() ? BlockType::Thinking : BlockType::Text;
    block.text = std::string(*text);
    // A thought is Gemini's even unsigned: its signature may be on the part after it.
    if (block.type == BlockType::Thinking) block.signature_origin = Protocol::Gemini;
    sign(block);
    out.push_back(std::move(block));
    return {};
  }
  if (json::object const* call = objectMember(part, "functionCall", "function_call")) {
    Block block;
    block.type = BlockType::ToolCall;
    block.name = std::string(stringMember(*call, "name", "").value_or(""));
    if (block.name.empty()) {
      return makeError(ErrorKind::UpstreamProtocol, "Gemini returned a functionCall without a name");
    }
    json::object const* args = objectMember(*call, "args", "");
    block.arguments = args != nullptr ? json::serialize(*args) : "{}";
    block.id = std::string(stringMember(*call, "id", "").value_or(""));
    if (block.id.empty()) block.id = madeUpCallId(seed, calls, block.name);
    ++calls;
    sign(block);
    out.push_back(std::move(block));
    return {};
  }
  if (auto media = mediaBlock(part)) {
    if (!media->ok()) return makeError(ErrorKind::UpstreamProtocol, media->error().message);
    out.push_back(std::move(media->value()));
  }
  return {};
}

}  // namespace

Result<Response> decodeResponse(std::string_view body) {
  auto parsed = parseObject(body, "the Gemini response");
  if (!parsed) return makeError(ErrorKind::UpstreamProtocol, parsed.error().message);
  json::object const& root = *parsed;
  if (json::object const* error = objectMember(root, "error", "")) {
    int code = static_cast<int>(intMember(*error, "code", "").value_or(502));
    std::string message(stringMember(*error, "message", "").value_or("the upstream failed"));
    return makeError(ErrorKind::UpstreamStatus, std::move(message), code);
  }
  Response response;
  response.id = std::string(stringMember(root, "responseId", "response_id").value_or(""));
  response.model = std::string(stringMember(root, "modelVersion", "model_version").value_or(""));
  json::array const* candidates = arrayMember(root, "candidates", "");
  json::object const* candidate = nullptr;
  if (candidates != nullptr && !candidates->empty() && (*candidates)[0].is_object()) {
    candidate = &(*candidates)[0].get_object();
  }
  bool has_calls = false;
  std::string_view finish;
  if (candidate != nullptr) {
    if (json::object const* content = objectMember(*candidate, "content", "")) {
      if (json::array const* parts = arrayMember(*content, "parts", "")) {
        std::size_t calls = 0;
        for (auto const& p : *parts) {
          if (!p.is_object()) continue;
          if (auto ok = appendBlocks(p.get_object(), response.id, calls, response.content); !ok) {
            return ok.error();
          }
        }
        has_calls = calls > 0;
      }
    }
    finish = stringMember(*candidate, "finishReason", "finish_reason").value_or("STOP");
    response.stop = stopFromFinishReason(finish, has_calls);
  } else if (json::object const* feedback = objectMember(root, "promptFeedback", "prompt_feedback");
             feedback != nullptr && member(*feedback, "blockReason", "block_reason") != nullptr) {
    // A blocked prompt: HTTP 200, no candidates (REFERENCE §4.3).
    response.stop = StopReason::ContentFilter;
  }
  if (json::object const* metadata = objectMember(root, "usageMetadata", "usage_metadata")) {
    response.usage = usageFromMetadata(*metadata);
  }
  fixZeroCompletion(response);
  return response;
}

std::string encodeResponse(Response const& response, EncodeOptions const& options) {
  std::string parts;
  std::string_view model = options.model.empty() ? std::string_view(response.model) : options.model;
  bool first_call = needsForeignCallSignature(model);
  for (Block const& block : response.content) {
    std::string_view signature = geminiSignature(block);
    std::size_t before = parts.size();
    if (!parts.empty()) parts += ',';
    switch (block.type) {
      case BlockType::Text:
        if (block.text.empty() && signature.empty()) break;
        appendTextPart(parts, block.text, false, signature);
        continue;
      case BlockType::Thinking:
        if (block.text.empty() && signature.empty()) break;
        appendTextPart(parts, block.text, !block.text.empty(), signature);
        continue;
      case BlockType::ToolCall:
        // A call another provider made has no Gemini signature: the client must still be able to
        // send it back to Gemini 3 itself (only the first call of a turn is checked).
        if (signature.empty() && first_call) signature = kForeignCallSignature;
        first_call = false;
        appendCallPart(parts, block.name, argumentsObjectText(block.arguments), block.id, signature);
        continue;
      case BlockType::Image:
      case BlockType::Document:
        parts += '{';
        if (!appendMediaMember(parts, block)) break;
        parts += '}';
        continue;
      case BlockType::ToolResult:
      case BlockType::RedactedThinking:
        break;
    }
    parts.resize(before);  // nothing Gemini can show
  }
  std::string out = "{\"candidates\":[{\"content\":";
  if (!parts.empty()) {
    out += "{\"parts\":[";
    out += parts;
    out += "],\"role\":\"model\"}";
  } else if (response.stop == StopReason::ContentFilter) {
    out += "{}";  // what Gemini itself sends for a blocked answer
  } else {
    out += "{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"}";
  }
  out += ",\"finishReason\":\"";
  out += finishReasonFor(response.stop);
  out += "\",\"index\":0}]";
  // Gemini always reports usage; an upstream that did not is shown as zeros.
  out += ',';
  appendUsageMetadata(out, response.usage.value_or(Usage{}));
  out += ",\"modelVersion\":";
  appendJsonText(out, options.model.empty() ? response.model : options.model);
  out += ",\"responseId\":";
  appendJsonText(out, response.id.empty() ? options.id : response.id);
  out += '}';
  return out;
}

}  // namespace llmux::translate::gemini

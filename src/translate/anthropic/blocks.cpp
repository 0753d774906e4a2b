#include "translate/anthropic/blocks.h"

#include <boost/json/parse.hpp>

#include "translate/anthropic/wire.h"
#include "translate/json_access.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;

Error malformed(std::string_view where, std::string_view what) {
  return makeError(ErrorKind::InvalidRequest, std::string(where) + ": " + std::string(what));
}

bool hasCacheControl(json::object const& block, std::vector<std::string>& dropped) {
  json::object const* cc = objectAt(block, "cache_control");
  if (cc == nullptr) return false;
  if (cc->contains("ttl")) addDropped(dropped, "cache_control.ttl");
  return true;
}

/// image / document `source` into `b`.
Result<void> decodeSource(json::object const& block, std::string_view where, Block& b,
                          std::vector<std::string>& dropped) {
  json::object const* source = objectAt(block, "source");
  if (source == nullptr) return malformed(where, "`source` must be an object");
  std::string_view type = stringAt(*source, "type").value_or("");
  if (type == "base64") {
    auto media = stringAt(*source, "media_type");
    auto data = stringAt(*source, "data");
    if (!media || !data) return malformed(where, "a base64 source needs `media_type` and `data`");
    b.media_type = *media;
    b.data = *data;
  } else if (type == "url") {
    auto url = stringAt(*source, "url");
    if (!url) return malformed(where, "a url source needs `url`");
    b.url = *url;
  } else if (type == "file") {
    auto id = stringAt(*source, "file_id");
    if (!id) return malformed(where, "a file source needs `file_id`");
    b.file_id = *id;
    b.file_origin = Protocol::Anthropic;
  } else if (type == "text" && b.type == BlockType::Document) {
    auto data = stringAt(*source, "data");
    if (!data) return malformed(where, "a text source needs `data`");
    b.media_type = stringAt(*source, "media_type").value_or("text/plain");
    b.data = base64Encode(*data);
  } else if (type == "content" && b.type == BlockType::Document) {
    addDropped(dropped, "document.source.content");
  } else {
    return malformed(where, "unsupported source type \"" + std::string(type) + "\"");
  }
  return {};
}

Result<void> decodeToolResult(json::object const& block, std::string_view where, Block& b,
                              std::vector<std::string>& dropped) {
  auto id = stringAt(block, "tool_use_id");
  if (!id) return malformed(where, "tool_result needs a string `tool_use_id`");
  b.id = *id;
  b.is_error = boolAt(block, "is_error").value_or(false);
  json::value const* content = block.if_contains("content");
  if (content == nullptr || content->is_null()) return {};
  if (content->is_string()) {
    Block text;
    text.text = content->get_string();
    b.content.push_back(std::move(text));
    return {};
  }
  if (!content->is_array())
    return malformed(where, "tool_result `content` must be a string or a list");
  std::string inner_where = std::string(where) + ".content";
  std::size_t k = 0;
  for (auto const& item : content->get_array()) {
    if (!item.is_object()) return malformed(inner_where, "content blocks must be objects");
    std::vector<Block> inner;
    auto ok =
        decodeBlock(item.get_object(), inner_where + "." + std::to_string(k++), inner, dropped);
    if (!ok) return ok;
    for (Block& piece : inner) {
      if (piece.type == BlockType::Text || piece.type == BlockType::Image ||
          piece.type == BlockType::Document) {
        b.content.push_back(std::move(piece));
      } else {
        addDropped(dropped, "tool_result.content");
      }
    }
  }
  return {};
}

}  // namespace

Result<void> decodeBlock(json::object const& block, std::string_view where, std::vector<Block>& out,
                         std::vector<std::string>& dropped) {
  auto type_field = stringAt(block, "type");
  if (!type_field) return malformed(where, "a content block needs a string `type`");
  std::string_view type = *type_field;
  Block b;
  if (type == "text") {
    auto text = stringAt(block, "text");
    if (!text) return malformed(where, "text block needs a string `text`");
    b.type = BlockType::Text;
    b.text = *text;
    if (auto const* citations = block.if_contains("citations");
        citations && !citations->is_null()) {
      addDropped(dropped, "citations");
    }
  } else if (type == "image" || type == "document") {
    b.type = type == "image" ? BlockType::Image : BlockType::Document;
    auto ok = decodeSource(block, where, b, dropped);
    if (!ok) return ok;
    if (b.data.empty() && b.url.empty() && b.file_id.empty()) return {};  // nothing carried
    if (type == "document") {
      for (std::string_view key : {"title", "context", "citations"}) {
        if (block.contains(key)) addDropped(dropped, "document." + std::string(key));
      }
    }
  } else if (type == "tool_use") {
    auto id = stringAt(block, "id");
    auto name = stringAt(block, "name");
    if (!id || !name) return malformed(where, "tool_use needs string `id` and `name`");
    b.type = BlockType::ToolCall;
    b.id = *id;
    b.name = *name;
    json::value const* input = block.if_contains("input");
    if (input != nullptr && !input->is_null() && !input->is_object()) {
      return malformed(where, "tool_use `input` must be an object");
    }
    b.arguments = input != nullptr && input->is_object() ? toJson(*input) : "{}";
  } else if (type == "tool_result") {
    b.type = BlockType::ToolResult;
    auto ok = decodeToolResult(block, where, b, dropped);
    if (!ok) return ok;
  } else if (type == "thinking") {
    auto thinking = stringAt(block, "thinking");
    if (!thinking) return malformed(where, "thinking block needs a string `thinking`");
    b.type = BlockType::Thinking;
    b.text = *thinking;
    Signature sig = parseClientSignature(stringAt(block, "signature").value_or(""));
    b.signature = std::move(sig.value);
    b.signature_origin = sig.origin;
  } else if (type == "redacted_thinking") {
    auto data = stringAt(block, "data");
    if (!data) return malformed(where, "redacted_thinking block needs a string `data`");
    b.type = BlockType::RedactedThinking;
    Signature sig = parseClientSignature(*data);
    b.signature = std::move(sig.value);
    b.signature_origin = sig.origin;
  } else {
    // Server tool blocks, search results, container uploads...: provider-side state that no
    // other protocol can carry.
    addDropped(dropped, type);
    return {};
  }
  b.cache_marker = hasCacheControl(block, dropped);
  out.push_back(std::move(b));
  return {};
}

std::string_view argumentsObject(std::string_view arguments) {
  std::size_t start = arguments.find_first_not_of(" \t\r\n");
  if (start == std::string_view::npos || arguments[start] != '{') return "{}";
  boost::system::error_code ec;
  json::value v = json::parse(arguments, ec);
  if (ec || !v.is_object()) return "{}";
  return arguments;
}

bool writeAnswerBlock(JsonOut& out, Block const& block, Block const* next,
                      std::string_view id_seed, std::size_t n) {
  switch (block.type) {
    case BlockType::Text:
      out.beginObject().str("type", "text").str("text", block.text).endObject();
      return true;
    case BlockType::Thinking: {
      std::string signature = thinkingSignature(block.signature, block.signature_origin, next);
      if (signature.empty()) {
        if (block.text.empty()) return false;  // nothing to show, nothing to carry
        signature = unsignedThinkingSignature(block.signature_origin);
      }
      out.beginObject().str("type", "thinking").str("thinking", block.text);
      out.str("signature", signature).endObject();
      return true;
    }
    case BlockType::RedactedThinking: {
      std::string data = clientSignature(block.signature, block.signature_origin);
      if (data.empty()) return false;
      out.beginObject().str("type", "redacted_thinking").str("data", data).endObject();
      return true;
    }
    case BlockType::ToolCall:
      out.beginObject().str("type", "tool_use").str("id", toolUseId(block.id, id_seed, n));
      out.str("name", block.name).raw("input", argumentsObject(block.arguments)).endObject();
      return true;
    default:
      return false;  // images, documents and tool results are not part of an answer
  }
}

}  // namespace llmux::translate::anthropic

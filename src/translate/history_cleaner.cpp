#include "translate/history_cleaner.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <functional>

#include "translate/openai_responses/wire.h"

namespace llmux::translate {
namespace {

namespace json = boost::json;

// Members are removed with stable_erase: a plain erase moves the last member into the gap, and
// the body is meant to keep its order.

/// The tag another protocol's signature carries in a client's field (translate/signature_tag.h).
constexpr std::string_view kTaggedSignature = "llmux:";

bool contains(std::string_view body, std::string_view needle) {
  // Boyer-Moore-Horspool: most bodies are scanned once and hold no match; JSON is full of the
  // needles' first byte (a quote), which slows a plain find down.
  std::boyer_moore_horspool_searcher searcher(needle.begin(), needle.end());
  return std::search(body.begin(), body.end(), searcher) != body.end();
}

std::optional<json::object> parseObject(std::string_view body) {
  boost::system::error_code ec;
  json::parse_options options;
  options.max_depth = 256;
  json::value root = json::parse(body, ec, {}, options);
  if (ec || !root.is_object()) return std::nullopt;
  return std::move(root.get_object());
}

std::string_view stringMember(json::object const& o, std::string_view key) {
  json::value const* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

/// A thinking block Anthropic would refuse: its signature was made by llmux (tagged) or is empty.
bool mintedThinking(json::object const& block) {
  std::string_view type = stringMember(block, "type");
  std::string_view opaque;
  if (type == "thinking") {
    opaque = stringMember(block, "signature");
  } else if (type == "redacted_thinking") {
    opaque = stringMember(block, "data");
  } else {
    return false;
  }
  return opaque.empty() || opaque.starts_with(kTaggedSignature);
}

bool isThinking(json::value const& block) {
  if (!block.is_object()) return false;
  std::string_view type = stringMember(block.get_object(), "type");
  return type == "thinking" || type == "redacted_thinking";
}

bool isToolUse(json::value const& block) {
  return block.is_object() && stringMember(block.get_object(), "type") == "tool_use";
}

/// Anthropic's rule for thinking with tools: the last assistant turn, when it holds tool calls,
/// starts with a thinking block.
bool lastToolTurnLacksThinking(json::array const& messages) {
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    if (!it->is_object() || stringMember(it->get_object(), "role") != "assistant") continue;
    json::value const* content = it->get_object().if_contains("content");
    if (content == nullptr || !content->is_array()) return false;
    json::array const& blocks = content->get_array();
    if (std::none_of(blocks.begin(), blocks.end(), isToolUse)) return false;
    return blocks.empty() || !isThinking(blocks.front());
  }
  return false;
}

/// Without `thinking`, context-management edits that clear thinking have nothing to work on (and
/// are only valid with thinking on): they go too, and the whole member when no edit is left.
void dropThinking(json::object& request) {
  request.stable_erase("thinking");
  json::value* management = request.if_contains("context_management");
  if (management == nullptr || !management->is_object()) return;
  json::value* edits = management->get_object().if_contains("edits");
  if (edits == nullptr || !edits->is_array()) return;
  json::array& list = edits->get_array();
  for (std::size_t i = list.size(); i-- > 0;) {
    if (list[i].is_object() &&
        stringMember(list[i].get_object(), "type").starts_with("clear_thinking")) {
      list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  if (list.empty() && management->get_object().size() == 1)
    request.stable_erase("context_management");
}

bool thinkingOn(json::object const& request) {
  json::value const* thinking = request.if_contains("thinking");
  if (thinking == nullptr || !thinking->is_object()) return false;
  std::string_view type = stringMember(thinking->get_object(), "type");
  return type == "enabled" || type == "adaptive";
}

std::optional<std::string> cleanAnthropic(std::string_view body) {
  if (!contains(body, "\"llmux:") && !contains(body, "\"signature\":\"\"") &&
      !contains(body, "\"signature\": \"\"")) {
    return std::nullopt;
  }
  auto request = parseObject(body);
  if (!request) return std::nullopt;
  json::value* messages = request->if_contains("messages");
  if (messages == nullptr || !messages->is_array()) return std::nullopt;
  json::array& list = messages->get_array();
  bool changed = false;
  for (std::size_t i = list.size(); i-- > 0;) {
    if (!list[i].is_object()) continue;
    json::value* content = list[i].get_object().if_contains("content");
    if (content == nullptr || !content->is_array()) continue;
    json::array& blocks = content->get_array();
    std::size_t before = blocks.size();
    for (std::size_t b = blocks.size(); b-- > 0;) {
      if (blocks[b].is_object() && mintedThinking(blocks[b].get_object())) {
        blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(b));
      }
    }
    if (blocks.size() == before) continue;
    changed = true;
    // Anthropic refuses an empty message; its neighbours of the same role are merged by Anthropic.
    if (blocks.empty()) list.erase(list.begin() + static_cast<std::ptrdiff_t>(i));
  }
  if (!changed) return std::nullopt;
  if (thinkingOn(*request) && lastToolTurnLacksThinking(list)) dropThinking(*request);
  return json::serialize(*request);
}

std::optional<std::string> cleanResponses(std::string_view body) {
  std::string needle = "\"" + std::string(openai_responses::kMintedReasoningPrefix);
  if (!contains(body, needle)) return std::nullopt;
  auto request = parseObject(body);
  if (!request) return std::nullopt;
  json::value* input = request->if_contains("input");
  if (input == nullptr || !input->is_array()) return std::nullopt;
  json::array& items = input->get_array();
  bool changed = false;
  for (std::size_t i = items.size(); i-- > 0;) {
    if (!items[i].is_object()) continue;
    json::object& item = items[i].get_object();
    if (stringMember(item, "type") != "reasoning" ||
        !stringMember(item, "id").starts_with(openai_responses::kMintedReasoningPrefix)) {
      continue;
    }
    changed = true;
    std::string_view encrypted = stringMember(item, "encrypted_content");
    if (!encrypted.empty() && !encrypted.starts_with(kTaggedSignature)) {
      item.stable_erase("id");  // the content is OpenAI's own; only the id was made up
    } else {
      // Nothing, or another provider's signature carried for it (tagged): OpenAI cannot read it.
      items.erase(items.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  if (!changed) return std::nullopt;
  return json::serialize(*request);
}

}  // namespace

std::optional<std::string> cleanForeignReasoning(Protocol protocol, std::string_view body) {
  switch (protocol) {
    case Protocol::Anthropic:
      return cleanAnthropic(body);
    case Protocol::OpenAiResponses:
      return cleanResponses(body);
    case Protocol::OpenAiChat:
    case Protocol::Gemini:
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace llmux::translate

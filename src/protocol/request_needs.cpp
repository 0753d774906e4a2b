#include "protocol/request_needs.h"

#include <cstring>
#include <vector>

#include "protocol/json_scan.h"

namespace llmux::protocol {
namespace {

bool isWhitespace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/// Whether the array token at [begin, end) has at least one element.
bool nonEmptyArray(std::string_view body, std::size_t begin, std::size_t end) {
  for (std::size_t i = begin + 1; i < end; ++i) {
    if (!isWhitespace(body[i])) return body[i] != ']';
  }
  return false;
}

/// One pass over a well-formed JSON value (scanJson accepted the document), calling
/// `on_string(key, parent_key, content)` for every string value inside an object: `key` is its
/// member name, `parent_key` the member name the enclosing object hangs under (through arrays),
/// `content` the bytes between the quotes. Keys are compared as written (escapes not decoded: no
/// client escapes these ASCII names). Also reports `on_array(key, non_empty)` for arrays.
template <typename OnString, typename OnArray>
void walk(std::string_view text, std::size_t begin, std::size_t end, OnString on_string,
          OnArray on_array) {
  struct Frame {
    bool object;
    std::string_view key;  ///< the member name the container is the value of
  };
  std::vector<Frame> stack;
  stack.reserve(16);
  std::string_view key;  // the current member name (objects)
  bool expect_key = false;
  for (std::size_t i = begin; i < end; ++i) {
    char const c = text[i];
    switch (c) {
      case '{':
      case '[': {
        std::string_view opened_by = (!stack.empty() && !stack.back().object) ? stack.back().key : key;
        if (c == '[') on_array(opened_by, nonEmptyArray(text, i, end));
        stack.push_back({c == '{', opened_by});
        expect_key = c == '{';
        key = {};
        break;
      }
      case '}':
      case ']':
        if (!stack.empty()) stack.pop_back();
        key = {};
        expect_key = false;
        break;
      case ',':
        expect_key = !stack.empty() && stack.back().object;
        break;
      case ':':
        expect_key = false;
        break;
      case '"': {
        std::size_t j = i + 1;
        while (j < end) {  // find the closing quote, skipping escaped characters
          char const* quote = static_cast<char const*>(std::memchr(text.data() + j, '"', end - j));
          if (quote == nullptr) return;
          j = static_cast<std::size_t>(quote - text.data());
          std::size_t backslashes = 0;
          while (j - backslashes > i + 1 && text[j - 1 - backslashes] == '\\') ++backslashes;
          if (backslashes % 2 == 0) break;
          ++j;
        }
        std::string_view content = text.substr(i + 1, j - i - 1);
        if (!stack.empty() && stack.back().object) {
          if (expect_key) {
            key = content;
          } else {
            on_string(key, stack.back().key, content);
          }
        }
        i = j;
        break;
      }
      default:
        break;
    }
  }
}

bool isImageType(std::string_view type) {
  return type == "image_url" || type == "input_image" || type == "image";
}

bool isGeminiMediaPart(std::string_view key) {
  return key == "inlineData" || key == "inline_data" || key == "fileData" || key == "file_data";
}

/// The member holding the conversation, where images are.
bool isConversation(Protocol protocol, JsonMember const& member) {
  switch (protocol) {
    case Protocol::OpenAiChat:
    case Protocol::Anthropic: return member.keyIs("messages");
    case Protocol::OpenAiResponses: return member.keyIs("input");
    case Protocol::Gemini: return member.keyIs("contents");
  }
  return false;
}

bool offersTools(Protocol protocol, std::string_view body, JsonMember const& tools) {
  if (tools.type != JsonType::Array) return false;
  if (protocol != Protocol::Gemini) return nonEmptyArray(body, tools.value_begin, tools.value_end);
  bool declared = false;
  walk(
      body, tools.value_begin, tools.value_end, [](auto, auto, auto) {},
      [&](std::string_view key, bool non_empty) {
        if (non_empty && (key == "functionDeclarations" || key == "function_declarations")) {
          declared = true;
        }
      });
  return declared;
}

}  // namespace

RequestNeeds needsOf(Protocol protocol, std::string_view body) {
  RequestNeeds needs;
  // Most bodies hold none of the words the scan below looks for (member names are compared as
  // written, so each is in the body's bytes when it counts): then the scan would find nothing.
  if (body.find("tools") == std::string_view::npos && body.find("image") == std::string_view::npos &&
      body.find("data") == std::string_view::npos) {
    needs.prompt_tokens = static_cast<std::int64_t>(body.size() / 4);
    return needs;
  }
  std::size_t base64_bytes = 0;
  JsonScan scan = scanJson(body);
  if (scan.ok() && scan.root == JsonType::Object) {
    for (JsonMember const& member : scan.members) {
      if (member.keyIs("tools")) {
        needs.tools = needs.tools || offersTools(protocol, body, member);
      } else if (isConversation(protocol, member) && member.type == JsonType::Array) {
        walk(
            body, member.value_begin, member.value_end,
            [&](std::string_view key, std::string_view parent, std::string_view value) {
              if (key == "type" && isImageType(value)) needs.vision = true;
              if ((key == "mimeType" || key == "mime_type") && value.starts_with("image/") &&
                  isGeminiMediaPart(parent)) {
                needs.vision = true;
              }
              if (key == "data" || value.starts_with("data:")) base64_bytes += value.size();
            },
            [](auto, auto) {});
      }
    }
  }
  std::size_t const counted = body.size() - std::min(base64_bytes, body.size());
  needs.prompt_tokens = static_cast<std::int64_t>(counted / 4);
  return needs;
}

}  // namespace llmux::protocol

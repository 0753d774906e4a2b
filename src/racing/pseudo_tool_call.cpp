#include "racing/pseudo_tool_call.h"

#include <array>
#include <string>

namespace llmux::racing {
namespace {

// Full-width vertical bar U+FF5C and the SentencePiece space U+2581, as models print them.
constexpr std::string_view kFullWidthBar = "\xEF\xBD\x9C";
constexpr std::string_view kSentencePieceSpace = "\xE2\x96\x81";

/// JSON escapes of the characters the markers use: a branch's first content is checked as it
/// came on the wire, and encoders escape `<`, `>` (Go's) or everything outside ASCII (Python's).
struct Escape {
  std::string_view text;
  char as;
};
constexpr std::array<Escape, 5> kEscapes = {{{"\\u003c", '<'},
                                            {"\\u003e", '>'},
                                            {"\\u007c", '|'},
                                            {"\\uff5c", '|'},
                                            {"\\u2581", '_'}}};

/// Lower case, full-width bars as '|', SentencePiece spaces as '_', the escapes above unescaped.
std::string normalised(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::string_view rest = text.substr(i);
    if (rest.size() >= 6 && rest[0] == '\\' && (rest[1] == 'u' || rest[1] == 'U')) {
      std::string lower(rest.substr(0, 6));
      for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
      bool matched = false;
      for (auto const& escape : kEscapes) {
        if (lower == escape.text) {
          out.push_back(escape.as);
          i += 6;
          matched = true;
          break;
        }
      }
      if (matched) continue;
    }
    if (rest.starts_with(kFullWidthBar)) {
      out.push_back('|');
      i += kFullWidthBar.size();
    } else if (rest.starts_with(kSentencePieceSpace)) {
      out.push_back('_');
      i += kSentencePieceSpace.size();
    } else {
      char c = text[i++];
      out.push_back(c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c);
    }
  }
  return out;
}

}  // namespace

bool looksLikePseudoToolCall(std::string_view content) {
  static constexpr std::array<std::string_view, 5> kMarkers = {
      "<tool_call", "<|tool_call", "<function_call", "[tool_calls]", "<|python_tag|>"};
  std::string const text = normalised(content);
  for (auto marker : kMarkers) {
    if (text.find(marker) != std::string::npos) return true;
  }
  return false;
}

}  // namespace llmux::racing

#include "racing/pseudo_tool_call.h"

#include <array>
#include <string>

namespace llmux::racing {
namespace {

// Full-width vertical bar U+FF5C and the SentencePiece space U+2581, as models print them.
constexpr std::string_view kFullWidthBar = "\xEF\xBD\x9C";
constexpr std::string_view kSentencePieceSpace = "\xE2\x96\x81";

/// Lower case, full-width bars as '|', SentencePiece spaces as '_'.
std::string normalised(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::string_view rest = text.substr(i);
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

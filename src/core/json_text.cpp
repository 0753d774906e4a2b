#include "core/json_text.h"

#include "core/ascii_scan.h"

namespace llmux {

void appendJsonString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  // Runs of plain bytes (nearly all of any real text) are appended whole.
  for (;;) {
    std::size_t plain = findJsonSpecial(s);
    out.append(s.data(), plain);
    if (plain == s.size()) break;
    auto c = static_cast<unsigned char>(s[plain]);
    s.remove_prefix(plain + 1);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.push_back('"');
}

std::string jsonQuote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  appendJsonString(out, s);
  return out;
}

}  // namespace llmux

#include "translate/anthropic/json_out.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace llmux::translate::anthropic {
namespace {

/// A JSON string literal of `s`, escaping what RFC 8259 requires. Runs of plain bytes are copied
/// in one piece: request bodies are mostly long prompt text.
/// Whether any of the 8 bytes at `p` must be escaped (< 0x20, '"' or '\\'): SWAR tests, so that
/// plain text is skipped a word at a time.
bool needsEscape8(char const* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  auto zero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  std::uint64_t control = (w - kOnes * 0x20) & ~w & kHigh;
  return (control | zero(w ^ (kOnes * '"')) | zero(w ^ (kOnes * '\\'))) != 0;
}

void appendString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    while (i + 8 <= s.size() && !needsEscape8(s.data() + i)) i += 8;
    if (i >= s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\b':
        out += "\\b";
        break;
      case '\f':
        out += "\\f";
        break;
      default:
        out += "\\u00";
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

}  // namespace

void JsonOut::separate() {
  if (comma_) out_.push_back(',');
  comma_ = true;
}

void JsonOut::key(std::string_view key) {
  separate();
  appendString(out_, key);
  out_.push_back(':');
}

JsonOut& JsonOut::beginObject() {
  separate();
  out_.push_back('{');
  comma_ = false;
  return *this;
}

JsonOut& JsonOut::beginObject(std::string_view k) {
  key(k);
  out_.push_back('{');
  comma_ = false;
  return *this;
}

JsonOut& JsonOut::endObject() {
  out_.push_back('}');
  comma_ = true;
  return *this;
}

JsonOut& JsonOut::beginArray() {
  separate();
  out_.push_back('[');
  comma_ = false;
  return *this;
}

JsonOut& JsonOut::beginArray(std::string_view k) {
  key(k);
  out_.push_back('[');
  comma_ = false;
  return *this;
}

JsonOut& JsonOut::endArray() {
  out_.push_back(']');
  comma_ = true;
  return *this;
}

JsonOut& JsonOut::str(std::string_view k, std::string_view value) {
  key(k);
  appendString(out_, value);
  return *this;
}

JsonOut& JsonOut::str(std::string_view value) {
  separate();
  appendString(out_, value);
  return *this;
}

JsonOut& JsonOut::num(std::string_view k, std::int64_t value) {
  key(k);
  out_ += std::to_string(value);
  return *this;
}

JsonOut& JsonOut::dbl(std::string_view k, double value) {
  key(k);
  if (!std::isfinite(value)) {
    out_ += "null";  // JSON has no NaN or infinity
    return *this;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string_view text(buffer, ec == std::errc() ? static_cast<std::size_t>(end - buffer) : 0);
  out_ += text.empty() ? std::string_view("0") : text;
  return *this;
}

JsonOut& JsonOut::boolean(std::string_view k, bool value) {
  key(k);
  out_ += value ? "true" : "false";
  return *this;
}

JsonOut& JsonOut::null(std::string_view k) {
  key(k);
  out_ += "null";
  return *this;
}

JsonOut& JsonOut::raw(std::string_view k, std::string_view json) {
  key(k);
  out_ += json;
  return *this;
}

JsonOut& JsonOut::raw(std::string_view json) {
  separate();
  out_ += json;
  return *this;
}

}  // namespace llmux::translate::anthropic

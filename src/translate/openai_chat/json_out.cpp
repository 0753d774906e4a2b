#include "translate/openai_chat/json_out.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace llmux::translate::openai_chat {
namespace {

/// Whether none of the eight bytes at `p` needs escaping in a JSON string.
bool isPlain(char const* p) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ull;
  constexpr std::uint64_t kHighs = 0x8080808080808080ull;
  std::uint64_t w;
  std::memcpy(&w, p, 8);
  auto hasZero = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  std::uint64_t below_space = (w - kOnes * 0x20) & ~w & kHighs;
  return (below_space | hasZero(w ^ (kOnes * '"')) | hasZero(w ^ (kOnes * '\\'))) == 0;
}

/// Appends `s` as a JSON string literal. Plain bytes are copied in runs: long prompts and tool
/// results are mostly plain, and byte-by-byte appending costs several times more.
void appendString(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + s.size() + 2);
  out.push_back('"');
  std::size_t run = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    // Eight plain bytes at a time (no control character, quote or backslash among them).
    while (i + 8 <= s.size() && isPlain(s.data() + i)) i += 8;
    if (i == s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.data() + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': out.append("\\\""); break;
      case '\\': out.append("\\\\"); break;
      case '\n': out.append("\\n"); break;
      case '\r': out.append("\\r"); break;
      case '\t': out.append("\\t"); break;
      case '\b': out.append("\\b"); break;
      case '\f': out.append("\\f"); break;
      default:
        out.append("\\u00");
        out.push_back(kHex[c >> 4]);
        out.push_back(kHex[c & 0xF]);
    }
  }
  out.append(s.data() + run, s.size() - run);
  out.push_back('"');
}

}  // namespace

void JsonOut::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (need_comma_) out_.push_back(',');
}

JsonOut& JsonOut::beginObject() {
  separate();
  out_.push_back('{');
  need_comma_ = false;
  return *this;
}

JsonOut& JsonOut::beginObject(std::string_view k) { return key(k).beginObject(); }

JsonOut& JsonOut::endObject() {
  out_.push_back('}');
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::beginArray() {
  separate();
  out_.push_back('[');
  need_comma_ = false;
  return *this;
}

JsonOut& JsonOut::beginArray(std::string_view k) { return key(k).beginArray(); }

JsonOut& JsonOut::endArray() {
  out_.push_back(']');
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::key(std::string_view k) {
  separate();
  appendString(out_, k);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::str(std::string_view value) {
  separate();
  appendString(out_, value);
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::str(std::string_view k, std::string_view value) { return key(k).str(value); }

JsonOut& JsonOut::num(std::string_view k, std::int64_t value) {
  key(k);
  separate();
  char buffer[24];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out_.append(buffer, end);
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::num(std::string_view k, double value) {
  key(k);
  separate();
  appendJsonNumber(out_, value);
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::boolean(std::string_view k, bool value) {
  key(k);
  separate();
  out_.append(value ? "true" : "false");
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::null(std::string_view k) {
  key(k);
  separate();
  out_.append("null");
  need_comma_ = true;
  return *this;
}

JsonOut& JsonOut::raw(std::string_view k, std::string_view json) {
  key(k);
  separate();
  out_.append(json);
  need_comma_ = true;
  return *this;
}

void appendJsonNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out.push_back('0');
    return;
  }
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, end);
}

}  // namespace llmux::translate::openai_chat

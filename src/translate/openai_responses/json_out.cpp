#include "translate/openai_responses/json_out.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace llmux::translate::openai_responses {

void appendString(std::string& out, std::string_view s) {
  out.push_back('"');
  appendEscaped(out, s);
  out.push_back('"');
}

namespace {

/// Whether any of the 8 bytes needs escaping: a control character, '"' or '\\' (bit tricks
/// from "Bit Twiddling Hacks"; a false alarm only costs the byte-by-byte path).
bool needsEscape(std::uint64_t w) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  auto zeroByte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHigh; };
  std::uint64_t control = (w - kOnes * 0x20) & ~w & kHigh;
  return (control | zeroByte(w ^ (kOnes * '"')) | zeroByte(w ^ (kOnes * '\\'))) != 0;
}

}  // namespace

void appendEscaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  char const* p = s.data();
  char const* end = p + s.size();
  char const* run = p;
  while (p < end) {
    // Long prompts are mostly plain text: skip it 8 bytes at a time.
    while (end - p >= 8) {
      std::uint64_t w;
      std::memcpy(&w, p, 8);
      if (needsEscape(w)) break;
      p += 8;
    }
    if (p == end) break;
    auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++p;
      continue;
    }
    out.append(run, p);
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
    run = ++p;
  }
  out.append(run, end);
}

void appendNumber(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  if (ec != std::errc()) {
    out += "null";
    return;
  }
  out.append(buf, end);
}

std::string& ObjectWriter::key(std::string_view key) {
  if (!first_) out_.push_back(',');
  first_ = false;
  appendString(out_, key);
  out_.push_back(':');
  return out_;
}

ObjectWriter& ObjectWriter::str(std::string_view k, std::string_view value) {
  appendString(key(k), value);
  return *this;
}

ObjectWriter& ObjectWriter::integer(std::string_view k, std::int64_t value) {
  key(k) += std::to_string(value);
  return *this;
}

ObjectWriter& ObjectWriter::number(std::string_view k, double value) {
  appendNumber(key(k), value);
  return *this;
}

ObjectWriter& ObjectWriter::boolean(std::string_view k, bool value) {
  key(k) += value ? "true" : "false";
  return *this;
}

ObjectWriter& ObjectWriter::null(std::string_view k) {
  key(k) += "null";
  return *this;
}

ObjectWriter& ObjectWriter::raw(std::string_view k, std::string_view json) {
  key(k) += json;
  return *this;
}

}  // namespace llmux::translate::openai_responses

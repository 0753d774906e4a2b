#include "translate/anthropic/json_out.h"

#include <charconv>
#include <cmath>

#include "core/json_text.h"

namespace llmux::translate::anthropic {

void JsonOut::separate() {
  if (comma_) out_.push_back(',');
  comma_ = true;
}

void JsonOut::key(std::string_view key) {
  separate();
  appendJsonString(out_, key);
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
  appendJsonString(out_, value);
  return *this;
}

JsonOut& JsonOut::str(std::string_view value) {
  separate();
  appendJsonString(out_, value);
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

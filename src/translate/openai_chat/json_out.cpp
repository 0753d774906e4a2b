#include "translate/openai_chat/json_out.h"

#include <charconv>
#include <cmath>

#include "core/json_text.h"

namespace llmux::translate::openai_chat {

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
  appendJsonString(out_, k);
  out_.push_back(':');
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::str(std::string_view value) {
  separate();
  appendJsonString(out_, value);
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

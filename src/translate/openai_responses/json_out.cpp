#include "translate/openai_responses/json_out.h"

#include <charconv>
#include <cmath>

#include "core/json_text.h"

namespace llmux::translate::openai_responses {

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
  appendJsonString(out_, key);
  out_.push_back(':');
  return out_;
}

ObjectWriter& ObjectWriter::str(std::string_view k, std::string_view value) {
  appendJsonString(key(k), value);
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

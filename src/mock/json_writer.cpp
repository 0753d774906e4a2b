#include "mock/json_writer.h"

#include <boost/json/value.hpp>
#include <charconv>
#include <cmath>

#include "core/json_text.h"

namespace llmux::mock {

JsonWriter::JsonWriter(std::string& out, JsonStyle style) : out_(out), style_(style) {
  levels_.reserve(8);
}

void JsonWriter::newline() {
  int width = style_ == JsonStyle::Indent2 ? 2 : style_ == JsonStyle::Indent4 ? 4 : 0;
  if (width == 0) return;
  out_.push_back('\n');
  out_.append(levels_.size() * static_cast<std::size_t>(width), ' ');
}

void JsonWriter::beforeValue() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) return;
  Level& level = levels_.back();
  if (!level.empty) {
    out_.push_back(',');
    if (style_ == JsonStyle::PythonLine) out_.push_back(' ');
  }
  level.empty = false;
  newline();
}

JsonWriter& JsonWriter::beginObject() {
  beforeValue();
  out_.push_back('{');
  levels_.push_back(Level{});
  return *this;
}

JsonWriter& JsonWriter::endObject() {
  bool was_empty = levels_.back().empty;
  levels_.pop_back();
  if (!was_empty) newline();
  out_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::beginArray() {
  beforeValue();
  out_.push_back('[');
  levels_.push_back(Level{});
  return *this;
}

JsonWriter& JsonWriter::endArray() {
  bool was_empty = levels_.back().empty;
  levels_.pop_back();
  if (!was_empty) newline();
  out_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::key(std::string_view name) {
  beforeValue();
  appendJsonString(out_, name);
  out_.push_back(':');
  if (style_ != JsonStyle::Compact) out_.push_back(' ');
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::str(std::string_view value) {
  beforeValue();
  appendJsonString(out_, value);
  return *this;
}

JsonWriter& JsonWriter::num(std::int64_t value) {
  beforeValue();
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out_.append(buf, end);
  return *this;
}

JsonWriter& JsonWriter::num(double value) {
  beforeValue();
  if (!std::isfinite(value)) {
    out_ += "null";
    return *this;
  }
  char buf[40];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  std::string_view text(buf, static_cast<std::size_t>(end - buf));
  out_.append(text);
  // Providers print whole doubles as "1.0" (Python / Go float formatting), never as "1".
  if (text.find_first_of(".eE") == std::string_view::npos) out_ += ".0";
  return *this;
}

JsonWriter& JsonWriter::boolean(bool value) {
  beforeValue();
  out_ += value ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  beforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json_text) {
  beforeValue();
  out_.append(json_text);
  return *this;
}

JsonWriter& JsonWriter::value(boost::json::value const& v) {
  switch (v.kind()) {
    case boost::json::kind::null:
      return null();
    case boost::json::kind::bool_:
      return boolean(v.get_bool());
    case boost::json::kind::int64:
      return num(v.get_int64());
    case boost::json::kind::uint64: {
      beforeValue();
      char buf[24];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v.get_uint64());
      out_.append(buf, end);
      return *this;
    }
    case boost::json::kind::double_:
      return num(v.get_double());
    case boost::json::kind::string:
      return str(v.get_string());
    case boost::json::kind::array: {
      beginArray();
      for (auto const& element : v.get_array()) value(element);
      return endArray();
    }
    case boost::json::kind::object: {
      beginObject();
      for (auto const& member : v.get_object()) key(member.key()).value(member.value());
      return endObject();
    }
  }
  return *this;
}

std::string toJsonText(boost::json::value const& value, JsonStyle style) {
  std::string out;
  JsonWriter(out, style).value(value);
  return out;
}

}  // namespace llmux::mock

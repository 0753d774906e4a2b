#include "translate/json_access.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

namespace llmux::translate {

Result<boost::json::object> parseObject(std::string_view text, std::string_view what) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) {
    return makeError(ErrorKind::InvalidRequest,
                     std::string(what) + " is not valid JSON: " + ec.message());
  }
  if (!value.is_object()) {
    return makeError(ErrorKind::InvalidRequest, std::string(what) + " must be a JSON object");
  }
  return std::move(value.as_object());
}

std::optional<std::string_view> stringAt(boost::json::object const& object, std::string_view key) {
  auto const* v = object.if_contains(key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string_view(v->as_string());
}

std::optional<std::int64_t> exactInteger(boost::json::value const& v) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 53;
  std::int64_t n = 0;
  if (v.is_int64()) {
    n = v.as_int64();
  } else if (v.is_uint64()) {
    if (v.as_uint64() > static_cast<std::uint64_t>(kLimit)) return std::nullopt;
    n = static_cast<std::int64_t>(v.as_uint64());
  } else if (v.is_double()) {
    // Checked before the conversion, which is undefined behaviour out of int64's range.
    double d = v.as_double();
    if (!(d >= -static_cast<double>(kLimit) && d <= static_cast<double>(kLimit))) {
      return std::nullopt;
    }
    n = static_cast<std::int64_t>(d);
  } else {
    return std::nullopt;
  }
  if (n < -kLimit || n > kLimit) return std::nullopt;
  return n;
}

std::optional<std::int64_t> intAt(boost::json::object const& object, std::string_view key) {
  auto const* v = object.if_contains(key);
  if (!v) return std::nullopt;
  return exactInteger(*v);
}

std::optional<double> numberAt(boost::json::object const& object, std::string_view key) {
  auto const* v = object.if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_double()) return v->as_double();
  if (v->is_int64()) return static_cast<double>(v->as_int64());
  if (v->is_uint64()) return static_cast<double>(v->as_uint64());
  return std::nullopt;
}

std::optional<bool> boolAt(boost::json::object const& object, std::string_view key) {
  auto const* v = object.if_contains(key);
  if (!v || !v->is_bool()) return std::nullopt;
  return v->as_bool();
}

boost::json::object const* objectAt(boost::json::object const& object, std::string_view key) {
  auto const* v = object.if_contains(key);
  return v && v->is_object() ? &v->as_object() : nullptr;
}

boost::json::array const* arrayAt(boost::json::object const& object, std::string_view key) {
  auto const* v = object.if_contains(key);
  return v && v->is_array() ? &v->as_array() : nullptr;
}

std::string toJson(boost::json::value const& value) { return boost::json::serialize(value); }

}  // namespace llmux::translate

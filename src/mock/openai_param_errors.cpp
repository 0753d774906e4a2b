#include "mock/openai_param_errors.h"

#include <boost/json/value.hpp>
#include <charconv>
#include <cmath>

#include "mock/mock_errors.h"

namespace llmux::mock::openai {
namespace {

constexpr std::string_view kInvalidRequest = "invalid_request_error";

/// 'a', 'b', <conjunction> 'c' (two items: 'a' <conjunction> 'b').
std::string quotedList(Choices items, std::string_view conjunction) {
  std::string out;
  std::size_t i = 0;
  for (std::string_view item : items) {
    if (i > 0) out += items.size() == 2 ? " " : ", ";
    if (i > 0 && i + 1 == items.size()) {
      out.append(conjunction);
      out.push_back(' ');
    }
    out += "'";
    out.append(item);
    out += "'";
    ++i;
  }
  return out;
}

std::string quoted(std::string_view text) {
  return "'" + std::string(text) + "'";
}

}  // namespace

MockReply invalidValue(IdSource& ids, std::string_view param, std::string_view value,
                       Choices supported) {
  return openAiError(ids, 400,
                     "Invalid value: " + quoted(value) +
                         ". Supported values are: " + quotedList(supported, "and") + ".",
                     kInvalidRequest, param, "invalid_value");
}

MockReply invalidType(IdSource& ids, std::string_view param, std::string_view expected,
                      std::string_view got) {
  return openAiError(ids, 400,
                     "Invalid type for " + quoted(param) + ": expected " + std::string(expected) +
                         ", but got " + std::string(got) + " instead.",
                     kInvalidRequest, param, "invalid_type");
}

std::string oneOf(Choices supported) {
  return "one of " + quotedList(supported, "or");
}

std::string_view typeName(boost::json::value const& value) {
  switch (value.kind()) {
    case boost::json::kind::string:
      return "a string";
    case boost::json::kind::int64:
    case boost::json::kind::uint64:
      return "an integer";
    case boost::json::kind::double_:
      return "a decimal";
    case boost::json::kind::bool_:
      return "a boolean";
    case boost::json::kind::object:
      return "an object";
    case boost::json::kind::array:
      return "an array";
    case boost::json::kind::null:
      return "null";
  }
  return "a value";
}

MockReply outOfRange(IdSource& ids, std::string_view param, bool integer, bool below, double limit,
                     std::string_view got) {
  std::string kind = integer ? "integer" : "decimal";
  return openAiError(ids, 400,
                     "Invalid " + quoted(param) + ": " + kind +
                         (below ? " below minimum value. Expected a value >= "
                                : " above maximum value. Expected a value <= ") +
                         formatLimit(limit) + ", but got " + std::string(got) + " instead.",
                     kInvalidRequest, param,
                     kind + (below ? "_below_min_value" : "_above_max_value"));
}

MockReply stringTooLong(IdSource& ids, std::string_view param, std::size_t max,
                        std::size_t length) {
  return openAiError(ids, 400,
                     "Invalid " + quoted(param) +
                         ": string too long. Expected a string with maximum length " +
                         std::to_string(max) + ", but got a string with length " +
                         std::to_string(length) + " instead.",
                     kInvalidRequest, param, "string_above_max_length");
}

MockReply emptyString(IdSource& ids, std::string_view param) {
  return openAiError(ids, 400,
                     "Invalid " + quoted(param) +
                         ": empty string. Expected a string with minimum length 1, but got an "
                         "empty string instead.",
                     kInvalidRequest, param, "empty_string");
}

MockReply arrayTooLong(IdSource& ids, std::string_view param, std::size_t max, std::size_t length) {
  return openAiError(ids, 400,
                     "Invalid " + quoted(param) +
                         ": array too long. Expected an array with maximum length " +
                         std::to_string(max) + ", but got an array with length " +
                         std::to_string(length) + " instead.",
                     kInvalidRequest, param, "array_above_max_length");
}

MockReply unsupportedContentType(IdSource& ids, std::string_view accepted, std::string_view sent) {
  return openAiError(ids, 400,
                     "Unsupported content type: " + quoted(sent) +
                         ". This API method only accepts " + quoted(accepted) +
                         " requests, but you specified the header 'Content-Type: " +
                         std::string(sent) + "'. Please try again with a supported content type.",
                     kInvalidRequest, {}, "unsupported_content_type");
}

std::string formatLimit(double value) {
  char buf[32];
  if (std::abs(value) < 1e15 && value == std::floor(value)) {
    auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), static_cast<long long>(value));
    return std::string(buf, end);
  }
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, end);
}

}  // namespace llmux::mock::openai

#pragma once

// OpenAI's 400s about one request parameter, in the API's own sentences and codes (they share a
// pattern across endpoints: "Invalid 'n': integer above maximum value. Expected a value <= 10, but
// got 11 instead."). Values shown in a message are the client's: the JSON writer escapes them.

#include <boost/json/fwd.hpp>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>

#include "mock/mock_ids.h"
#include "mock/mock_provider.h"

namespace llmux::mock::openai {

using Choices = std::initializer_list<std::string_view>;

/// "Invalid value: 'x'. Supported values are: 'a', 'b', and 'c'." (invalid_value).
MockReply invalidValue(IdSource& ids, std::string_view param, std::string_view value,
                       Choices supported);

/// "Invalid type for 'n': expected an integer, but got a string instead." (invalid_type).
MockReply invalidType(IdSource& ids, std::string_view param, std::string_view expected,
                      std::string_view got);

/// The `expected` of invalidType() for a closed set of strings: "one of 'a', 'b', or 'c'".
std::string oneOf(Choices supported);

/// How those messages name the type of a JSON value: "a string", "an integer", "null"...
std::string_view typeName(boost::json::value const& value);

/// "Invalid 'n': integer below minimum value. Expected a value >= 1, but got 0 instead."
/// (integer_below_min_value, integer_above_max_value, decimal_below_min_value,
/// decimal_above_max_value). `got` is the value as the client wrote it.
MockReply outOfRange(IdSource& ids, std::string_view param, bool integer, bool below, double limit,
                     std::string_view got);

/// "Invalid 'input': string too long. Expected a string with maximum length 4096, but got a
/// string with length 5000 instead." (string_above_max_length).
MockReply stringTooLong(IdSource& ids, std::string_view param, std::size_t max, std::size_t length);

/// "Invalid 'prompt': empty string. Expected a string with minimum length 1, but got an empty
/// string instead." (empty_string).
MockReply emptyString(IdSource& ids, std::string_view param);

/// "Invalid 'image': array too long. Expected an array with maximum length 16, but got an array
/// with length 17 instead." (array_above_max_length).
MockReply arrayTooLong(IdSource& ids, std::string_view param, std::size_t max, std::size_t length);

/// "Unsupported content type: 'x'. This API method only accepts 'y' requests, but you specified
/// the header 'Content-Type: x'. Please try again with a supported content type."
/// (unsupported_content_type). `sent` is the header's media type, parameters left out.
MockReply unsupportedContentType(IdSource& ids, std::string_view accepted, std::string_view sent);

/// A number as OpenAI's messages print a limit: whole numbers without a decimal point.
std::string formatLimit(double value);

}  // namespace llmux::mock::openai

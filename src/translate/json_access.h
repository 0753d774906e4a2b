#pragma once

// Small accessors over Boost.JSON documents shared by the codecs: absent or mistyped fields read
// as "not there" rather than throwing.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace llmux::translate {

/// Parses `text` as a JSON object; InvalidRequest ("<what> is not valid JSON: …") otherwise.
Result<boost::json::object> parseObject(std::string_view text, std::string_view what);

/// `v` as an integer when it is one within ±2^53 (what a double holds exactly). Larger numbers
/// read as not there: no count an upstream sends can overflow the sums made of it (usage totals)
/// or the conversion from double.
std::optional<std::int64_t> exactInteger(boost::json::value const& v);

/// The member `key` of `object` when it is a string / integer (see exactInteger) / number / bool
/// / object / array.
std::optional<std::string_view> stringAt(boost::json::object const& object, std::string_view key);
std::optional<std::int64_t> intAt(boost::json::object const& object, std::string_view key);
std::optional<double> numberAt(boost::json::object const& object, std::string_view key);
std::optional<bool> boolAt(boost::json::object const& object, std::string_view key);
boost::json::object const* objectAt(boost::json::object const& object, std::string_view key);
boost::json::array const* arrayAt(boost::json::object const& object, std::string_view key);

/// Compact JSON text of a value.
std::string toJson(boost::json::value const& value);

}  // namespace llmux::translate

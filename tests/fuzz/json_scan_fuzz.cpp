// Differential fuzzing of the JSON scanner against Boost.JSON: both must agree on whether a
// document is valid, and every member the scanner reports must be a value Boost.JSON agrees on.
#include <boost/json/error.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "protocol/json_scan.h"

using llmux::protocol::JsonScan;
using llmux::protocol::kJsonMaxDepth;

namespace {

bool hasLoneSurrogateEscape(std::string_view text) {
  // The scanner accepts lone \uD800-\uDFFF escapes (RFC 8259 grammar allows them); Boost.JSON
  // 1.81 rejects them. Skip such inputs rather than encode that difference twice.
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] == '\\' && text[i + 1] == 'u' && (text[i + 2] == 'd' || text[i + 2] == 'D'))
      return true;
  }
  return false;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view text(reinterpret_cast<char const*>(data), size);
  JsonScan scan = llmux::protocol::scanJson(text);

  if (!hasLoneSurrogateEscape(text)) {
    boost::json::parse_options options;
    options.max_depth = kJsonMaxDepth;
    options.allow_invalid_utf8 = true;
    boost::system::error_code ec;
    boost::json::value doc = boost::json::parse(text, ec, {}, options);
    // RFC 8259 puts no limit on exponents; Boost.JSON refuses ones that overflow a double.
    if (ec == boost::json::error::exponent_overflow) return 0;
    if (scan.ok() != !ec) std::abort();
    if (scan.ok() && doc.is_object()) {
      if (scan.members.size() < doc.as_object().size()) std::abort();  // duplicates: >=
      for (auto const& member : scan.members) {
        if (member.value_end <= member.value_begin || member.value_end > text.size()) std::abort();
        auto value = boost::json::parse(
            text.substr(member.value_begin, member.value_end - member.value_begin), ec, {},
            options);
        if (ec) std::abort();
        if (!doc.as_object().contains(llmux::protocol::decodeJsonString(member.key))) std::abort();
      }
    }
  }
  if (!scan.ok() && scan.error->offset > text.size()) std::abort();
  return 0;
}

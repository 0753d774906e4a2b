#include "translate/anthropic/json_out.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <limits>
#include <random>

namespace llmux::translate::anthropic {
namespace {

std::string literal(std::string_view s) {
  std::string out;
  JsonOut(out).beginObject().str("k", s).endObject();
  return out;
}

TEST(AnthropicJsonOut, StringsRoundTripWhateverTheirBytes) {
  EXPECT_EQ(literal("plain"), R"({"k":"plain"})");
  EXPECT_EQ(literal("a\"b\\c\nd\te\x01"), R"({"k":"a\"b\\c\nd\te\u0001"})");
  std::mt19937 rng(3);
  std::vector<std::string> pieces = {"a",  "b",  "efgh", " ",    "\"",       "\\",          "\n",
                                     "\r", "\t", "\x1f", "\x7f", "\xc3\xa9", "\xe2\x82\xac"};
  for (int round = 0; round < 500; ++round) {
    std::string s;
    std::size_t n = rng() % 40;
    for (std::size_t i = 0; i < n; ++i) s += pieces[rng() % pieces.size()];
    auto v = boost::json::parse(literal(s));
    EXPECT_EQ(std::string_view(v.at("k").as_string()), s) << round;
  }
}

TEST(AnthropicJsonOut, CommasNestingNumbersAndRawText) {
  std::string out;
  JsonOut j(out);
  j.beginObject().num("a", -3).dbl("b", 0.25).boolean("c", true).null("d");
  j.beginArray("e").str("x").raw(R"({"y":[1,2]})").beginObject().endObject().endArray();
  j.raw("f", "{}").dbl("g", std::numeric_limits<double>::infinity()).endObject();
  EXPECT_EQ(out, R"({"a":-3,"b":0.25,"c":true,"d":null,"e":["x",{"y":[1,2]},{}],"f":{},"g":null})");
}

}  // namespace
}  // namespace llmux::translate::anthropic

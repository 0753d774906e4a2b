#include "translate/openai_chat/json_out.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace llmux::translate::openai_chat {
namespace {

std::string roundTrip(std::string_view text) {
  std::string out;
  JsonOut(out).beginObject().str("k", text).endObject();
  boost::system::error_code ec;
  auto value = boost::json::parse(out, ec);
  EXPECT_FALSE(ec) << out;
  return ec ? std::string() : std::string(value.as_object().at("k").as_string());
}

TEST(ChatJsonOut, EveryByteThatNeedsEscapingIsEscapedWhereverItSits) {
  // The fast path looks at eight bytes at a time: put each special byte at every offset.
  for (char special : {'"', '\\', '\n', '\x01', '\x1f', '\t'}) {
    for (std::size_t at = 0; at < 20; ++at) {
      std::string text(20, 'a');
      text[at] = special;
      EXPECT_EQ(roundTrip(text), text) << static_cast<int>(special) << " at " << at;
    }
  }
  std::string all;
  for (int c = 1; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(roundTrip(all), all);
  EXPECT_EQ(roundTrip("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac") << "UTF-8 copied";
  EXPECT_EQ(roundTrip(""), "");
}

TEST(ChatJsonOut, StructureAndNumbers) {
  std::string out;
  JsonOut w(out);
  w.beginObject().num("i", std::int64_t{-3}).num("d", 0.7).boolean("b", true).null("n");
  w.raw("r", R"({"x":[1]})").beginArray("a").str("s").beginObject().endObject().endArray();
  w.endObject();
  EXPECT_EQ(out, R"({"i":-3,"d":0.7,"b":true,"n":null,"r":{"x":[1]},"a":["s",{}]})");
}

}  // namespace
}  // namespace llmux::translate::openai_chat

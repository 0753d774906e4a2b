#include "core/ascii_scan.h"

#include <gtest/gtest.h>

#include <string>

#include "core/http_syntax.h"
#include "core/json_text.h"
#include "core/strings.h"

namespace llmux {
namespace {

std::size_t findJsonSpecialByteByByte(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == '"' || c == '\\') return i;
  }
  return s.size();
}

std::size_t findHeaderControlByteByByte(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if ((c < 0x20 && c != '\t') || c == 0x7f) return i;
  }
  return s.size();
}

// Every byte value at every position of texts around the 16-byte block size, among plain bytes,
// tabs and bytes >= 0x80 (which the vector compares must not take for small ones).
TEST(AsciiScan, AgreesWithAByteByByteSearchForEveryByteAtEveryPosition) {
  for (std::size_t length : {0, 1, 15, 16, 17, 31, 32, 33, 47, 64, 100}) {
    for (char filler : {'a', '\t', static_cast<char>(0xC3), static_cast<char>(0x80)}) {
      std::string const plain(length, filler);
      EXPECT_EQ(findJsonSpecial(plain), findJsonSpecialByteByByte(plain));
      EXPECT_EQ(findHeaderControl(plain), findHeaderControlByteByByte(plain));
      for (std::size_t at = 0; at < length; ++at) {
        for (int byte = 0; byte < 256; ++byte) {
          std::string text = plain;
          text[at] = static_cast<char>(byte);
          ASSERT_EQ(findJsonSpecial(text), findJsonSpecialByteByByte(text))
              << "length " << length << " at " << at << " byte " << byte;
          ASSERT_EQ(findHeaderControl(text), findHeaderControlByteByByte(text))
              << "length " << length << " at " << at << " byte " << byte;
        }
      }
    }
  }
}

TEST(AsciiScan, FindsTheFirstOfSeveral) {
  std::string text(40, 'x');
  text[33] = '"';
  text[20] = '\\';
  EXPECT_EQ(findJsonSpecial(text), 20u);
  text[18] = '\n';
  EXPECT_EQ(findJsonSpecial(text), 18u);
  EXPECT_EQ(findHeaderControl(text), 18u);
}

TEST(AsciiScan, CallersEscapeAndScreenAsBefore) {
  std::string const long_text = std::string(20, 'a') + "\"q\"\\" + std::string(20, 'b') + "\x1f\t\n";
  EXPECT_EQ(jsonQuote(long_text),
            "\"" + std::string(20, 'a') + R"(\"q\"\\)" + std::string(20, 'b') + R"(\u001f\t\n")");
  EXPECT_TRUE(isSafeHeaderValue(std::string(40, 'v') + "\t" + "\xC3\xA9"));
  EXPECT_FALSE(isSafeHeaderValue(std::string(40, 'v') + "\r"));
  EXPECT_FALSE(isSafeHeaderValue(std::string(17, 'v') + "\x7f"));
  EXPECT_TRUE(isHeaderName("X-Custom_Header.1~!#$%&'*+^`|"));
  EXPECT_FALSE(isHeaderName("X Custom"));
  EXPECT_FALSE(isHeaderName("X:Custom"));
  EXPECT_FALSE(isHeaderName(""));
}

TEST(Strings, LowerAsciiChangesOnlyCapitals) {
  for (int byte = 0; byte < 256; ++byte) {
    char c = static_cast<char>(byte);
    char expected = (byte >= 'A' && byte <= 'Z') ? static_cast<char>(byte + 32) : c;
    EXPECT_EQ(lowerAscii(c), expected) << byte;
  }
  EXPECT_FALSE(equalsIgnoreCase("@", "`"));  // differ by 0x20, but not letters
  EXPECT_FALSE(equalsIgnoreCase("[", "{"));
}

}  // namespace
}  // namespace llmux

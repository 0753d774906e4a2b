#include "proxy/secret_redactor.h"

#include <gtest/gtest.h>

namespace llmux::proxy {
namespace {

TEST(SecretRedactor, RemovesTheKeyInEveryFormItTravels) {
  SecretRedactor redactor("AIza/Sy+k=ey&1");
  std::string page =
      "<p>404: /v1beta/models/x:generateContent?key=AIza%2FSy%2Bk%3Dey%261 not found</p>"
      "<a href='https://api/?key=aiza%2fsy%2bk%3dey%261'>lower</a> plain AIza/Sy+k=ey&1 "
      R"(json "AIza\/Sy+k=ey&1")";
  EXPECT_TRUE(redactor.redact(page));
  EXPECT_EQ(page.find("Sy"), std::string::npos) << page;
  EXPECT_NE(page.find("key=[redacted] not found"), std::string::npos) << page;
  EXPECT_NE(page.find("plain [redacted]"), std::string::npos) << page;
}

TEST(SecretRedactor, LowerCaseEscapesOfLettersAreNotConfusedWithTheKey) {
  // Only the hex digits of escapes are lower-cased: the key's own letters stay as they are.
  SecretRedactor redactor("sk-ABCDEFGH/1");
  std::string text = "sk-ABCDEFGH%2f1 sk-abcdefgh%2F1";
  EXPECT_TRUE(redactor.redact(text));
  EXPECT_EQ(text, "[redacted] sk-abcdefgh%2F1");
}

TEST(SecretRedactor, HeadersAreRedactedValueByValue) {
  SecretRedactor redactor("sk-live-0123456789");
  HeaderList headers;
  headers.add("Location", "https://relay.example/v1/x?key=sk-live-0123456789&a=1");
  headers.add("Content-Type", "text/html");
  auto out = redactor.redacted(headers);
  EXPECT_EQ(out.get("location"), "https://relay.example/v1/x?key=[redacted]&a=1");
  EXPECT_EQ(out.get("content-type"), "text/html");
}

TEST(SecretRedactor, ShortTestKeysAndNoKeyChangeNothing) {
  std::string text = "ok k1 done";
  EXPECT_FALSE(SecretRedactor("k1").redact(text));
  EXPECT_FALSE(SecretRedactor().redact(text));
  EXPECT_EQ(text, "ok k1 done");
}

}  // namespace
}  // namespace llmux::proxy

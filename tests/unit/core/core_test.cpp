#include <gtest/gtest.h>

#include "core/clock.h"
#include "core/http_headers.h"
#include "core/ids.h"
#include "core/json_text.h"
#include "core/result.h"
#include "core/strings.h"
#include "core/wire_protocol.h"

namespace llmux {
namespace {

TEST(Result, CarriesValueOrError) {
  Result<int> good = 42;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 42);
  Result<int> bad = makeError(ErrorKind::NotFound, "no such model");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().status(), 404);
  EXPECT_EQ(bad.error().message, "no such model");
}

TEST(Error, ExplicitStatusWinsOverKindDefault) {
  EXPECT_EQ(makeError(ErrorKind::UpstreamStatus, "x", 529).status(), 529);
  EXPECT_EQ(makeError(ErrorKind::HeadersTooLarge, "x").status(), 431);
}

TEST(Protocol, NamesRoundTrip) {
  for (Protocol p : kAllProtocols) EXPECT_EQ(parseProtocol(protocolName(p)), p);
  EXPECT_FALSE(parseProtocol("openai").has_value());
}

TEST(Ids, RequestIdsAreUniqueHex) {
  auto a = newRequestId();
  auto b = newRequestId();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_EQ(a.find_first_not_of("0123456789abcdef"), std::string::npos);
}

TEST(Ids, ClientRequestIdValidation) {
  EXPECT_TRUE(isAcceptableRequestId("abc-123"));
  EXPECT_FALSE(isAcceptableRequestId(""));
  EXPECT_FALSE(isAcceptableRequestId("has space"));
  EXPECT_FALSE(isAcceptableRequestId(std::string(129, 'a')));
  EXPECT_EQ(randomHex(8).size(), 16u);
}

TEST(Strings, Helpers) {
  EXPECT_TRUE(equalsIgnoreCase("X-Api-Key", "x-api-key"));
  EXPECT_FALSE(equalsIgnoreCase("x-api-key", "x-api-kez"));
  EXPECT_EQ(trimSpaces("  a b \t"), "a b");
  auto kv = splitOnce("a=b=c", '=');
  ASSERT_TRUE(kv);
  EXPECT_EQ(kv->first, "a");
  EXPECT_EQ(kv->second, "b=c");
  EXPECT_EQ(parseNonNegative("123"), 123);
  EXPECT_FALSE(parseNonNegative("12x"));
  EXPECT_FALSE(parseNonNegative("-1"));
  EXPECT_TRUE(secretEquals("sk-1", "sk-1"));
  EXPECT_FALSE(secretEquals("sk-1", "sk-2"));
  EXPECT_FALSE(secretEquals("sk-1", "sk-12"));
}

TEST(JsonText, EscapesControlCharactersAndQuotes) {
  EXPECT_EQ(jsonQuote("a\"b\\c\n\x01"), R"("a\"b\\c\n\u0001")");
  EXPECT_EQ(jsonQuote("héllo"), "\"héllo\"");
}

TEST(HeaderList, CaseInsensitiveLookupAndSet) {
  HeaderList h;
  h.add("Content-Type", "application/json");
  h.add("X-A", "1");
  h.add("x-a", "2");
  EXPECT_EQ(h.get("content-type"), "application/json");
  EXPECT_EQ(h.get("X-A"), "1");
  h.set("X-a", "3");
  EXPECT_EQ(h.size(), 2u);
  EXPECT_EQ(h.get("x-a"), "3");
  h.remove("CONTENT-TYPE");
  EXPECT_FALSE(h.has("content-type"));
}

TEST(HeaderList, CopiesWithinTheListSurviveGrowthAndKeepOrder) {
  HeaderList h;
  h.add("A", std::string(40, 'a'));
  for (int i = 0; i < 50; ++i) h.add(h[0].name, h[0].value);  // views into its own buffer
  ASSERT_EQ(h.size(), 51u);
  EXPECT_EQ(h[50].value, std::string(40, 'a'));
  h.set("a", h.get("A"));  // set from its own value
  EXPECT_EQ(h.size(), 1u);
  EXPECT_EQ(h.get("a"), std::string(40, 'a'));
  std::vector<std::string> names;
  HeaderList g;
  g.add("x", "1");
  g.add("y", "2");
  for (HeaderField f : g) names.emplace_back(f.name);
  EXPECT_EQ(names, (std::vector<std::string>{"x", "y"}));
  HeaderList copy = g;
  g.add("z", "3");
  EXPECT_EQ(copy.size(), 2u);
  EXPECT_EQ(copy.get("y"), "2");
}

TEST(ManualTimeSource, MovesOnlyWhenAdvanced) {
  ManualTimeSource clock;
  auto t0 = clock.now();
  EXPECT_EQ(clock.now(), t0);
  clock.advance(std::chrono::seconds(3));
  EXPECT_EQ(clock.now() - t0, std::chrono::seconds(3));
}

}  // namespace
}  // namespace llmux

#include "protocol/client_auth.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "test_data.h"

namespace llmux::protocol {
namespace {

HeaderList headers(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  HeaderList list;
  for (auto const& [name, value] : fields) list.add(name, value);
  return list;
}

TEST(ClientAuth, FindsTheKeyWhereverAnSdkPutsIt) {
  EXPECT_EQ(findClientKey(headers({{"Authorization", "Bearer sk-1"}}), ""), "sk-1");
  EXPECT_EQ(findClientKey(headers({{"authorization", "bearer   sk-2  "}}), ""), "sk-2");
  EXPECT_EQ(findClientKey(headers({{"AUTHORIZATION", "BEARER\tsk-3"}}), ""), "sk-3");
  EXPECT_EQ(findClientKey(headers({{"x-api-key", "sk-ant"}}), ""), "sk-ant");
  EXPECT_EQ(findClientKey(headers({{"X-Goog-Api-Key", "AIza"}}), ""), "AIza");
  EXPECT_EQ(findClientKey({}, "alt=sse&key=AIza%2Bx"), "AIza+x");
  EXPECT_EQ(findClientKey({}, "key=a+b"), "a+b");  // '+' is not a space here
  EXPECT_EQ(findClientKey({}, "%6Bey=enc"), "enc");
}

TEST(ClientAuth, PrecedenceAndSkippedValues) {
  // Bearer first, then x-api-key, x-goog-api-key, query.
  EXPECT_EQ(findClientKey(headers({{"x-api-key", "b"}, {"Authorization", "Bearer a"}}), "key=d"),
            "a");
  EXPECT_EQ(findClientKey(headers({{"x-goog-api-key", "c"}, {"x-api-key", "b"}}), "key=d"), "b");
  EXPECT_EQ(findClientKey(headers({{"x-goog-api-key", "c"}}), "key=d"), "c");
  // Other schemes, a bare or glued "Bearer", and empty values are not keys.
  EXPECT_EQ(
      findClientKey(headers({{"Authorization", "Basic dXNlcjpwYXNz"}, {"x-api-key", "b"}}), ""),
      "b");
  EXPECT_EQ(findClientKey(headers({{"Authorization", "Bearer"}}), ""), std::nullopt);
  EXPECT_EQ(findClientKey(headers({{"Authorization", "Bearer   "}}), ""), std::nullopt);
  EXPECT_EQ(findClientKey(headers({{"Authorization", "Bearerabc"}}), ""), std::nullopt);
  EXPECT_EQ(findClientKey(headers({{"x-api-key", " "}}), "key="), std::nullopt);
  // A second Authorization field can still carry the bearer token.
  EXPECT_EQ(
      findClientKey(headers({{"Authorization", "Basic x"}, {"Authorization", "Bearer t"}}), ""),
      "t");
  EXPECT_EQ(findClientKey({}, "keys=x&akey=y&key"), std::nullopt);
  EXPECT_EQ(findClientKey({}, "key=%zz"), std::nullopt);
  EXPECT_EQ(findClientKey({}, ""), std::nullopt);
}

TEST(ClientAuth, QueryWithoutClientKeyKeepsEverythingElse) {
  struct Case {
    std::string_view in;
    std::string_view out;
  };
  Case const cases[] = {
      {"", ""},
      {"alt=sse", "alt=sse"},
      {"key=secret", ""},
      {"alt=sse&key=secret", "alt=sse"},
      {"key=secret&alt=sse", "alt=sse"},
      {"beta=true&key=a&x=%2F+1&key=b", "beta=true&x=%2F+1"},
      {"%6Bey=secret&alt=sse", "alt=sse"},
      {"key&keys=1&monkey=2", "keys=1&monkey=2"},
      {"a=1&&b=2", "a=1&&b=2"},
  };
  for (auto const& c : cases) EXPECT_EQ(queryWithoutClientKey(c.in), c.out) << c.in;
}

// The three captured CLI requests each authenticate with the placeholder key.
TEST(ClientAuth, CapturedCliRequests) {
  for (std::string name : {"claude-cli", "codex-cli", "gemini-cli"}) {
    auto capture =
        boost::json::parse(test::readFile(test::dataDir() / "clients" / (name + ".request.json")));
    HeaderList list;
    for (auto const& [field, value] : capture.at("headers").as_object()) {
      list.add(field, value.as_string().c_str());
    }
    EXPECT_EQ(findClientKey(list, ""), "mock-key") << name;
  }
}

}  // namespace
}  // namespace llmux::protocol

// base_url and listen address parsing.

#include <gtest/gtest.h>

#include "config/address.h"

namespace llmux::config {
namespace {

TEST(BaseUrl, ParsesTable) {
  struct Case {
    std::string text;
    UpstreamUrl expected;
  };
  std::vector<Case> const cases = {
      {"https://api.anthropic.com", {true, "api.anthropic.com", 443, ""}},
      {"https://api.anthropic.com/", {true, "api.anthropic.com", 443, ""}},
      {"https://api.openai.com/v1", {true, "api.openai.com", 443, "/v1"}},
      {"https://api.openai.com/v1/", {true, "api.openai.com", 443, "/v1"}},
      {"https://api.openai.com/v1///", {true, "api.openai.com", 443, "/v1"}},
      {"http://relay.example/relay", {false, "relay.example", 80, "/relay"}},
      {"http://relay.example:8081/relay/openai", {false, "relay.example", 8081, "/relay/openai"}},
      {"http://127.0.0.1:9999", {false, "127.0.0.1", 9999, ""}},
      {"https://[::1]:8443/v1", {true, "::1", 8443, "/v1"}},
      {"http://[2001:db8::1]", {false, "2001:db8::1", 80, ""}},
      {"HTTPS://API.Example.COM/Path", {true, "api.example.com", 443, "/Path"}},
      {"https://x.example:443", {true, "x.example", 443, ""}},
      {"http://x.example:443", {false, "x.example", 443, ""}},
      {"http://my_service:8080", {false, "my_service", 8080, ""}},
  };
  for (auto const& test_case : cases) {
    auto url = parseBaseUrl(test_case.text);
    ASSERT_TRUE(url.ok()) << test_case.text << ": " << url.error().message;
    EXPECT_EQ(*url, test_case.expected) << test_case.text;
  }
}

TEST(BaseUrl, RejectsTable) {
  struct Case {
    std::string text;
    std::string message;
  };
  std::vector<Case> const cases = {
      {"ftp://x.example", "not an http(s) URL"},
      {"ws://x.example", "not an http(s) URL"},
      {"x.example", "not an http(s) URL"},
      {"api.openai.com/v1", "not an http(s) URL"},
      {"", "not an http(s) URL"},
      {"https:/x.example", "not an http(s) URL"},
      {"https://", "has no host"},
      {"https://x.example:0", "port must be a number from 1 to 65535"},
      {"https://x.example:65536", "port must be a number from 1 to 65535"},
      {"https://x.example:/v1", "port must be a number from 1 to 65535"},
      {"https://user:pw@x.example", "must not contain user info (put credentials in keys or headers)"},
      {"https://x.example/v1?key=1", "must not contain a query (?...)"},
      {"https://x.example/?", "must not contain a query (?...)"},
      {"https://x.example/v1#frag", "must not contain a fragment (#...)"},
      {"https://bad!host.example", "has an invalid host name"},
      {"https://-bad.example", "has an invalid host name"},
      {"https://999.1.1.1", "has an invalid host name"},
      {"https://x.example/a b", "not an http(s) URL"},
  };
  for (auto const& test_case : cases) {
    auto url = parseBaseUrl(test_case.text);
    ASSERT_FALSE(url.ok()) << test_case.text;
    EXPECT_EQ(url.error().message, test_case.message) << test_case.text;
    EXPECT_EQ(url.error().kind, ErrorKind::InvalidRequest);
  }
}

TEST(BaseUrl, HostHeaderAndNormalForm) {
  EXPECT_EQ(hostHeaderValue({true, "api.openai.com", 443, "/v1"}), "api.openai.com");
  EXPECT_EQ(hostHeaderValue({true, "api.openai.com", 8443, ""}), "api.openai.com:8443");
  EXPECT_EQ(hostHeaderValue({false, "::1", 80, ""}), "[::1]");
  EXPECT_EQ(hostHeaderValue({false, "::1", 8080, ""}), "[::1]:8080");
  EXPECT_EQ(toString({false, "relay.example", 8081, "/relay"}), "http://relay.example:8081/relay");
  EXPECT_EQ(toString(*parseBaseUrl("HTTPS://X.example:443/v1/")), "https://x.example/v1");
}

TEST(ListenAddress, ParsesTable) {
  struct Case {
    std::string text;
    ListenAddress expected;
  };
  std::vector<Case> const cases = {
      {"127.0.0.1:8080", {"127.0.0.1", 8080, false}},
      {"0.0.0.0:80", {"0.0.0.0", 80, false}},
      {"localhost:0", {"localhost", 0, false}},
      {"Gateway.Internal:65535", {"gateway.internal", 65535, false}},
      {"[::1]:8080", {"::1", 8080, true}},
      {"[::]:9000", {"::", 9000, true}},
  };
  for (auto const& test_case : cases) {
    auto address = parseListenAddress(test_case.text);
    ASSERT_TRUE(address.ok()) << test_case.text << ": " << address.error().message;
    EXPECT_EQ(*address, test_case.expected) << test_case.text;
  }
}

TEST(HostName, Rules) {
  EXPECT_TRUE(isHostName("a"));
  EXPECT_TRUE(isHostName("api.openai.com"));
  EXPECT_TRUE(isHostName("api.openai.com."));
  EXPECT_TRUE(isHostName("my_service"));
  EXPECT_FALSE(isHostName(""));
  EXPECT_FALSE(isHostName("a..b"));
  EXPECT_FALSE(isHostName(".a"));
  EXPECT_FALSE(isHostName("a-.b"));
  EXPECT_FALSE(isHostName("1.2.3.4"));  // digits only: an address, not a name
  EXPECT_FALSE(isHostName(std::string(64, 'a') + ".com"));
  EXPECT_TRUE(isHostName(std::string(63, 'a') + ".com"));
}

}  // namespace
}  // namespace llmux::config

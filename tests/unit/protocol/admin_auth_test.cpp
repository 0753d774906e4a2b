#include "protocol/admin_auth.h"
#include "protocol/cookies.h"

#include <gtest/gtest.h>

namespace llmux::protocol {
namespace {

HeaderList headers(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  HeaderList list;
  for (auto const& [name, value] : fields) list.add(name, value);
  return list;
}

constexpr std::string_view kToken = "adm-s3cret";

TEST(AdminAuth, AcceptsTheTokenAsBearerOrHeader) {
  EXPECT_EQ(checkAdminToken(headers({{"Authorization", "Bearer adm-s3cret"}}), kToken),
            AdminAuth::Ok);
  EXPECT_EQ(checkAdminToken(headers({{"authorization", "bearer\t adm-s3cret "}}), kToken),
            AdminAuth::Ok);
  EXPECT_EQ(checkAdminToken(headers({{"X-Admin-Token", "adm-s3cret"}}), kToken), AdminAuth::Ok);
  // A gateway key as the bearer does not hide an admin token beside it.
  EXPECT_EQ(checkAdminToken(headers({{"Authorization", "Bearer sk-gateway"},
                                     {"x-admin-token", "adm-s3cret"}}),
                            kToken),
            AdminAuth::Ok);
}

TEST(AdminAuth, MissingWrongAndDisabled) {
  EXPECT_EQ(checkAdminToken({}, kToken), AdminAuth::Missing);
  EXPECT_EQ(checkAdminToken(headers({{"Authorization", "Bearer"}}), kToken), AdminAuth::Missing);
  EXPECT_EQ(checkAdminToken(headers({{"x-admin-token", "  "}}), kToken), AdminAuth::Missing);
  EXPECT_EQ(checkAdminToken(headers({{"Authorization", "Basic YWRtaW46eA=="}}), kToken),
            AdminAuth::Missing);
  EXPECT_EQ(checkAdminToken(headers({{"Authorization", "Bearer adm-s3cre"}}), kToken),
            AdminAuth::Wrong);
  EXPECT_EQ(checkAdminToken(headers({{"Authorization", "Bearer adm-s3cret2"}}), kToken),
            AdminAuth::Wrong);
  EXPECT_EQ(checkAdminToken(headers({{"x-admin-token", "ADM-S3CRET"}}), kToken), AdminAuth::Wrong);
  // Gateway-key headers are not admin credentials.
  EXPECT_EQ(checkAdminToken(headers({{"x-api-key", "adm-s3cret"}}), kToken), AdminAuth::Missing);
  // No admin token configured: the admin API is off, whatever is sent.
  EXPECT_EQ(checkAdminToken(headers({{"x-admin-token", "anything"}}), ""), AdminAuth::Disabled);
  EXPECT_EQ(checkAdminToken({}, ""), AdminAuth::Disabled);
}

TEST(AdminAuth, SeveralTokensSayWhichOneWasPresented) {
  std::vector<std::string_view> const tokens{"adm-first", "adm-viewer", "adm-ops"};
  auto viewer = checkAdminTokens(headers({{"Authorization", "Bearer adm-viewer"}}), tokens);
  EXPECT_EQ(viewer.verdict, AdminAuth::Ok);
  EXPECT_EQ(viewer.index, 1u);
  auto ops = checkAdminTokens(headers({{"x-admin-token", "adm-ops"}}), tokens);
  EXPECT_EQ(ops.verdict, AdminAuth::Ok);
  EXPECT_EQ(ops.index, 2u);
  EXPECT_EQ(checkAdminTokens(headers({{"x-admin-token", "adm-op"}}), tokens).verdict,
            AdminAuth::Wrong);
  EXPECT_EQ(checkAdminTokens({}, tokens).verdict, AdminAuth::Missing);
  EXPECT_EQ(checkAdminTokens(headers({{"x-admin-token", "adm-ops"}}), {}).verdict,
            AdminAuth::Disabled);
}

TEST(AdminAuth, ATokenSentInABodyIsMatchedTheSameWay) {
  std::vector<std::string_view> const tokens{"adm-first", "adm-viewer"};
  auto viewer = matchToken("adm-viewer", tokens);
  EXPECT_EQ(viewer.verdict, AdminAuth::Ok);
  EXPECT_EQ(viewer.index, 1u);
  EXPECT_EQ(matchToken("adm-viewe", tokens).verdict, AdminAuth::Wrong);
  EXPECT_EQ(matchToken("", tokens).verdict, AdminAuth::Missing);
  EXPECT_EQ(matchToken("adm-first", {}).verdict, AdminAuth::Disabled);
}

TEST(Cookies, FindsOneCookieAmongSeveralHeadersAndPairs) {
  auto cookies = headers({{"Cookie", "theme=dark; llmux_console=abc123 ;other=1"},
                          {"cookie", "llmux_console=second"}});
  EXPECT_EQ(cookieValue(cookies, "llmux_console"), "abc123");  // the first one wins
  EXPECT_EQ(cookieValue(cookies, "theme"), "dark");
  EXPECT_EQ(cookieValue(cookies, "other"), "1");
  EXPECT_FALSE(cookieValue(cookies, "LLMUX_CONSOLE"));  // names are case-sensitive
  EXPECT_FALSE(cookieValue(cookies, "llmux"));          // no prefix match
  EXPECT_EQ(cookieValue(headers({{"Cookie", "a=\"quoted\""}}), "a"), "quoted");
  EXPECT_EQ(cookieValue(headers({{"Cookie", "a="}}), "a"), "");
  EXPECT_FALSE(cookieValue(headers({{"Cookie", "novalue; ; ="}}), "novalue"));
  EXPECT_FALSE(cookieValue({}, "a"));
}

}  // namespace
}  // namespace llmux::protocol

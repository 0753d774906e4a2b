// The `slo:` and `alerts:` sections.

#include <gtest/gtest.h>

#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;
using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

std::string document(std::string const& top) {
  return "gateway_keys:\n  - {name: team, key: gw}\nchannels:\n  - {name: c, protocol: "
         "openai-chat, base_url: \"https://o.example\", keys: "
         "[k1], models: [m]}\n" +
         top;
}

TEST(AlertsConfig, DefaultsAreTheDocumentedNumbers) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  EXPECT_DOUBLE_EQ(settings->slo.success_rate, 0.99);
  EXPECT_EQ(settings->slo.first_token_p95, Millis(3000));
  EXPECT_FALSE(settings->alerts);

  settings = loaded(document("alerts: {}\n"));
  ASSERT_TRUE(settings && settings->alerts);
  AlertSettings const& a = *settings->alerts;
  EXPECT_EQ(a.interval, Millis(60'000));
  EXPECT_EQ(a.window, Millis(300'000));
  EXPECT_EQ(a.cooldown, Millis(900'000));
  EXPECT_EQ(a.min_samples, 20);
  EXPECT_EQ(a.first_token_ceiling, Millis(15'000));
  EXPECT_DOUBLE_EQ(a.burn_rate, 10);
  EXPECT_EQ(a.breaker_open, Millis(300'000));
  EXPECT_DOUBLE_EQ(a.rate_limited_share, 0.05);
  EXPECT_DOUBLE_EQ(a.budget_share, 0.8);
  EXPECT_TRUE(a.webhooks.empty());
}

TEST(AlertsConfig, EveryFieldAndEveryWebhookKind) {
  auto env = fakeEnv({{"SLACK_URL", "https://hooks.slack.com/services/T0/B0/xyz"},
                      {"DING_SECRET", "SECabc"},
                      {"LARK_SECRET", "lark"}});
  auto settings =
      loaded(document("slo: {success_rate: 0.995, first_token_p95_ms: 2000}\n"
                      "alerts:\n"
                      "  interval_ms: 1000\n  window_ms: 5000\n  cooldown_ms: 60000\n"
                      "  min_samples: 5\n  first_token_ceiling_ms: 9000\n  burn_rate: 2\n"
                      "  breaker_open_ms: 3000\n  rate_limited_share: 0.2\n"
                      "  budget_share: 0.9\n"
                      "  webhooks:\n"
                      "    - {kind: slack, url_env: SLACK_URL}\n"
                      "    - {kind: dingtalk, url: \"https://oapi.dingtalk.com/robot/send?"
                      "access_token=t0k\", secret_env: DING_SECRET}\n"
                      "    - {kind: feishu, url: \"https://open.feishu.cn/open-apis/bot/v2/"
                      "hook/abc\", secret_env: LARK_SECRET}\n"
                      "    - {kind: wecom, url: \"https://qyapi.weixin.qq.com/cgi-bin/webhook/"
                      "send?key=k\"}\n"
                      "    - {kind: webhook, url: \"http://127.0.0.1:9000\"}\n"),
             env);
  ASSERT_TRUE(settings && settings->alerts);
  EXPECT_DOUBLE_EQ(settings->slo.success_rate, 0.995);
  EXPECT_EQ(settings->slo.first_token_p95, Millis(2000));
  AlertSettings const& a = *settings->alerts;
  EXPECT_EQ(a.interval, Millis(1000));
  EXPECT_EQ(a.window, Millis(5000));
  EXPECT_EQ(a.cooldown, Millis(60'000));
  EXPECT_EQ(a.min_samples, 5);
  EXPECT_EQ(a.first_token_ceiling, Millis(9000));
  EXPECT_DOUBLE_EQ(a.burn_rate, 2);
  EXPECT_EQ(a.breaker_open, Millis(3000));
  EXPECT_DOUBLE_EQ(a.rate_limited_share, 0.2);
  EXPECT_DOUBLE_EQ(a.budget_share, 0.9);
  ASSERT_EQ(a.webhooks.size(), 5u);
  EXPECT_EQ(a.webhooks[0].kind, WebhookKind::Slack);
  EXPECT_EQ(a.webhooks[0].name, "slack#0");
  EXPECT_TRUE(a.webhooks[0].target.tls);
  EXPECT_EQ(a.webhooks[0].target.host, "hooks.slack.com");
  EXPECT_EQ(a.webhooks[0].target.path_prefix, "/services/T0/B0/xyz");
  EXPECT_EQ(a.webhooks[0].query, "");
  EXPECT_EQ(a.webhooks[1].kind, WebhookKind::DingTalk);
  EXPECT_EQ(a.webhooks[1].query, "access_token=t0k");
  EXPECT_EQ(a.webhooks[1].secret, "SECabc");
  EXPECT_EQ(a.webhooks[2].kind, WebhookKind::Feishu);
  EXPECT_EQ(a.webhooks[2].secret, "lark");
  EXPECT_EQ(a.webhooks[3].kind, WebhookKind::WeCom);
  EXPECT_EQ(a.webhooks[3].query, "key=k");
  EXPECT_EQ(a.webhooks[4].kind, WebhookKind::Webhook);
  EXPECT_FALSE(a.webhooks[4].target.tls);
  EXPECT_EQ(a.webhooks[4].target.port, 9000);
  EXPECT_EQ(a.webhooks[4].target.path_prefix, "/");
}

TEST(AlertsConfig, TheWindowHoldsAtMostTenThousandEvaluations) {
  EXPECT_TRUE(loaded(document("alerts: {interval_ms: 1, window_ms: 10000}\n")));
  EXPECT_EQ(issuesOf(document("alerts: {interval_ms: 1, window_ms: 10001}\n")),
            Lines{"alerts.window_ms: must be at most 10000 times interval_ms (1)"});
}

TEST(AlertsConfig, MistakesAreReportedWithTheirPaths) {
  Lines issues = issuesOf(
      document("slo: {success_rate: 1, first_token_p95_ms: 0, p99: 1}\n"
               "alerts:\n"
               "  interval_ms: 60000\n  window_ms: 1000\n  rate_limited_share: 2\n  colour: red\n"
               "  webhooks:\n"
               "    - {kind: teams, url: \"https://x.example\"}\n"
               "    - {kind: slack}\n"
               "    - {kind: slack, url: \"https://x.example\", url_env: X}\n"
               "    - {kind: wecom, url: \"https://x.example\", secret_env: S}\n"
               "    - {kind: dingtalk, url: \"https://x.example\", secret_env: UNSET}\n"
               "    - {kind: webhook, url: \"ftp://x.example\"}\n"));
  Lines expected = {
      "slo.p99: unknown key (expected one of success_rate, first_token_p95_ms)",
      "slo.success_rate: must be from 0.5 to 0.99999",
      "slo.first_token_p95_ms: must be from 1 to 604800000",
      "alerts.colour: unknown key (expected one of interval_ms, window_ms, cooldown_ms, "
      "min_samples, first_token_ceiling_ms, burn_rate, breaker_open_ms, rate_limited_share, "
      "budget_share, webhooks)",
      "alerts.rate_limited_share: must be from 0.0001 to 1",
      "alerts.window_ms: must be at least interval_ms (60000)",
      "alerts.webhooks[0].kind: expected one of webhook, slack, feishu, dingtalk, wecom",
      "alerts.webhooks[1]: one of url or url_env is required",
      "alerts.webhooks[2]: set either url or url_env, not both",
      "alerts.webhooks[3].secret_env: only dingtalk and feishu robots sign their messages",
      "alerts.webhooks[3].secret_env: environment variable S is not set",
      "alerts.webhooks[4].secret_env: environment variable UNSET is not set",
  };
  ASSERT_GE(issues.size(), expected.size() + 1) << ::testing::PrintToString(issues);
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(issues[i], expected[i]);
  EXPECT_EQ(issues[expected.size()].rfind("alerts.webhooks[5].url: ", 0), 0u) << issues.back();
}

}  // namespace
}  // namespace llmux::config

#include "alerts/messages.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "config/alerts_parser.h"

namespace llmux::alerts {
namespace {

// ManualTimeSource's wall clock: 1,700,000,000 s after the epoch (2023-11-14T22:13:20Z).
WallTime const kNow = WallTime(std::chrono::seconds(1'700'000'000));

config::Webhook hook(config::WebhookKind kind, std::string url, std::string secret = {}) {
  config::Webhook out;
  out.kind = kind;
  std::string why;
  EXPECT_TRUE(config::detail::parseWebhookUrl(url, out, why)) << why;
  out.secret = std::move(secret);
  return out;
}

AlertMessage firing() {
  AlertMessage m;
  m.alert = AlertName::FirstTokenP95;
  m.firing = true;
  m.summary = "first-token p95 4.5 s \"slow\"";
  m.value = 4.5;
  m.threshold = 3;
  m.at = kNow;
  return m;
}

/// firing()'s text, JSON-escaped, as every robot carries it.
constexpr char kText[] = "[FIRING] llmux gw-1 first_token_p95: first-token p95 4.5 s \\\"slow\\\"";

TEST(AlertMessages, TextNamesStateInstanceAlertAndSubject) {
  EXPECT_EQ(messageText(firing(), "gw-1"),
            "[FIRING] llmux gw-1 first_token_p95: first-token p95 4.5 s \"slow\"");
  AlertMessage resolved;
  resolved.alert = AlertName::BreakerOpen;
  resolved.subject = "openai/gpt-4o";
  resolved.firing = false;
  resolved.summary = "breaker_open (openai/gpt-4o) has cleared";
  EXPECT_EQ(messageText(resolved, "gw-1"),
            "[RESOLVED] llmux gw-1 breaker_open (openai/gpt-4o): breaker_open (openai/gpt-4o) has "
            "cleared");
}

TEST(AlertMessages, GenericWebhook) {
  auto request = renderWebhook(hook(config::WebhookKind::Webhook, "http://127.0.0.1:9000/hooks/a"),
                               firing(), "gw-1", kNow);
  EXPECT_EQ(request.target, "/hooks/a");
  EXPECT_EQ(request.body,
            "{\"source\":\"llmux\",\"instance\":\"gw-1\",\"alert\":\"first_token_p95\","
            "\"subject\":\"\",\"state\":\"firing\",\"summary\":\"first-token p95 4.5 s "
            "\\\"slow\\\"\",\"value\":4.5,\"threshold\":3,\"at\":\"2023-11-14T22:13:20.000Z\"}");
  EXPECT_NO_THROW(boost::json::parse(request.body));
}

TEST(AlertMessages, Slack) {
  auto request =
      renderWebhook(hook(config::WebhookKind::Slack, "https://hooks.slack.com/services/T0/B0/x"),
                    firing(), "gw-1", kNow);
  EXPECT_EQ(request.target, "/services/T0/B0/x");
  EXPECT_EQ(request.body, std::string("{\"text\":\"") + kText + "\"}");
}

TEST(AlertMessages, WeCom) {
  auto request = renderWebhook(
      hook(config::WebhookKind::WeCom, "https://qyapi.weixin.qq.com/cgi-bin/webhook/send?key=k1"),
      firing(), "gw-1", kNow);
  EXPECT_EQ(request.target, "/cgi-bin/webhook/send?key=k1");
  EXPECT_EQ(request.body,
            std::string("{\"msgtype\":\"text\",\"text\":{\"content\":\"") + kText + "\"}}");
}

TEST(AlertMessages, DingTalkUnsignedAndSigned) {
  std::string const body =
      std::string("{\"msgtype\":\"text\",\"text\":{\"content\":\"") + kText + "\"}}";
  auto plain = renderWebhook(
      hook(config::WebhookKind::DingTalk, "https://oapi.dingtalk.com/robot/send?access_token=t"),
      firing(), "gw-1", kNow);
  EXPECT_EQ(plain.target, "/robot/send?access_token=t");
  EXPECT_EQ(plain.body, body);

  // base64(HMAC-SHA256(key = secret, "<ms>\n<secret>")), URL-encoded (DingTalk's documentation;
  // the value computed with its Python sample).
  EXPECT_EQ(dingTalkSignature("SECtest", 1'700'000'000'000),
            "aZLLrriXgn05YbwaGR7knYsLeJADjr9NwLaNNKpxh4g=");
  auto signed_request =
      renderWebhook(hook(config::WebhookKind::DingTalk,
                         "https://oapi.dingtalk.com/robot/send?access_token=t", "SECtest"),
                    firing(), "gw-1", kNow);
  EXPECT_EQ(signed_request.target,
            "/robot/send?access_token=t&timestamp=1700000000000&sign="
            "aZLLrriXgn05YbwaGR7knYsLeJADjr9NwLaNNKpxh4g%3D");
  EXPECT_EQ(signed_request.body, body);
}

TEST(AlertMessages, FeishuUnsignedAndSigned) {
  auto plain = renderWebhook(
      hook(config::WebhookKind::Feishu, "https://open.feishu.cn/open-apis/bot/v2/hook/abc"),
      firing(), "gw-1", kNow);
  EXPECT_EQ(plain.target, "/open-apis/bot/v2/hook/abc");
  EXPECT_EQ(plain.body,
            std::string("{\"msg_type\":\"text\",\"content\":{\"text\":\"") + kText + "\"}}");

  // base64(HMAC-SHA256(key = "<s>\n<secret>", empty message)), as Feishu's Python sample does.
  EXPECT_EQ(feishuSignature("lark", 1'700'000'000), "e2qFwrqAn+2YItDFTBZt+hhh1HMT1igkZqVryW1MFBw=");
  auto signed_request = renderWebhook(
      hook(config::WebhookKind::Feishu, "https://open.feishu.cn/open-apis/bot/v2/hook/abc", "lark"),
      firing(), "gw-1", kNow);
  EXPECT_EQ(signed_request.target, "/open-apis/bot/v2/hook/abc");
  EXPECT_EQ(signed_request.body, std::string("{\"timestamp\":\"1700000000\",\"sign\":"
                                             "\"e2qFwrqAn+2YItDFTBZt+hhh1HMT1igkZqVryW1MFBw=\","
                                             "\"msg_type\":\"text\",\"content\":{\"text\":\"") +
                                     kText + "\"}}");
  EXPECT_NO_THROW(boost::json::parse(signed_request.body));
}

}  // namespace
}  // namespace llmux::alerts

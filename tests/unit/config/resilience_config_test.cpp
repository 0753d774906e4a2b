// The resilience and limit fields of the configuration: a channel's breaker, first-token timeout
// and model buckets, a gateway key's limits, and the buckets, redis and prices sections.

#include <gtest/gtest.h>

#include "config/loader.h"
#include "config/resilience_parser.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;
using Lines = std::vector<std::string>;

/// One channel "c" with `channel_extra` fields and one gateway key with `key_extra` fields,
/// then `top` (top-level sections).
std::string document(std::string const& channel_extra, std::string const& key_extra = "",
                     std::string const& top = "") {
  return "gateway_keys:\n  - {name: team, key: gw" + key_extra + "}\nchannels:\n  - {name: c, "
         "protocol: openai-chat, base_url: \"https://o.example\", keys: [k1], models: [m]" +
         channel_extra + "}\n" + top;
}

SettingsPtr loaded(std::string const& yaml) {
  auto outcome = parseSettings(yaml, fakeEnv({{"REDIS_PASSWORD", "s3cret"}}));
  EXPECT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  return outcome.settings;
}

Lines issuesOf(std::string const& yaml) {
  auto outcome = parseSettings(yaml, fakeEnv());
  EXPECT_EQ(outcome.settings, nullptr);
  Lines out;
  for (auto const& issue : outcome.issues) out.push_back(issue.text());
  return out;
}

TEST(ResilienceConfig, DefaultsAreTheDocumentedNumbers) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  Channel const& channel = settings->channels[0];
  EXPECT_EQ(channel.timeouts.first_token, Millis(15'000));
  EXPECT_EQ(channel.timeouts.first_token_reasoning,
            (ReasoningFirstToken{Millis(16'000), Millis(24'000), Millis(30'000)}));
  EXPECT_TRUE(channel.breaker.enabled);
  EXPECT_EQ(channel.breaker.failure_threshold, 5);
  EXPECT_EQ(channel.breaker.open_for, Millis(30'000));
  EXPECT_TRUE(channel.breaker.storm_enabled);
  EXPECT_EQ(channel.breaker.storm_window, Millis(10'000));
  EXPECT_DOUBLE_EQ(channel.breaker.storm_ratio, 0.15);
  EXPECT_EQ(channel.breaker.storm_min_samples, 20);
  EXPECT_EQ(channel.breaker.storm_open_for, Millis(3'000));
  EXPECT_TRUE(channel.model_limits.empty());
  EXPECT_FALSE(settings->gateway_keys[0].limits.any());
  EXPECT_EQ(settings->buckets.max_wait, Millis(30'000));
  EXPECT_EQ(settings->buckets.expected_output_tokens, 1024);
  EXPECT_FALSE(settings->redis);
  EXPECT_TRUE(settings->prices.empty());
}

TEST(ResilienceConfig, BreakerOffTurnsBothOff) {
  auto settings = loaded(document(", breaker: off"));
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->channels[0].breaker.enabled);
  EXPECT_FALSE(settings->channels[0].breaker.storm_enabled);
}

TEST(ResilienceConfig, BreakerThresholdsAndStorm) {
  auto settings = loaded(document(
      ", timeouts: {first_token_ms: 2500}, breaker: {failure_threshold: 3, open_ms: 1000, "
      "probe_timeout_ms: 5000, storm: {window_ms: 4000, ratio: 0.25, min_samples: 8, open_ms: 500}}"));
  ASSERT_TRUE(settings);
  BreakerSettings const& b = settings->channels[0].breaker;
  EXPECT_EQ(settings->channels[0].timeouts.first_token, Millis(2500));
  EXPECT_EQ(b.failure_threshold, 3);
  EXPECT_EQ(b.open_for, Millis(1000));
  EXPECT_EQ(b.probe_timeout, Millis(5000));
  EXPECT_EQ(b.storm_window, Millis(4000));
  EXPECT_DOUBLE_EQ(b.storm_ratio, 0.25);
  EXPECT_EQ(b.storm_min_samples, 8);
  EXPECT_EQ(b.storm_open_for, Millis(500));
  auto storm_off = loaded(document(", breaker: {storm: off}"));
  ASSERT_TRUE(storm_off);
  EXPECT_TRUE(storm_off->channels[0].breaker.enabled);
  EXPECT_FALSE(storm_off->channels[0].breaker.storm_enabled);
}

TEST(ResilienceConfig, ReasoningFirstTokenTimeouts) {
  auto settings = loaded(document(
      ", timeouts: {first_token_ms: 300, first_token_reasoning_ms: {low: 600, high: 40000}}"));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->channels[0].timeouts.first_token_reasoning,
            (ReasoningFirstToken{Millis(600), Millis(24'000), Millis(40'000)}))
      << "an entry left out keeps its default";
  EXPECT_EQ(issuesOf(document(", timeouts: {first_token_reasoning_ms: {low: 0, huge: 1}}")),
            (Lines{"channels[0].timeouts.first_token_reasoning_ms.huge: unknown key (expected "
                   "one of low, medium, high)",
                   "channels[0].timeouts.first_token_reasoning_ms.low: must be from 1 to "
                   "86400000"}));
  EXPECT_EQ(
      issuesOf(document(", timeouts: {first_token_reasoning_ms: {low: 20000, medium: 10000}}")),
      (Lines{"channels[0].timeouts.first_token_reasoning_ms: expected low <= medium <= high "
             "(more effort thinks longer)"}));
  EXPECT_EQ(issuesOf(document(", timeouts: {first_token_reasoning_ms: 5000}")),
            (Lines{"channels[0].timeouts.first_token_reasoning_ms: expected a mapping, got a "
                   "scalar"}));
}

TEST(ResilienceConfig, ModelLimitsAndGatewayKeyLimits) {
  auto settings = loaded(document(
      ", model_limits: {m: {rpm: 100, tpm: 50000}, other: {tpm: 10}}",
      ", limits: {rpm: 60, rpd: 1000, tpm: 90000, concurrency: 4, daily_tokens: 1000000, "
      "monthly_tokens: 20000000, daily_cost_usd: 1.5, monthly_cost_usd: 30}"));
  ASSERT_TRUE(settings);
  auto const& model_limits = settings->channels[0].model_limits;
  ASSERT_EQ(model_limits.size(), 2u);
  EXPECT_EQ(model_limits.at("m"), (BucketLimits{100, 50000}));
  EXPECT_EQ(model_limits.at("other"), (BucketLimits{0, 10}));
  ClientLimits const& limits = settings->gateway_keys[0].limits;
  EXPECT_EQ(limits.rpm, 60);
  EXPECT_EQ(limits.rpd, 1000);
  EXPECT_EQ(limits.tpm, 90000);
  EXPECT_EQ(limits.concurrency, 4);
  EXPECT_EQ(limits.daily_tokens, 1'000'000);
  EXPECT_EQ(limits.monthly_tokens, 20'000'000);
  EXPECT_DOUBLE_EQ(limits.daily_cost_usd, 1.5);
  EXPECT_DOUBLE_EQ(limits.monthly_cost_usd, 30);
  EXPECT_TRUE(limits.any());
}

TEST(ResilienceConfig, BucketsRedisAndPrices) {
  auto settings = loaded(document("", "",
                                  "buckets: {max_wait_ms: 0, expected_output_tokens: 256}\n"
                                  "redis: {url: \"redis://10.0.0.7:6380/2\", password_env: REDIS_PASSWORD, "
                                  "timeout_ms: 80, cooldown_ms: 5000, prefix: \"gw1:\"}\n"
                                  "prices: {m: {input: 1.25, output: 10}}\n"));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->buckets.max_wait, Millis(0));
  EXPECT_EQ(settings->buckets.expected_output_tokens, 256);
  ASSERT_TRUE(settings->redis);
  EXPECT_EQ(settings->redis->host, "10.0.0.7");
  EXPECT_EQ(settings->redis->port, 6380);
  EXPECT_EQ(settings->redis->db, 2);
  EXPECT_EQ(settings->redis->password, "s3cret");
  EXPECT_EQ(settings->redis->timeout, Millis(80));
  EXPECT_EQ(settings->redis->cooldown, Millis(5000));
  EXPECT_EQ(settings->redis->prefix, "gw1:");
  EXPECT_DOUBLE_EQ(settings->prices.at("m").input, 1.25);
  EXPECT_DOUBLE_EQ(settings->prices.at("m").output, 10);
}

TEST(ResilienceConfig, PricesOfMediaBesideTokens) {
  auto settings = loaded(document("", "",
                                  "prices:\n"
                                  "  gpt-image-1: {input: 5, output: 40, per_image: 0.04}\n"
                                  "  dall-e-3: {per_image: 0.08}\n"
                                  "  sora-2: {per_second: 0.1}\n"
                                  "  whisper-1: {per_second: 0.0001}\n"
                                  "  tts-1: {per_million_characters: 15}\n"
                                  "  free: {per_image: 0}\n"));
  ASSERT_TRUE(settings);
  ModelPrice const& image = settings->prices.at("gpt-image-1");
  EXPECT_DOUBLE_EQ(image.input, 5);
  EXPECT_DOUBLE_EQ(image.output, 40);
  EXPECT_DOUBLE_EQ(image.per_image, 0.04);
  EXPECT_DOUBLE_EQ(image.per_second, 0);
  // A model priced by what it makes or takes needs no token prices.
  ModelPrice const& dalle = settings->prices.at("dall-e-3");
  EXPECT_DOUBLE_EQ(dalle.per_image, 0.08);
  EXPECT_DOUBLE_EQ(dalle.input, 0);
  EXPECT_DOUBLE_EQ(dalle.output, 0);
  EXPECT_DOUBLE_EQ(settings->prices.at("sora-2").per_second, 0.1);
  EXPECT_DOUBLE_EQ(settings->prices.at("whisper-1").per_second, 0.0001);
  EXPECT_DOUBLE_EQ(settings->prices.at("tts-1").per_million_characters, 15);
  EXPECT_DOUBLE_EQ(settings->prices.at("free").per_image, 0);
}

TEST(ResilienceConfig, MediaPricesAreNonNegativeAndTokenPricesStillComeInPairs) {
  EXPECT_EQ(issuesOf(document("", "",
                              "prices:\n"
                              "  a: {per_image: -0.01}\n"
                              "  b: {per_second: x, per_million_characters: .inf}\n"
                              "  c: {input: 1, per_image: 0.04}\n"
                              "  d: {}\n"
                              "  e: {per_minute: 1}\n")),
            (Lines{"prices.a.per_image: must be from 0 to 1000000",
                   "prices.b.per_second: expected a number from 0 to 1000000",
                   "prices.b.per_million_characters: expected a number from 0 to 1000000",
                   "prices.c.output: required field is missing",
                   "prices.d.input: required field is missing",
                   "prices.d.output: required field is missing",
                   "prices.e.per_minute: unknown key (expected one of input, output, per_image, "
                   "per_second, per_million_characters)",
                   "prices.e.input: required field is missing",
                   "prices.e.output: required field is missing"}));
}

TEST(ResilienceConfig, RedisUrls) {
  RedisSettings redis;
  std::string why;
  ASSERT_TRUE(detail::parseRedisUrl("redis://:pw@cache:7000/3", redis, why)) << why;
  EXPECT_EQ(redis.host, "cache");
  EXPECT_EQ(redis.port, 7000);
  EXPECT_EQ(redis.password, "pw");
  EXPECT_EQ(redis.db, 3);
  RedisSettings plain;
  ASSERT_TRUE(detail::parseRedisUrl("redis://127.0.0.1", plain, why)) << why;
  EXPECT_EQ(plain.port, 6379);
  EXPECT_EQ(plain.db, 0);
  EXPECT_FALSE(detail::parseRedisUrl("rediss://x", plain, why));
  EXPECT_FALSE(detail::parseRedisUrl("redis://x:0", plain, why));
  EXPECT_FALSE(detail::parseRedisUrl("redis://x/16", plain, why));
  EXPECT_FALSE(detail::parseRedisUrl("redis://", plain, why));
}

TEST(ResilienceConfig, EveryProblemIsReportedWithItsPath) {
  EXPECT_EQ(issuesOf(document(", breaker: on, model_limits: {m: {}}", ", limits: {rpm: 0, cost: 1}",
                              "buckets: {max_wait_ms: -1}\nredis: {url: \"http://x\"}\n"
                              "prices: {m: {input: -1}}\n")),
            (Lines{"gateway_keys[0].limits.cost: unknown key (expected one of rpm, rpd, tpm, "
                   "concurrency, daily_tokens, monthly_tokens, daily_cost_usd, monthly_cost_usd)",
                   "gateway_keys[0].limits.rpm: must be from 1 to 1000000000000",
                   "channels[0].breaker: expected off or a mapping of failure_threshold, open_ms, "
                   "probe_timeout_ms, storm",
                   "channels[0].model_limits.m: give rpm, tpm or both",
                   "buckets.max_wait_ms: must be from 0 to 3600000",
                   "redis.url: expected redis://[:password@]host[:port][/db] (rediss:// is not "
                   "supported)",
                   "prices.m.input: must be from 0 to 1000000",
                   "prices.m.output: required field is missing"}));
}

}  // namespace
}  // namespace llmux::config

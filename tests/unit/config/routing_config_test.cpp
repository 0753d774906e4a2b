// The routing fields of the configuration: channel key attributes, capabilities, gateway key
// strategies, the admin token, model groups, fallbacks, freeze rules and the retry budget.

#include <gtest/gtest.h>

#include "config/key_id.h"
#include "config/loader.h"
#include "config/routing_parser.h"
#include "fake_env.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;
using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

/// Two channels: "oa" serves gpt-4o and gpt-4o-mini (alias "mini"), "an" serves claude-sonnet-4-5.
constexpr char kChannels[] = R"(gateway_keys: [{name: a, key: gw-secret}]
channels:
  - {name: oa, protocol: openai-chat, base_url: "https://o.example", keys: [k1], models: [gpt-4o, gpt-4o-mini], model_map: {mini: gpt-4o-mini}}
  - {name: an, protocol: anthropic, base_url: "https://a.example", keys: [k2], models: [claude-sonnet-4-5]}
)";

/// A document with one channel whose `keys:` is `keys` (flow form).
std::string withKeys(std::string const& keys) {
  return "gateway_keys: [{name: a, key: gw}]\nchannels:\n  - {name: c, protocol: gemini, "
         "base_url: \"https://g.example\", models: [m], keys: " + keys + "}\n";
}

// --- channel keys ---------------------------------------------------------------------------

TEST(ChannelKeys, ShortFormKeepsDefaults) {
  auto settings = loaded(withKeys("[k-one]"));
  ASSERT_TRUE(settings);
  ChannelKey const& key = settings->channels[0].keys[0];
  EXPECT_EQ(key.secret, "k-one");
  EXPECT_EQ(key.label, "c#0");
  EXPECT_EQ(key.id, channelKeyId("c", "k-one"));
  EXPECT_EQ(key.name, "");
  EXPECT_EQ(key.billing, Billing::PerToken);
  EXPECT_FALSE(key.daily_quota);
  EXPECT_EQ(key.limits, KeyLimits{});
  EXPECT_EQ(key.weight, 1);
  EXPECT_TRUE(key.enabled);
}

TEST(ChannelKeys, MapFormFillsEveryAttribute) {
  auto settings = loaded(withKeys(
      "[plain, {key: lit, name: team-a, billing: per_request, daily_quota: 500, rpm: 60, "
      "tpm: 90000, concurrency: 4, weight: 3, enabled: false}, {key_env: FROM_ENV}]"),
      fakeEnv({{"FROM_ENV", "env-secret"}}));
  ASSERT_TRUE(settings);
  auto const& keys = settings->channels[0].keys;
  ASSERT_EQ(keys.size(), 3u);
  ChannelKey const& named = keys[1];
  EXPECT_EQ(named.secret, "lit");
  EXPECT_EQ(named.name, "team-a");
  EXPECT_EQ(named.label, "c/team-a");
  EXPECT_EQ(named.id, channelKeyId("c", "lit"));  // the name does not change the id
  EXPECT_EQ(named.billing, Billing::PerRequest);
  EXPECT_EQ(named.daily_quota, 500);
  EXPECT_EQ(named.limits.rpm, 60);
  EXPECT_EQ(named.limits.tpm, 90000);
  EXPECT_EQ(named.limits.concurrency, 4);
  EXPECT_EQ(named.weight, 3);
  EXPECT_FALSE(named.enabled);
  ChannelKey const& from_env = keys[2];
  EXPECT_EQ(from_env.secret, "env-secret");
  EXPECT_EQ(from_env.label, "c#2");  // unnamed: positional label
  EXPECT_EQ(from_env.billing, Billing::PerToken);
  EXPECT_TRUE(from_env.enabled);
}

TEST(ChannelKeys, LiteralKeyExpandsVariables) {
  auto settings = loaded(withKeys("[{key: \"${K}\"}]"), fakeEnv({{"K", "expanded"}}));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->channels[0].keys[0].secret, "expanded");
}

TEST(ChannelKeys, AllDisabledIsAllowed) {
  auto settings = loaded(withKeys("[{key: a, enabled: false}, {key: b, enabled: false}]"));
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->channels[0].keys[0].enabled);
  EXPECT_FALSE(settings->channels[0].keys[1].enabled);
}

TEST(ChannelKeys, ErrorsCarryTheirPaths) {
  EXPECT_EQ(issuesOf(withKeys("[{key: a, key_env: B}, {name: x}, {key: \"\"}, {key_env: UNSET}, "
                              "{key_env: \"1x\"}]")),
            (Lines{"channels[0].keys[0]: set either key or key_env, not both",
                   "channels[0].keys[1]: one of key or key_env is required",
                   "channels[0].keys[2].key: empty secret",
                   "channels[0].keys[3].key_env: environment variable UNSET is not set",
                   "channels[0].keys[4].key_env: not an environment variable name"}));
  EXPECT_EQ(issuesOf(withKeys("[{key: a, billing: monthly, daily_quota: 0, rpm: -1, tpm: x, "
                              "concurrency: 0, weight: 0, enabled: maybe, name: \"a b\", secret: s}]")),
            (Lines{"channels[0].keys[0].secret: unknown key (expected one of key, key_env, name, "
                   "billing, daily_quota, rpm, tpm, concurrency, weight, enabled, proxy)",
                   "channels[0].keys[0].name: must be 1 to 64 letters, digits, '.', '_' or '-'",
                   "channels[0].keys[0].billing: unknown billing \"monthly\" (expected per_token or "
                   "per_request)",
                   "channels[0].keys[0].daily_quota: must be from 1 to 1000000000000000",
                   "channels[0].keys[0].rpm: must be from 1 to 1000000000000",
                   "channels[0].keys[0].tpm: expected an integer from 1 to 1000000000000",
                   "channels[0].keys[0].concurrency: must be from 1 to 1000000",
                   "channels[0].keys[0].weight: must be from 1 to 1000000",
                   "channels[0].keys[0].enabled: expected true or false"}));
}

TEST(ChannelKeys, DuplicateNamesAndSecretsAcrossForms) {
  EXPECT_EQ(issuesOf(withKeys("[s1, {key: s1}, {key: s2, name: n}, {key: s3, name: n}]")),
            (Lines{"channels[0].keys[1].key: duplicate key (same secret as channels[0].keys[0])",
                   "channels[0].keys[3].name: duplicate key name \"n\" (also channels[0].keys[2])"}));
}

TEST(ChannelKeys, SameNameInTwoChannelsIsFine) {
  std::string yaml = R"(gateway_keys: [{name: a, key: gw}]
channels:
  - {name: c, protocol: gemini, base_url: "https://g.example", models: [m], keys: [{key: s1, name: main}]}
  - {name: d, protocol: gemini, base_url: "https://g.example", models: [m], keys: [{key: s2, name: main}]}
)";
  auto settings = loaded(yaml);
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->channels[0].keys[0].label, "c/main");
  EXPECT_EQ(settings->channels[1].keys[0].label, "d/main");
}

// --- capabilities ---------------------------------------------------------------------------

std::string withCapabilities(std::string const& caps) {
  return "gateway_keys: [{name: a, key: gw}]\nchannels:\n  - {name: c, protocol: openai-chat, "
         "base_url: \"https://o.example\", keys: [k], models: [m1, m2], model_map: {alias: m1}, "
         "capabilities: " + caps + "}\n";
}

TEST(ChannelCapabilities, PerModelAndStar) {
  auto settings = loaded(withCapabilities(
      "{\"*\": {tools: false}, m1: {vision: true, reasoning: false, context_window: 32000}, "
      "alias: {tools: true}}"));
  ASSERT_TRUE(settings);
  auto const& caps = settings->channels[0].capabilities;
  ASSERT_EQ(caps.size(), 3u);
  EXPECT_EQ(caps.at("*"), (ModelCapabilities{false, std::nullopt, std::nullopt, std::nullopt}));
  EXPECT_EQ(caps.at("m1"), (ModelCapabilities{std::nullopt, true, false, 32000}));
  EXPECT_EQ(caps.at("alias").tools, true);
}

TEST(ChannelCapabilities, NoneByDefault) {
  auto settings = loaded(withKeys("[k]"));
  ASSERT_TRUE(settings);
  EXPECT_TRUE(settings->channels[0].capabilities.empty());
}

TEST(ChannelCapabilities, Errors) {
  EXPECT_EQ(issuesOf(withCapabilities(
                "{other: {tools: true}, m1: {tools: yes-ish, context_window: 0, audio: true}, "
                "m2: [tools]}")),
            (Lines{"channels[0].capabilities.other: the channel does not serve model \"other\" "
                   "(or use \"*\")",
                   "channels[0].capabilities.m1.audio: unknown key (expected one of tools, vision, "
                   "reasoning, context_window)",
                   "channels[0].capabilities.m1.tools: expected true or false",
                   "channels[0].capabilities.m1.context_window: must be from 1 to 100000000",
                   "channels[0].capabilities.m2: expected a mapping, got a list"}));
  EXPECT_EQ(issuesOf(withCapabilities("[m1]")),
            (Lines{"channels[0].capabilities: expected a mapping, got a list"}));
}

// --- gateway key strategy -------------------------------------------------------------------

TEST(GatewayKeyStrategy, DefaultAndEveryName) {
  std::string yaml = R"(gateway_keys:
  - {name: d, key: k0}
  - {name: s, key: k1, strategy: sequential}
  - {name: r, key: k2, strategy: random}
  - {name: mr, key: k3, strategy: model-random}
  - {name: gr, key: k4, strategy: global-random}
  - {name: i, key: k5, strategy: intelligent}
  - {name: f, key: k6, strategy: fast}
channels:
  - {name: c, protocol: gemini, base_url: "https://g.example", keys: [k], models: [m]}
)";
  auto settings = loaded(yaml);
  ASSERT_TRUE(settings);
  auto const& keys = settings->gateway_keys;
  EXPECT_EQ(keys[0].strategy, Strategy::Intelligent);
  EXPECT_EQ(keys[1].strategy, Strategy::Sequential);
  EXPECT_EQ(keys[2].strategy, Strategy::Random);
  EXPECT_EQ(keys[3].strategy, Strategy::ModelRandom);
  EXPECT_EQ(keys[4].strategy, Strategy::GlobalRandom);
  EXPECT_EQ(keys[5].strategy, Strategy::Intelligent);
  EXPECT_EQ(keys[6].strategy, Strategy::Fast);
}

TEST(GatewayKeyStrategy, UnknownNameListsTheChoices) {
  std::string yaml = "gateway_keys: [{name: a, key: k, strategy: roundrobin}]\nchannels:\n"
                     "  - {name: c, protocol: gemini, base_url: \"https://g.example\", keys: [k], "
                     "models: [m]}\n";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"gateway_keys[0].strategy: unknown strategy \"roundrobin\" (expected "
                   "sequential, random, model-random, global-random, intelligent, fast)"}));
}

// --- admin token ----------------------------------------------------------------------------

TEST(AdminToken, OffByDefault) {
  auto settings = loaded(kChannels);
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->admin_token, "");
}

TEST(AdminToken, LiteralOrFromEnvironment) {
  auto literal = loaded(std::string(kChannels) + "admin_token: \"adm-${SUFFIX}\"\n",
                        fakeEnv({{"SUFFIX", "1"}}));
  ASSERT_TRUE(literal);
  EXPECT_EQ(literal->admin_token, "adm-1");
  auto from_env = loaded(std::string(kChannels) + "admin_token_env: ADMIN\n",
                         fakeEnv({{"ADMIN", "adm-2"}}));
  ASSERT_TRUE(from_env);
  EXPECT_EQ(from_env->admin_token, "adm-2");
}

TEST(AdminToken, Errors) {
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_token: x\nadmin_token_env: Y\n"),
            (Lines{"admin_token: set either admin_token or admin_token_env, not both"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_token: \"\"\n"),
            (Lines{"admin_token: empty secret"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_token_env: NOPE\n"),
            (Lines{"admin_token_env: environment variable NOPE is not set"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_token: gw-secret\n"),
            (Lines{"admin_token: must differ from every gateway key (same secret as "
                   "gateway_keys[0])"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_token_env: SAME\n",
                     fakeEnv({{"SAME", "gw-secret"}})),
            (Lines{"admin_token_env: must differ from every gateway key (same secret as "
                   "gateway_keys[0])"}));
}

TEST(AdminToken, NamedTokensWithRolesFollowTheAdminToken) {
  auto settings = loaded(std::string(kChannels) +
                             "admin_token: adm-main\n"
                             "admin_tokens:\n"
                             "  - {name: viewer, token: adm-view, role: read_only}\n"
                             "  - {name: ops, token_env: OPS_TOKEN, role: admin}\n",
                         fakeEnv({{"OPS_TOKEN", "adm-ops"}}));
  ASSERT_TRUE(settings);
  ASSERT_EQ(settings->admin_tokens.size(), 3u);
  EXPECT_EQ(settings->admin_tokens[0].name, "admin");
  EXPECT_FALSE(settings->admin_tokens[0].read_only);
  EXPECT_EQ(settings->admin_tokens[1].name, "viewer");
  EXPECT_TRUE(settings->admin_tokens[1].read_only);
  EXPECT_EQ(settings->admin_tokens[2].secret, "adm-ops");
  EXPECT_FALSE(settings->admin_tokens[2].read_only);
  // admin_tokens alone turn the admin API on.
  auto alone = loaded(std::string(kChannels) +
                      "admin_tokens: [{name: viewer, token: adm-view, role: read_only}]\n");
  ASSERT_TRUE(alone);
  EXPECT_EQ(alone->admin_tokens.size(), 1u);
  EXPECT_TRUE(loaded(kChannels)->admin_tokens.empty()) << "off by default";
}

TEST(AdminToken, NamedTokenErrors) {
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_token: adm-main\n"
                                              "admin_tokens: [{name: admin, token: t2, role: admin}]\n"),
            (Lines{"admin_tokens[0].name: duplicate admin token name \"admin\" (admin_token is "
                   "named \"admin\")"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) +
                     "admin_tokens: [{name: a, token: t1, role: admin}, {name: b, token: t1, "
                     "role: read_only}]\n"),
            (Lines{"admin_tokens[1].token: must differ from every other admin token and the "
                   "metrics token"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_tokens: [{name: a, token: t1, role: root}]\n"),
            (Lines{"admin_tokens[0].role: must be \"admin\" or \"read_only\""}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_tokens: [{name: a, token: t1}]\n"),
            (Lines{"admin_tokens[0].role: required field is missing"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "admin_tokens: [{name: a, token: gw-secret, role: admin}]\n"),
            (Lines{"admin_tokens[0].token: must differ from every gateway key (same secret as "
                   "gateway_keys[0])"}));
}

// --- model groups ---------------------------------------------------------------------------

TEST(ModelGroups, MembersInOrder) {
  auto settings = loaded(std::string(kChannels) +
                         "model_groups:\n  smart: [claude-sonnet-4-5, {model: gpt-4o, channel: oa}, "
                         "{model: mini}]\n  cheap: [gpt-4o-mini]\n");
  ASSERT_TRUE(settings);
  auto const& groups = settings->model_groups;
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].name, "smart");
  EXPECT_EQ(groups[0].members,
            (std::vector<GroupMember>{{"claude-sonnet-4-5", ""}, {"gpt-4o", "oa"}, {"mini", ""}}));
  EXPECT_EQ(groups[1].name, "cheap");
  EXPECT_EQ(groups[1].members, (std::vector<GroupMember>{{"gpt-4o-mini", ""}}));
}

TEST(ModelGroups, Errors) {
  std::string yaml = std::string(kChannels) + R"(model_groups:
  gpt-4o: [claude-sonnet-4-5]
  empty: []
  g:
    - nobody-serves-this
    - {model: gpt-4o, channel: an}
    - {model: gpt-4o, channel: ghost}
    - g
    - {channel: oa}
    - {model: gpt-4o, extra: 1}
    - claude-sonnet-4-5
    - claude-sonnet-4-5
  h: claude-sonnet-4-5
)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"model_groups.gpt-4o: \"gpt-4o\" is a model served by channel \"oa\"; a group "
                   "needs a name of its own",
                   "model_groups.empty: at least one member is required",
                   "model_groups.g[0]: no channel serves model \"nobody-serves-this\"",
                   "model_groups.g[1].model: channel \"an\" does not serve model \"gpt-4o\"",
                   "model_groups.g[2].channel: no channel named \"ghost\"",
                   "model_groups.g[3]: a group cannot contain itself",
                   "model_groups.g[4].model: required field is missing",
                   "model_groups.g[5].extra: unknown key (expected one of model, channel)",
                   "model_groups.g[7]: duplicate member \"claude-sonnet-4-5\"",
                   "model_groups.h: expected a list, got a scalar"}));
}

// --- fallbacks ------------------------------------------------------------------------------

TEST(Fallbacks, ModelsAndGroups) {
  auto settings = loaded(std::string(kChannels) +
                         "model_groups: {smart: [claude-sonnet-4-5]}\n"
                         "fallbacks:\n  gpt-4o: [smart, gpt-4o-mini]\n  smart: [gpt-4o]\n");
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->fallbacks.at("gpt-4o"), (std::vector<std::string>{"smart", "gpt-4o-mini"}));
  EXPECT_EQ(settings->fallbacks.at("smart"), (std::vector<std::string>{"gpt-4o"}));
}

TEST(Fallbacks, NoneByDefault) {
  auto settings = loaded(kChannels);
  ASSERT_TRUE(settings);
  EXPECT_TRUE(settings->fallbacks.empty());
  EXPECT_TRUE(settings->model_groups.empty());
}

TEST(Fallbacks, Errors) {
  std::string yaml = std::string(kChannels) + R"(fallbacks:
  gpt-4o: [gpt-4o, unknown-model, mini, mini]
  ghost: [gpt-4o]
  claude-sonnet-4-5: []
  gpt-4o-mini: gpt-4o
)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"fallbacks.gpt-4o[0]: a model cannot fall back to itself",
                   "fallbacks.gpt-4o[1]: no channel serves model \"unknown-model\" and no model "
                   "group has that name",
                   "fallbacks.gpt-4o[3]: duplicate fallback \"mini\"",
                   "fallbacks.ghost: no channel serves model \"ghost\" and no model group has that "
                   "name",
                   "fallbacks.claude-sonnet-4-5: at least one fallback model is required",
                   "fallbacks.gpt-4o-mini: expected a list, got a scalar"}));
}

// --- freeze rules ---------------------------------------------------------------------------

TEST(FreezeRules, DefaultsAreExactlyTheFourBuiltIns) {
  auto rules = defaultFreezeRules();
  ASSERT_EQ(rules.size(), 4u);
  EXPECT_EQ(rules[0].name, "quota-exhausted-openai");
  EXPECT_EQ(rules[0].status, 429);
  EXPECT_EQ(rules[0].body_contains, "insufficient_quota");
  EXPECT_EQ(rules[0].period, FreezePeriod::UpstreamReset);
  EXPECT_EQ(rules[1].name, "quota-exhausted-gemini-daily");
  EXPECT_EQ(rules[1].status, 429);
  EXPECT_EQ(rules[1].body_contains, "PerDay");
  EXPECT_EQ(rules[1].period, FreezePeriod::UpstreamReset);
  EXPECT_EQ(rules[2].name, "credit-exhausted-anthropic");
  EXPECT_EQ(rules[2].status, 400);
  EXPECT_EQ(rules[2].body_contains, "credit balance is too low");
  EXPECT_EQ(rules[2].period, FreezePeriod::Today);
  EXPECT_EQ(rules[3].name, "forbidden");
  EXPECT_EQ(rules[3].status, 403);
  EXPECT_EQ(rules[3].body_contains, "");
  EXPECT_EQ(rules[3].period, FreezePeriod::Today);
  for (auto const& rule : rules) {
    // Gemini's daily quotas are per model; the others take the account's key.
    EXPECT_EQ(rule.object, rule.name == "quota-exhausted-gemini-daily" ? FreezeObject::KeyModel
                                                                       : FreezeObject::Key)
        << rule.name;
    EXPECT_EQ(rule.header, "") << rule.name;
  }
}

TEST(FreezeRules, DefaultsWhenNothingIsConfigured) {
  auto settings = loaded(kChannels);
  ASSERT_TRUE(settings);
  ASSERT_EQ(settings->freeze_rules.size(), 4u);
  EXPECT_EQ(settings->freeze_rules[0].name, "quota-exhausted-openai");
}

TEST(FreezeRules, ConfiguredRulesComeFirstThenDefaults) {
  std::string yaml = std::string(kChannels) + R"(freeze_rules:
  - {name: relay-banned, status: 401, body_contains: banned, object: channel, period: forever}
  - {status: 429, header: x-ratelimit-reset, header_value: "86400", object: key+model, period: 90s}
  - {status: 503, object: channel+model, period: 15m}
  - {status: 529, period: 2h}
  - {status: 402, period: 1d}
  - {status: 400, period: week}
  - {status: 400, period: month}
  - {status: 400, period: reset}
  - {status: 418}
)";
  auto settings = loaded(yaml);
  ASSERT_TRUE(settings);
  auto const& rules = settings->freeze_rules;
  ASSERT_EQ(rules.size(), 9u + 4u);
  EXPECT_EQ(rules[0].name, "relay-banned");
  EXPECT_EQ(rules[0].status, 401);
  EXPECT_EQ(rules[0].body_contains, "banned");
  EXPECT_EQ(rules[0].object, FreezeObject::Channel);
  EXPECT_EQ(rules[0].period, FreezePeriod::Forever);
  EXPECT_EQ(rules[1].name, "rule#1");
  EXPECT_EQ(rules[1].header, "x-ratelimit-reset");
  EXPECT_EQ(rules[1].header_value, "86400");
  EXPECT_EQ(rules[1].object, FreezeObject::KeyModel);
  EXPECT_EQ(rules[1].period, FreezePeriod::Fixed);
  EXPECT_EQ(rules[1].duration, Millis(90'000));
  EXPECT_EQ(rules[2].object, FreezeObject::ChannelModel);
  EXPECT_EQ(rules[2].duration, Millis(15 * 60'000));
  EXPECT_EQ(rules[3].duration, Millis(2 * 3'600'000));
  EXPECT_EQ(rules[4].duration, Millis(86'400'000));
  EXPECT_EQ(rules[5].period, FreezePeriod::Week);
  EXPECT_EQ(rules[6].period, FreezePeriod::Month);
  EXPECT_EQ(rules[7].period, FreezePeriod::UpstreamReset);
  // Defaults of an unspecified rule: object key, period today, no body or header condition.
  EXPECT_EQ(rules[8].name, "rule#8");
  EXPECT_EQ(rules[8].object, FreezeObject::Key);
  EXPECT_EQ(rules[8].period, FreezePeriod::Today);
  EXPECT_EQ(rules[8].body_contains, "");
  EXPECT_EQ(rules[9].name, "quota-exhausted-openai");
  EXPECT_EQ(rules[12].name, "forbidden");
}

TEST(FreezeRules, DefaultsCanBeTurnedOff) {
  auto none = loaded(std::string(kChannels) + "default_freeze_rules: false\n");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->freeze_rules.empty());
  auto own = loaded(std::string(kChannels) +
                    "default_freeze_rules: false\nfreeze_rules: [{name: forbidden, status: 403, "
                    "period: 1h}]\n");
  ASSERT_TRUE(own);
  ASSERT_EQ(own->freeze_rules.size(), 1u);
  EXPECT_EQ(own->freeze_rules[0].name, "forbidden");
  EXPECT_EQ(own->freeze_rules[0].duration, Millis(3'600'000));
}

TEST(FreezeRules, Errors) {
  std::string yaml = std::string(kChannels) + R"(default_freeze_rules: sometimes
freeze_rules:
  - {name: no-status}
  - {status: 99}
  - {status: 600, object: account}
  - {status: 429, period: 10y}
  - {status: 429, period: 0s}
  - {status: 429, period: 367d}
  - {status: 429, header_value: x}
  - {status: 429, header: "bad header"}
  - {status: 429, body_contains: ""}
  - {status: 429, name: "has space"}
  - {status: 429, duration: 5}
  - {name: dup, status: 500}
  - {name: dup, status: 502}
  - just-a-string
)";
  std::string const period_choices =
      " (expected a duration such as 90s, 15m, 2h or 1d, up to 366d, or one of today, week, "
      "month, forever, reset)";
  EXPECT_EQ(issuesOf(yaml),
            (Lines{"default_freeze_rules: expected true or false",
                   "freeze_rules[0].status: required field is missing",
                   "freeze_rules[1].status: must be from 100 to 599",
                   "freeze_rules[2].status: must be from 100 to 599",
                   "freeze_rules[2].object: unknown object \"account\" (expected key, key+model, "
                   "channel, channel+model)",
                   "freeze_rules[3].period: unknown period \"10y\"" + period_choices,
                   "freeze_rules[4].period: unknown period \"0s\"" + period_choices,
                   "freeze_rules[5].period: unknown period \"367d\"" + period_choices,
                   "freeze_rules[6].header_value: needs header (the header whose value to match)",
                   "freeze_rules[7].header: not an HTTP header name",
                   "freeze_rules[8].body_contains: must not be empty",
                   "freeze_rules[9].name: must be 1 to 64 letters, digits, '.', '_' or '-'",
                   "freeze_rules[10].duration: unknown key (expected one of name, status, "
                   "body_contains, header, header_value, object, period)",
                   "freeze_rules[12].name: duplicate freeze rule name \"dup\" (also "
                   "freeze_rules[11])",
                   "freeze_rules[13]: expected a mapping, got a scalar"}));
}

TEST(FreezeRules, ADefaultRuleNameIsTakenWhileDefaultsAreOn) {
  EXPECT_EQ(issuesOf(std::string(kChannels) + "freeze_rules: [{name: forbidden, status: 403}]\n"),
            (Lines{"freeze_rules[0].name: \"forbidden\" is the name of a default freeze rule "
                   "(choose another, or set default_freeze_rules: false)"}));
}

TEST(FreezeRules, DurationParsing) {
  using detail::parseFreezeDuration;
  EXPECT_EQ(parseFreezeDuration("90s"), Millis(90'000));
  EXPECT_EQ(parseFreezeDuration("15m"), Millis(900'000));
  EXPECT_EQ(parseFreezeDuration("2h"), Millis(7'200'000));
  EXPECT_EQ(parseFreezeDuration("1d"), Millis(86'400'000));
  EXPECT_FALSE(parseFreezeDuration("s"));
  EXPECT_FALSE(parseFreezeDuration("10"));
  EXPECT_FALSE(parseFreezeDuration("-5m"));
  EXPECT_FALSE(parseFreezeDuration("1.5h"));
  EXPECT_FALSE(parseFreezeDuration("5ms"));
  EXPECT_FALSE(parseFreezeDuration("99999999999999999999d"));
}

// --- retry ----------------------------------------------------------------------------------

TEST(Retry, DefaultsAndOverrides) {
  auto defaults = loaded(kChannels);
  ASSERT_TRUE(defaults);
  EXPECT_EQ(defaults->retry.max_attempts, 8);
  EXPECT_EQ(defaults->retry.deadline, Millis(300'000));
  EXPECT_EQ(defaults->retry.max_key_pause, Millis(3'600'000));
  auto custom = loaded(std::string(kChannels) +
                       "retry: {max_attempts: 3, deadline_ms: 45000, max_key_pause_ms: 120000}\n");
  ASSERT_TRUE(custom);
  EXPECT_EQ(custom->retry.max_attempts, 3);
  EXPECT_EQ(custom->retry.deadline, Millis(45'000));
  EXPECT_EQ(custom->retry.max_key_pause, Millis(120'000));
}

TEST(Retry, Errors) {
  EXPECT_EQ(issuesOf(std::string(kChannels) +
                     "retry: {max_attempts: 0, deadline_ms: 86400001, backoff: 1, "
                     "max_key_pause_ms: 0}\n"),
            (Lines{"retry.backoff: unknown key (expected one of max_attempts, deadline_ms, "
                   "max_key_pause_ms)",
                   "retry.max_attempts: must be from 1 to 100",
                   "retry.deadline_ms: must be from 1 to 86400000",
                   "retry.max_key_pause_ms: must be from 1 to 86400000"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "retry: {max_key_pause_ms: 86400001}\n"),
            (Lines{"retry.max_key_pause_ms: must be from 1 to 86400000"}));
  EXPECT_EQ(issuesOf(std::string(kChannels) + "retry: 3\n"),
            (Lines{"retry: expected a mapping, got a scalar"}));
}

TEST(Racing, OffByDefault) {
  auto defaults = loaded(kChannels);
  ASSERT_TRUE(defaults);
  EXPECT_FALSE(defaults->racing.enabled);
  EXPECT_EQ(defaults->racing.cost_preference, CostPreference::Balanced);
  EXPECT_EQ(defaults->racing.max_shadows_in_flight, 12);
  EXPECT_DOUBLE_EQ(defaults->racing.hedge_budget, 0.10);
  EXPECT_FALSE(defaults->gateway_keys[0].cost_preference);
  EXPECT_FALSE(defaults->channels[0].racing_enabled);
}

TEST(Racing, TheGlobalSettingsAChannelsSwitchAndAKeysPreference) {
  auto settings = loaded(R"(gateway_keys:
  - {name: a, key: gw-secret, cost_preference: quality_first}
  - {name: b, key: gw-other}
channels:
  - {name: oa, protocol: openai-chat, base_url: "https://o.example", keys: [k1], models: [gpt-4o], racing: {enabled: false}}
  - {name: an, protocol: anthropic, base_url: "https://a.example", keys: [k2], models: [claude-sonnet-4-5], racing: {enabled: true}}
  - {name: gm, protocol: gemini, base_url: "https://g.example", keys: [k3], models: [gemini-2.5-pro]}
racing: {enabled: false, cost_preference: cost_first, max_shadows_in_flight: 4, hedge_budget: 0.25}
)");
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->racing.enabled);
  EXPECT_EQ(settings->racing.cost_preference, CostPreference::CostFirst);
  EXPECT_EQ(settings->racing.max_shadows_in_flight, 4);
  EXPECT_DOUBLE_EQ(settings->racing.hedge_budget, 0.25);
  EXPECT_EQ(settings->gateway_keys[0].cost_preference, CostPreference::QualityFirst);
  EXPECT_FALSE(settings->gateway_keys[1].cost_preference);
  EXPECT_EQ(settings->channels[0].racing_enabled, false);
  EXPECT_EQ(settings->channels[1].racing_enabled, true);
  EXPECT_FALSE(settings->channels[2].racing_enabled);
}

TEST(Racing, TheSwitchTurnsRacingOn) {
  auto settings = loaded(std::string(kChannels) + "racing: {enabled: true}\n");
  ASSERT_TRUE(settings);
  EXPECT_TRUE(settings->racing.enabled);
}

TEST(Racing, Errors) {
  EXPECT_EQ(issuesOf(std::string(kChannels) +
                     "racing: {enabled: maybe, cost_preference: cheapest, "
                     "max_shadows_in_flight: -1, hedge_budget: 1.5, shadows: 2}\n"),
            (Lines{"racing.shadows: unknown key (expected one of enabled, cost_preference, "
                   "max_shadows_in_flight, hedge_budget)",
                   "racing.enabled: expected true or false",
                   "racing.cost_preference: unknown cost preference \"cheapest\" (expected "
                   "quality_first, balanced, cost_first)",
                   "racing.max_shadows_in_flight: must be from 0 to 10000",
                   "racing.hedge_budget: must be from 0 to 1"}));
  EXPECT_EQ(issuesOf(R"(gateway_keys: [{name: a, key: gw-secret, cost_preference: fast}]
channels:
  - {name: oa, protocol: openai-chat, base_url: "https://o.example", keys: [k1], models: [gpt-4o], racing: {on: true}}
)"),
            (Lines{"gateway_keys[0].cost_preference: unknown cost preference \"fast\" (expected "
                   "quality_first, balanced, cost_first)",
                   "channels[0].racing.on: unknown key (expected one of enabled)"}));
}

// --- all at once ----------------------------------------------------------------------------

TEST(RoutingConfig, EveryProblemIsReportedInOnePass) {
  std::string yaml = std::string(kChannels) + R"(admin_token: gw-secret
model_groups: {g: [ghost]}
fallbacks: {gpt-4o: [gpt-4o]}
freeze_rules: [{status: 1}]
retry: {max_attempts: 101}
)";
  EXPECT_EQ(issuesOf(yaml).size(), 5u);
}

}  // namespace
}  // namespace llmux::config

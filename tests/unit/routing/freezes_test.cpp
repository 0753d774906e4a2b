#include "routing/freezes.h"

#include <gtest/gtest.h>

#include <map>

namespace llmux::routing {
namespace {

using config::FreezeObject;
using config::FreezePeriod;
using config::FreezeRule;
using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;

// ManualTimeSource starts at 1,700,000,000 s: Tuesday 2023-11-14 22:13:20 UTC.
constexpr long long kStart = 1'700'000'000;

WallTime at(long long unix_seconds) {
  return WallTime(std::chrono::duration_cast<WallClock::duration>(seconds(unix_seconds)));
}

HeaderList headers(std::initializer_list<std::pair<std::string_view, std::string_view>> fields) {
  HeaderList list;
  for (auto const& [name, value] : fields) list.add(name, value);
  return list;
}

FreezeRule rule(std::string name, int status, FreezeObject object, FreezePeriod period,
                Millis duration = Millis(0)) {
  FreezeRule r;
  r.name = std::move(name);
  r.status = status;
  r.object = object;
  r.period = period;
  r.duration = duration;
  return r;
}

FreezeTarget target(std::string channel = "openai", std::string key_id = "k1",
                    std::string model = "gpt-4o") {
  return FreezeTarget{channel, key_id, channel + "#0", model};
}

/// Records what the table asks of its persistence, in order.
class FakePersistence final : public FreezePersistence {
 public:
  std::vector<Freeze> loadFreezes() override {
    std::vector<Freeze> out;
    for (auto const& [id, f] : rows) out.push_back(f);
    return out;
  }
  void saveFreeze(Freeze const& freeze) override {
    ++saves;
    rows[freeze.id] = freeze;
    ops.push_back("save " + freeze.id);
  }
  void removeFreeze(std::string const& id) override {
    ++removes;
    rows.erase(id);
    ops.push_back("remove " + id);
  }
  std::uint64_t failedWrites() const override { return failed; }

  std::map<std::string, Freeze> rows;
  std::vector<std::string> ops;
  int saves = 0;
  int removes = 0;
  std::uint64_t failed = 0;
};

// --- periods ------------------------------------------------------------------------------------

TEST(FreezeEnd, EveryPeriodEndsAtItsExactInstant) {
  ManualTimeSource clock;
  WallTime now = clock.wallNow();
  ASSERT_EQ(now, at(kStart));
  EXPECT_EQ(freezeEnd(FreezePeriod::Fixed, now, milliseconds(90'000), std::nullopt),
            at(kStart + 90));
  EXPECT_EQ(freezeEnd(FreezePeriod::Today, now, Millis(0), std::nullopt),
            at(1'700'006'400));  // Wed 2023-11-15 00:00 UTC
  EXPECT_EQ(freezeEnd(FreezePeriod::Week, now, Millis(0), std::nullopt),
            at(1'700'438'400));  // Mon 2023-11-20 00:00 UTC
  EXPECT_EQ(freezeEnd(FreezePeriod::Month, now, Millis(0), std::nullopt),
            at(1'701'388'800));  // Fri 2023-12-01 00:00 UTC
  EXPECT_EQ(freezeEnd(FreezePeriod::Forever, now, Millis(0), std::nullopt), std::nullopt);
  EXPECT_EQ(freezeEnd(FreezePeriod::UpstreamReset, now, Millis(0), at(kStart + 3600)),
            at(kStart + 3600));
  // No reset, or one already past: the end of the day.
  EXPECT_EQ(freezeEnd(FreezePeriod::UpstreamReset, now, Millis(0), std::nullopt),
            at(1'700'006'400));
  EXPECT_EQ(freezeEnd(FreezePeriod::UpstreamReset, now, Millis(0), at(kStart - 1)),
            at(1'700'006'400));
}

TEST(FreezeEnd, WeekAndMonthEdges) {
  // On a Monday the week ends on the next Monday, not today.
  WallTime monday = at(1'700'438'400 + 3600);  // Mon 2023-11-20 01:00
  EXPECT_EQ(freezeEnd(FreezePeriod::Week, monday, Millis(0), std::nullopt), at(1'701'043'200));
  // Sunday 23:59:59 ends at the next midnight, a Monday.
  WallTime sunday = at(1'700'438'400 - 1);
  EXPECT_EQ(freezeEnd(FreezePeriod::Week, sunday, Millis(0), std::nullopt), at(1'700'438'400));
  // December rolls over into January of the next year.
  WallTime december = at(1'702'000'000);  // 2023-12-08
  EXPECT_EQ(freezeEnd(FreezePeriod::Month, december, Millis(0), std::nullopt),
            at(1'704'067'200));  // 2024-01-01
  // Exactly midnight: today ends at the next midnight.
  EXPECT_EQ(freezeEnd(FreezePeriod::Today, at(1'700'006'400), Millis(0), std::nullopt),
            at(1'700'092'800));
}

// --- reset times --------------------------------------------------------------------------------

TEST(UpstreamReset, RetryAfterSecondsAndHttpDate) {
  WallTime now = at(kStart);
  EXPECT_EQ(upstreamResetTime(headers({{"Retry-After", "120"}}), "", now), at(kStart + 120));
  EXPECT_EQ(upstreamResetTime(headers({{"retry-after-ms", "1500"}}), "", now),
            now + milliseconds(1500));
  // 2023-11-15 00:00:00 GMT
  EXPECT_EQ(upstreamResetTime(headers({{"retry-after", "Wed, 15 Nov 2023 00:00:00 GMT"}}), "", now),
            at(1'700'006'400));
  EXPECT_EQ(upstreamResetTime(headers({{"retry-after", "soon"}}), "", now), std::nullopt);
  EXPECT_EQ(upstreamResetTime({}, "", now), std::nullopt);
}

TEST(UpstreamReset, OpenAiDurations) {
  WallTime now = at(kStart);
  struct Case {
    std::string_view value;
    Millis wait;
  };
  Case const cases[] = {
      {"6m0s", milliseconds(360'000)}, {"1s", milliseconds(1000)},
      {"20ms", milliseconds(20)},      {"1h2m3s", milliseconds(3'723'000)},
      {"0.5s", milliseconds(500)},     {"2.4s", milliseconds(2400)},
  };
  for (auto const& c : cases) {
    EXPECT_EQ(upstreamResetTime(headers({{"x-ratelimit-reset-requests", c.value}}), "", now),
              now + c.wait)
        << c.value;
  }
  EXPECT_EQ(upstreamResetTime(headers({{"x-ratelimit-reset-tokens", "5x"}}), "", now), std::nullopt);
}

TEST(UpstreamReset, AnthropicRfc3339) {
  WallTime now = at(kStart);
  for (std::string_view name :
       {"anthropic-ratelimit-requests-reset", "anthropic-ratelimit-tokens-reset",
        "anthropic-ratelimit-input-tokens-reset", "anthropic-ratelimit-output-tokens-reset"}) {
    EXPECT_EQ(upstreamResetTime(headers({{name, "2023-11-14T22:30:00Z"}}), "", now),
              at(kStart + 1000))
        << name;
  }
  EXPECT_EQ(upstreamResetTime(headers({{"anthropic-ratelimit-tokens-reset",
                                        "2023-11-15T00:30:00.250+02:00"}}),
                              "", now),
            at(kStart + 1000) + milliseconds(250));
}

TEST(UpstreamReset, GeminiRetryInfoInTheBody) {
  WallTime now = at(kStart);
  constexpr char kBody[] =
      R"({"error":{"code":429,"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo",)"
      R"("retryDelay": "34s"}]}})";
  EXPECT_EQ(upstreamResetTime({}, kBody, now), at(kStart + 34));
  EXPECT_EQ(upstreamResetTime({}, R"({"retryDelay":"1.5s"})", now), now + milliseconds(1500));
}

TEST(UpstreamReset, TheExhaustedLimitsResetElseTheLatest) {
  WallTime now = at(kStart);
  // Tokens are exhausted: their reset counts, not the later requests reset.
  auto tokens_out = headers({{"x-ratelimit-remaining-requests", "10"},
                             {"x-ratelimit-reset-requests", "1h"},
                             {"x-ratelimit-remaining-tokens", "0"},
                             {"x-ratelimit-reset-tokens", "30s"}});
  EXPECT_EQ(upstreamResetTime(tokens_out, "", now), at(kStart + 30));
  // Nothing says which: the latest of all.
  auto unknown = headers({{"x-ratelimit-reset-requests", "1h"}, {"x-ratelimit-reset-tokens", "30s"}});
  EXPECT_EQ(upstreamResetTime(unknown, "", now), at(kStart + 3600));
  // An explicit retry-after later than the limit's reset wins.
  auto both = headers({{"retry-after", "60"},
                       {"x-ratelimit-remaining-tokens", "0"},
                       {"x-ratelimit-reset-tokens", "30s"}});
  EXPECT_EQ(upstreamResetTime(both, "", now), at(kStart + 60));
}

// --- rules --------------------------------------------------------------------------------------

TEST(FreezeRules, StatusBodyAndHeaderConditions) {
  std::vector<FreezeRule> rules;
  rules.push_back(rule("quota", 429, FreezeObject::Key, FreezePeriod::UpstreamReset));
  rules.back().body_contains = "insufficient_quota";
  rules.push_back(rule("org-header", 429, FreezeObject::Channel, FreezePeriod::Fixed));
  rules.back().header = "X-Org-Limit";
  rules.back().header_value = "exceeded";
  rules.push_back(rule("any-header", 429, FreezeObject::Channel, FreezePeriod::Today));
  rules.back().header = "x-flag";
  rules.push_back(rule("forbidden", 403, FreezeObject::Key, FreezePeriod::Today));

  auto matched = [&](int status, HeaderList const& h, std::string_view body) -> std::string {
    auto const* r = matchFreezeRule(rules, status, h, body);
    return r ? r->name : "";
  };
  EXPECT_EQ(matched(403, {}, ""), "forbidden");
  EXPECT_EQ(matched(429, {}, R"({"error":{"code":"insufficient_quota"}})"), "quota");
  EXPECT_EQ(matched(429, {}, "rate limited"), "");
  EXPECT_EQ(matched(429, headers({{"x-org-limit", "limit exceeded today"}}), ""), "org-header");
  EXPECT_EQ(matched(429, headers({{"x-org-limit", "fine"}}), ""), "");
  EXPECT_EQ(matched(429, headers({{"X-FLAG", ""}}), ""), "any-header");
  EXPECT_EQ(matched(500, {}, "insufficient_quota"), "");

  EXPECT_TRUE(freezeRulesNeedBody(rules, 429));
  EXPECT_FALSE(freezeRulesNeedBody(rules, 403));
  EXPECT_FALSE(freezeRulesNeedBody(rules, 500));
}

// --- the table ----------------------------------------------------------------------------------

TEST(FreezeTable, EachObjectFreezesWhatItNames) {
  ManualTimeSource clock;
  FreezeTable table(clock);
  EXPECT_FALSE(table.frozen("openai", "k1", "gpt-4o"));

  table.apply(rule("key", 403, FreezeObject::Key, FreezePeriod::Today), target("a", "ka", "m1"),
              std::nullopt, "status 403");
  EXPECT_TRUE(table.frozen("a", "ka", "m1"));
  EXPECT_TRUE(table.frozen("a", "ka", "m2"));
  EXPECT_FALSE(table.frozen("a", "kb", "m1"));

  table.apply(rule("km", 429, FreezeObject::KeyModel, FreezePeriod::Today), target("b", "kb", "m1"),
              std::nullopt, "status 429");
  EXPECT_TRUE(table.frozen("b", "kb", "m1"));
  EXPECT_FALSE(table.frozen("b", "kb", "m2"));

  table.apply(rule("ch", 402, FreezeObject::Channel, FreezePeriod::Today), target("c", "kc", "m1"),
              std::nullopt, "status 402");
  EXPECT_TRUE(table.frozen("c", "any-key", "any-model"));
  EXPECT_FALSE(table.frozen("d", "kc", "m1"));  // the channel, not its key

  table.apply(rule("cm", 404, FreezeObject::ChannelModel, FreezePeriod::Today),
              target("d", "kd", "m1"), std::nullopt, "status 404");
  EXPECT_TRUE(table.frozen("d", "other-key", "m1"));
  EXPECT_FALSE(table.frozen("d", "kd", "m2"));

  auto freezes = table.list();
  ASSERT_EQ(freezes.size(), 4u);
  EXPECT_EQ(freezes[0].object, FreezeObject::Key);
  EXPECT_EQ(freezes[0].key_id, "ka");
  EXPECT_EQ(freezes[0].model, "");
  EXPECT_EQ(freezes[2].key_id, "");  // a channel object names no key
  EXPECT_EQ(freezes[2].key_label, "");
  EXPECT_EQ(freezes[3].model, "m1");
  EXPECT_EQ(freezes[3].rule, "cm");
  EXPECT_EQ(freezes[3].reason, "status 404");
  for (auto const& f : freezes) {
    EXPECT_TRUE(f.id.starts_with("frz_")) << f.id;
    EXPECT_EQ(f.id.size(), 20u);
    EXPECT_EQ(f.created, at(kStart));
  }
  std::array<std::size_t, 4> counts{};
  for (auto const& f : table.list()) ++counts[static_cast<std::size_t>(f.object)];
  EXPECT_EQ(counts, (std::array<std::size_t, 4>{1, 1, 1, 1}));
}

TEST(FreezeTable, ApplyExtendsButNeverShortens) {
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  Freeze first = table.apply(rule("week", 403, FreezeObject::Key, FreezePeriod::Week), target(),
                             std::nullopt, "first");
  EXPECT_EQ(first.until, at(1'700'438'400));

  // A shorter period for the same object changes nothing.
  Freeze same = table.apply(rule("day", 403, FreezeObject::Key, FreezePeriod::Today), target(),
                            std::nullopt, "second");
  EXPECT_EQ(same.id, first.id);
  EXPECT_EQ(same.until, first.until);
  EXPECT_EQ(same.reason, "first");
  EXPECT_EQ(store.saves, 1);

  // A longer one extends it, keeping the id.
  Freeze longer = table.apply(rule("month", 403, FreezeObject::Key, FreezePeriod::Month), target(),
                              std::nullopt, "third");
  EXPECT_EQ(longer.id, first.id);
  EXPECT_EQ(longer.until, at(1'701'388'800));
  EXPECT_EQ(longer.rule, "month");
  EXPECT_EQ(store.saves, 2);
  EXPECT_EQ(store.rows.at(first.id).until, at(1'701'388'800));

  // Forever outlasts everything; nothing shortens it afterwards.
  table.apply(rule("ever", 403, FreezeObject::Key, FreezePeriod::Forever), target(), std::nullopt,
              "fourth");
  Freeze after = table.apply(rule("month", 403, FreezeObject::Key, FreezePeriod::Month), target(),
                             std::nullopt, "fifth");
  EXPECT_EQ(after.until, std::nullopt);
  EXPECT_EQ(table.list().size(), 1u);

  // Another object of the same key is a freeze of its own.
  table.apply(rule("km", 403, FreezeObject::KeyModel, FreezePeriod::Today), target(), std::nullopt,
              "km");
  EXPECT_EQ(table.list().size(), 2u);
}

TEST(FreezeTable, ExpiredFreezesAreDroppedAndForgotten) {
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  table.apply(rule("fixed", 429, FreezeObject::Key, FreezePeriod::Fixed, milliseconds(60'000)),
              target(), std::nullopt, "fixed");
  table.apply(rule("reset", 429, FreezeObject::Channel, FreezePeriod::UpstreamReset), target(),
              at(kStart + 120), "reset");
  EXPECT_TRUE(table.frozen("openai", "k1", "gpt-4o"));
  EXPECT_EQ(store.rows.size(), 2u);

  clock.advance(seconds(60));  // the fixed freeze ends exactly now
  EXPECT_EQ(table.list().size(), 1u);
  EXPECT_EQ(store.rows.size(), 1u);
  EXPECT_EQ(table.frozen("openai", "k1", "gpt-4o")->rule, "reset");

  clock.advance(seconds(60));  // the upstream's reset time passed: nothing lingers
  EXPECT_FALSE(table.frozen("openai", "k1", "gpt-4o"));
  EXPECT_TRUE(store.rows.empty());
  EXPECT_EQ(store.removes, 2);
  EXPECT_TRUE(table.list().empty());

  // An expired freeze is not extended: a new one starts.
  table.apply(rule("fixed", 429, FreezeObject::Key, FreezePeriod::Fixed, milliseconds(1000)),
              target(), std::nullopt, "again");
  EXPECT_EQ(table.list().size(), 1u);
  // A zero-length freeze is nothing to keep.
  table.apply(rule("zero", 429, FreezeObject::Channel, FreezePeriod::Fixed), target("z"),
              std::nullopt, "zero");
  EXPECT_FALSE(table.frozen("z", "", ""));
  EXPECT_EQ(store.rows.size(), 1u);
}

TEST(FreezeTable, LiftAndLiftKey) {
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  Freeze key = table.apply(rule("k", 403, FreezeObject::Key, FreezePeriod::Forever), target(),
                           std::nullopt, "k");
  table.apply(rule("km", 403, FreezeObject::KeyModel, FreezePeriod::Today), target(), std::nullopt,
              "km");
  Freeze channel = table.apply(rule("c", 402, FreezeObject::Channel, FreezePeriod::Today),
                               target(), std::nullopt, "c");
  ASSERT_EQ(store.rows.size(), 3u);

  EXPECT_FALSE(table.lift("frz_unknown"));
  EXPECT_TRUE(table.lift(channel.id));
  EXPECT_FALSE(table.lift(channel.id));
  EXPECT_EQ(store.rows.count(channel.id), 0u);

  EXPECT_EQ(table.liftKey("k1"), 2u);  // both key objects
  EXPECT_EQ(store.rows.count(key.id), 0u);
  EXPECT_TRUE(store.rows.empty());
  EXPECT_FALSE(table.frozen("openai", "k1", "gpt-4o"));
  EXPECT_EQ(table.liftKey("k1"), 0u);
}

TEST(FreezeTable, AProbeLiftsEveryFreezeOfTheKeyButForeverOnes) {
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  table.apply(rule("forever", 403, FreezeObject::Key, FreezePeriod::Forever), target(),
              std::nullopt, "banned");
  Freeze today = table.apply(rule("today", 403, FreezeObject::KeyModel, FreezePeriod::Today),
                             target(), std::nullopt, "today");
  table.apply(rule("other", 403, FreezeObject::KeyModel, FreezePeriod::Today), target("openai", "k2"),
              std::nullopt, "other key");
  std::size_t kept = 0;
  auto lifted = table.liftKeyUnlessForever("k1", kept);
  ASSERT_EQ(lifted.size(), 1u);
  EXPECT_EQ(lifted[0].id, today.id);
  EXPECT_EQ(kept, 1u);
  EXPECT_EQ(store.rows.count(today.id), 0u);
  EXPECT_EQ(table.list().size(), 2u);  // the forever freeze and the other key's
  EXPECT_TRUE(table.frozen("openai", "k1", "gpt-4o"));
}

TEST(FreezeTable, LoadRestoresPersistedFreezesAndDropsExpiredOnes) {
  ManualTimeSource clock;
  FakePersistence store;
  Freeze live;
  live.id = "frz_live";
  live.object = FreezeObject::Channel;
  live.channel = "anthropic";
  live.created = at(kStart - 10);
  live.until = at(kStart + 100);
  Freeze stale = live;
  stale.id = "frz_stale";
  stale.channel = "gone";
  stale.until = at(kStart - 1);
  Freeze forever = live;
  forever.id = "frz_forever";
  forever.object = FreezeObject::Key;
  forever.key_id = "kx";
  forever.created = at(kStart - 20);
  forever.until = std::nullopt;
  store.rows = {{live.id, live}, {stale.id, stale}, {forever.id, forever}};

  FreezeTable table(clock, &store);
  table.load();
  auto freezes = table.list();
  ASSERT_EQ(freezes.size(), 2u);
  EXPECT_EQ(freezes[0].id, "frz_forever");  // oldest first
  EXPECT_EQ(freezes[1].id, "frz_live");
  EXPECT_EQ(store.rows.count("frz_stale"), 0u);
  EXPECT_TRUE(table.frozen("anthropic", "", "m"));
  EXPECT_TRUE(table.frozen("other", "kx", "m"));

  // Nothing expired at load: the restored freezes hold all the same.
  FreezeTable again(clock, &store);
  again.load();
  EXPECT_TRUE(again.frozen("anthropic", "", "m"));
  EXPECT_EQ(store.removes, 1);
}

TEST(FreezeTable, PersistenceFailuresAreThePersistencesCount) {
  // The table never waits for a write, so it never sees one fail: the persistence counts.
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  EXPECT_EQ(table.persistenceFailures(), 0u);
  store.failed = 3;
  EXPECT_EQ(table.persistenceFailures(), 3u);
  EXPECT_EQ(FreezeTable(clock).persistenceFailures(), 0u);
}

TEST(FreezeTable, WritesReachThePersistenceInTheOrderOfTheChanges) {
  // Every change, whichever call makes it (apply, lift, liftKey, or frozen and list meeting an
  // expired freeze), is handed over at once, in order: the writer replays them as they came.
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  Freeze fixed = table.apply(
      rule("fixed", 429, FreezeObject::Channel, FreezePeriod::Fixed, milliseconds(1000)),
      target("a"), std::nullopt, "fixed");
  Freeze key = table.apply(rule("k", 403, FreezeObject::Key, FreezePeriod::Today), target("b"),
                           std::nullopt, "k");
  Freeze longer = table.apply(rule("k", 403, FreezeObject::Key, FreezePeriod::Month), target("b"),
                              std::nullopt, "k2");
  ASSERT_EQ(longer.id, key.id);
  Freeze other = table.apply(rule("c", 402, FreezeObject::Channel, FreezePeriod::Forever),
                             target("c"), std::nullopt, "c");
  clock.advance(seconds(1));
  EXPECT_FALSE(table.frozen("a", "", "m"));  // the expiry is noticed here...
  EXPECT_EQ(table.list().size(), 2u);        // ...and only once
  EXPECT_TRUE(table.lift(other.id));
  EXPECT_EQ(table.liftKey("k1"), 1u);
  EXPECT_EQ(store.ops,
            (std::vector<std::string>{"save " + fixed.id, "save " + key.id, "save " + key.id,
                                      "save " + other.id, "remove " + fixed.id,
                                      "remove " + other.id, "remove " + key.id}));
}

}  // namespace
}  // namespace llmux::routing

namespace llmux::routing {
namespace {

/// A freeze another replica stored.
Freeze storedFreeze(std::string id, std::string channel, std::optional<WallTime> until) {
  Freeze f;
  f.id = std::move(id);
  f.object = config::FreezeObject::Channel;
  f.period = config::FreezePeriod::Today;
  f.channel = std::move(channel);
  f.created = WallTime(std::chrono::seconds(1'700'000'000 - 5));
  f.until = until;
  f.rule = "other-replica";
  return f;
}

TEST(FreezeTable, AdoptTakesInWhatOtherReplicasFreezeExtendAndLift) {
  ManualTimeSource clock;
  FakePersistence store;
  FreezeTable table(clock, &store);
  WallTime const soon = clock.wallNow() + std::chrono::minutes(5);
  WallTime const later = clock.wallNow() + std::chrono::minutes(50);

  // Made elsewhere: added, and nothing written back.
  EXPECT_EQ(table.adopt({storedFreeze("frz_a", "relay-a", soon)}), 1u);
  EXPECT_TRUE(table.frozen("relay-a", "", "m"));
  EXPECT_EQ(store.saves, 0);
  // Extended elsewhere: extended here; a shorter end is never taken.
  EXPECT_EQ(table.adopt({storedFreeze("frz_a", "relay-a", later)}), 1u);
  EXPECT_EQ(table.list()[0].until, later);
  EXPECT_EQ(table.adopt({storedFreeze("frz_a", "relay-a", soon)}), 0u);
  EXPECT_EQ(table.list()[0].until, later);

  // A freeze of this replica's whose write is still queued is not in the store yet: kept.
  Freeze mine = table.apply(
      [] {
        config::FreezeRule r;
        r.name = "mine";
        r.status = 403;
        r.object = config::FreezeObject::Channel;
        r.period = config::FreezePeriod::Today;
        return r;
      }(),
      FreezeTarget{"relay-b", "", "", ""}, std::nullopt, "403");
  EXPECT_EQ(table.adopt({storedFreeze("frz_a", "relay-a", later)}), 0u);
  EXPECT_TRUE(table.frozen("relay-b", "", "m"));

  // Lifted elsewhere (gone from the store after being seen there): lifted here.
  EXPECT_EQ(table.adopt({storedFreeze("frz_a", "relay-a", later), mine}), 0u);
  EXPECT_EQ(table.adopt({mine}), 1u);
  EXPECT_FALSE(table.frozen("relay-a", "", "m"));
  EXPECT_TRUE(table.frozen("relay-b", "", "m"));

  // Lifted here while the store still shows it (the removal is on its way): not taken back.
  EXPECT_TRUE(table.lift(mine.id));
  EXPECT_EQ(table.adopt({mine}), 0u);
  EXPECT_FALSE(table.frozen("relay-b", "", "m"));
  EXPECT_EQ(table.adopt({}), 0u);
  // Once the store no longer has it, a new freeze under the same id would count again.
  EXPECT_EQ(table.adopt({storedFreeze(mine.id, "relay-b", later)}), 1u);
}

TEST(FreezeTable, LiftingAFreezeLiftsItsTwinsFromOtherReplicas) {
  // Two replicas froze the same channel at once, each under its own id.
  ManualTimeSource clock;
  FreezeTable table(clock);
  WallTime const until = clock.wallNow() + std::chrono::minutes(5);
  table.adopt({storedFreeze("frz_1", "relay-a", until), storedFreeze("frz_2", "relay-a", until)});
  ASSERT_EQ(table.list().size(), 2u);
  EXPECT_TRUE(table.lift("frz_2"));
  EXPECT_TRUE(table.list().empty());
  EXPECT_FALSE(table.frozen("relay-a", "", "m"));
}

TEST(FreezeTable, ASnapshotReadBeforeASaveDoesNotTakeItForLifted) {
  ManualTimeSource clock;
  FreezeTable table(clock);
  table.adopt({});
  config::FreezeRule rule;
  rule.name = "banned";
  rule.status = 403;
  Freeze mine = table.apply(rule, FreezeTarget{"relay", "key-1", "relay#0", ""}, std::nullopt, "403");
  // A look begins, this replica's save lands and is noted, then the look's snapshot arrives
  // without it: the read could not see it yet, so it is kept.
  std::uint64_t const read_mark = table.storeMark();
  table.noteStored(mine.id);
  EXPECT_EQ(table.adopt({}, read_mark), 0u);
  EXPECT_TRUE(table.frozen("relay", "key-1", "m"));
  // The next look sees it; one after that without it means it was lifted elsewhere.
  EXPECT_EQ(table.adopt({mine}, table.storeMark()), 0u);
  EXPECT_EQ(table.adopt({}, table.storeMark()), 1u);
  EXPECT_FALSE(table.frozen("relay", "key-1", "m"));
}

}  // namespace
}  // namespace llmux::routing

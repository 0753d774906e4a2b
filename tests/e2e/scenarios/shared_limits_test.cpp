// Shared limits end to end (docs/resilience.md, "Several replicas: Redis"): several llmux
// processes in front of one mock provider share a gateway key's rpm window, an upstream token
// bucket and a gateway key's concurrency slots through one real redis-server on loopback; a Redis
// that stops answering costs one timeout, then the gateway serves on its own limits for the
// cooldown and goes back to Redis. Each replica has its own LLMUX_HOME: they share only Redis.
//
// A missing redis-server fails these tests (never a skip).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/scenarios/resilience_support.h"
#include "e2e/support/e2e_test.h"
#include "support/redis_command.h"
#include "support/redis_server.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace resilience;
using test_support::RedisServer;
using test_support::RedisValue;
using Labels = std::vector<std::pair<std::string, std::string>>;

/// The gateway key's name: what Redis keys and metric labels carry (never the secret).
constexpr char kKeyName[] = "team";
/// Where llmux writes in Redis (docs/configuration.md, `redis.prefix` default).
constexpr char kPrefix[] = "llmux:";

/// The median of `values` (which it sorts).
double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

class SharedLimits : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    if (IsSkipped()) return;
    std::string error;
    redis_ = RedisServer::start({}, error);
    ASSERT_NE(redis_, nullptr) << error;
  }

  /// `redis:` pointing at this test's server. The call timeout is raised from the default 50 ms
  /// where a test is about sharing, not about a slow Redis: on a loaded test machine a process
  /// descheduled for 50 ms would otherwise fall back to local limits for 10 s and let the
  /// replicas multiply the limit, which is the degraded mode, not the one under test. Those
  /// tests also check that no call fell back.
  RedisSpec redisSpec(std::optional<int> timeout_ms = 1'000) const {
    return RedisSpec{.url = "redis://127.0.0.1:" + std::to_string(redis_->port()),
                     .timeout_ms = timeout_ms};
  }

  /// The gateway key `kKeyName` (sequential: one channel, no scoring) with `limits`, one channel
  /// on `mock`, and Redis.
  GatewayConfig config(Server const& mock, ClientLimitsSpec limits) const {
    GatewayConfig c;
    c.gateway_keys = {{kKeyName, kGatewayKey, "sequential", limits}};
    c.channels = {channel("only", Protocol::OpenAiChat, mock.baseUrl(), {"k-only"})};
    c.redis = redisSpec();
    return c;
  }

  /// `count` gateways running `config`, each with its own LLMUX_HOME (replicas on different
  /// machines share nothing but Redis). Empty, after a test failure, when one does not start.
  std::vector<Server> startReplicas(GatewayConfig const& config, std::size_t count) {
    std::string path = writeTempFile(toYaml(config));
    std::vector<Server> replicas;
    for (std::size_t i = 0; i < count; ++i) {
      ChildOptions options = gatewayOptions(binary(), path);
      std::string home = temp().path() + "/replica-" + std::to_string(i);
      std::filesystem::create_directories(home);
      options.env.emplace_back("LLMUX_HOME", home);
      auto server = startServer(std::move(options));
      EXPECT_TRUE(server.ok()) << "replica " << i << ": " << server.error().message;
      if (!server.ok()) return {};
      replicas.push_back(*server);
    }
    return replicas;
  }

  /// One metric of one gateway, 0 when absent (a test failure when /metrics does not answer).
  static double metric(std::uint16_t port, std::string_view name, Labels const& labels = {}) {
    auto text = fetchMetrics(port);
    EXPECT_TRUE(text.ok()) << text.error().message;
    return text.ok() ? metricValue(*text, name, labels).value_or(0) : 0;
  }

  /// A Redis command's reply (a test failure, and a Null value, when the server does not answer).
  RedisValue redis(std::vector<std::string> const& args) const {
    auto reply = test_support::redisCommand(redis_->port(), args);
    EXPECT_TRUE(reply.ok()) << args.front() << ": " << reply.error().message;
    return reply.ok() ? *reply : RedisValue{};
  }

  /// An integer reply (ZCARD, EXISTS...), -1 when the reply is not one.
  long long redisInteger(std::vector<std::string> const& args) const {
    RedisValue value = redis(args);
    EXPECT_EQ(value.kind, RedisValue::Kind::Integer) << args.front() << " answered " << value.text;
    return value.kind == RedisValue::Kind::Integer ? value.integer : -1;
  }

  /// Admissions in the gateway key's sliding rpm window in Redis (redis_limits.h: the zset
  /// `client:<key>:rpm`).
  long long rpmWindowSize() const {
    return redisInteger({"ZCARD", std::string(kPrefix) + "client:" + kKeyName + ":rpm"});
  }

  std::unique_ptr<RedisServer> redis_;
};

/// Checks that a refused request is the limit's 429 in `protocol`'s shape with a retry-after of
/// 1..60 s; "" when it is, else what is wrong.
std::string checkRefusal(Protocol protocol, Response const& response) {
  if (response.status() != 429) {
    return "status " + std::to_string(response.status()) + ": " + response.body;
  }
  auto seconds = retryAfterSeconds(response);
  if (!seconds || *seconds < 1 || *seconds > 60) {
    return "429 with retry-after '" + std::string(response.header("retry-after")) + "'";
  }
  auto message = errorMessageOf(protocol, 429, response.body);
  if (!message.ok())
    return "429 not in the " + shortName(protocol) + " shape: " + message.error().message;
  return {};
}

// ---------------------------------------------------------------------------------------------
// 1. Three replicas share one gateway key's 600 RPM: a minute of 50 requests per second spread
// over them lets 600 through, not 1,800.

/// Every upstream request the mock journaled, by sequence number. The journal keeps only its
/// newest 256 entries, so it is read while the load runs and merged; contiguous sequence numbers
/// from 1 prove nothing was missed.
class JournalCollector {
 public:
  explicit JournalCollector(std::uint16_t mock_port) : port_(mock_port) {}

  /// Reads the journal once and merges it; false when it could not be read.
  bool collect() {
    auto journal = fetchJournal(port_);
    if (!journal.ok()) return false;
    std::lock_guard lock(mutex_);
    for (auto const& entry : *journal) statuses_[entry.seq] = entry.status;
    return true;
  }

  std::map<std::uint64_t, int> statuses() const {
    std::lock_guard lock(mutex_);
    return statuses_;
  }

 private:
  std::uint16_t port_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, int> statuses_;
};

/// What the client saw of one request of the load.
struct LoadResult {
  std::size_t gateway = 0;
  int status = 0;
  std::string problem;  ///< why it is neither a 200 nor a proper 429, "" otherwise
  MonoTime sent;
};

TEST_F(SharedLimits, ThreeReplicasShareOneGatewayKeyRpmLimit) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  constexpr long long kRpm = 600;
  auto replicas = startReplicas(config(*mock, {.rpm = kRpm}), 3);
  ASSERT_EQ(replicas.size(), 3u);

  // 3,000 requests at 50 per second (one every 20 ms): one minute, five times the limit, round
  // robin over the replicas, each protocol in turn (4 protocols over 3 gateways: every pairing).
  constexpr std::size_t kRequests = 3'000;
  constexpr Millis kInterval{20};
  std::vector<LoadResult> results(kRequests);
  JournalCollector collector(mock->port);
  std::atomic<bool> done{false};
  std::thread reader([&] {
    // 10 upstream requests per second at most fill 256 entries in 25 s; every 2 s is plenty.
    while (!done) {
      collector.collect();
      for (int i = 0; i < 20 && !done; ++i) std::this_thread::sleep_for(Millis(100));
    }
  });
  MonoTime start = MonoClock::now();
  runPaced(kRequests, 8, kInterval, [&](std::size_t i) {
    LoadResult& result = results[i];
    result.gateway = i % replicas.size();
    result.sent = MonoClock::now();
    Protocol protocol = kAllProtocols[i % std::size(kAllProtocols)];
    auto response = callGateway(replicas[result.gateway].port, clientCall(protocol, false));
    if (!response.ok()) {
      result.problem = "no answer: " + response.error().message;
      return false;
    }
    result.status = response->status();
    if (result.status != 200) result.problem = checkRefusal(protocol, *response);
    return result.status == 200;
  });
  MonoTime end = MonoClock::now();
  done = true;
  reader.join();
  ASSERT_TRUE(collector.collect()) << "the mock's journal cannot be read";

  // The load must have been what it claims: all of it inside one minute of the first request.
  double last_sent_ms = millisBetween(start, results.back().sent);
  double worst_lag_ms = 0;
  for (std::size_t i = 0; i < kRequests; ++i) {
    worst_lag_ms = std::max(worst_lag_ms, millisBetween(start, results[i].sent) -
                                              static_cast<double>(i * kInterval.count()));
  }
  EXPECT_LT(millisBetween(results.front().sent, results.back().sent), 60'000)
      << "pacing did not hold: the load spilled past the minute (worst lag " << worst_lag_ms
      << " ms)";

  std::size_t ok = 0, refused = 0;
  std::size_t passed_by[3] = {0, 0, 0};
  std::size_t problems = 0;
  for (std::size_t i = 0; i < kRequests; ++i) {
    auto const& r = results[i];
    if (r.status == 200) {
      ++ok;
      ++passed_by[r.gateway];
    } else if (r.problem.empty()) {
      ++refused;
    } else if (++problems <= 10) {
      ADD_FAILURE() << "request " << i << " via replica " << r.gateway << ": " << r.problem;
    }
  }
  EXPECT_EQ(problems, 0u) << "requests answered neither 200 nor a proper 429";

  auto statuses = collector.statuses();
  std::size_t upstream = statuses.size();
  ASSERT_FALSE(statuses.empty());
  EXPECT_EQ(statuses.begin()->first, 1u) << "the journal lost its first entries";
  EXPECT_EQ(statuses.rbegin()->first, upstream) << "the journal lost entries between two reads";
  std::size_t upstream_ok = 0;
  for (auto const& [seq, status] : statuses) upstream_ok += status == 200 ? 1 : 0;

  double rejections = 0, fallbacks = 0;
  for (auto const& replica : replicas) {
    rejections +=
        metric(replica.port, "llmux_limit_rejections_total", {{"key", kKeyName}, {"limit", "rpm"}});
    fallbacks += metric(replica.port, "llmux_redis_fallbacks_total");
  }
  std::printf(
      "[ shared rpm ] %zu requests in %.1f s (last sent at +%.0f ms, worst lag %.0f ms): "
      "upstream %zu (replicas %zu / %zu / %zu), 429 %zu, other %zu; rejections counted %.0f, "
      "redis fallbacks %.0f; rpm window in redis %lld\n",
      kRequests, millisBetween(start, end) / 1000, last_sent_ms, worst_lag_ms, upstream,
      passed_by[0], passed_by[1], passed_by[2], refused, problems, rejections, fallbacks,
      rpmWindowSize());

  // 600 ±1 % reached the upstream (per-replica windows would have let 1,800 through).
  EXPECT_GE(upstream, 594u);
  EXPECT_LE(upstream, 606u);
  EXPECT_EQ(upstream_ok, upstream) << "the mock answered something other than 200";
  EXPECT_EQ(ok, upstream) << "each 200 is one upstream request, and nothing else reached it";
  EXPECT_EQ(ok + refused, kRequests) << "every request is answered 200 or 429";
  EXPECT_EQ(rejections, static_cast<double>(refused));
  EXPECT_EQ(fallbacks, 0) << "a Redis call fell back to local limits during the load";
  // The window is shared, not taken by one replica: the load is round robin, so each replica let
  // through about a third of it.
  for (std::size_t g = 0; g < 3; ++g) {
    EXPECT_GE(passed_by[g], 100u) << "replica " << g << " let through " << passed_by[g];
  }
}

// ---------------------------------------------------------------------------------------------
// 2. An upstream token bucket of 30 (rpm: 30, 0.5 tokens a second) shared by three replicas: 60
// requests at once get 30 through at once, the rest wait for refills — not 20 per replica.

/// Where the bucket comes from: a channel key's `rpm` or the channel's `model_limits`.
enum class BucketSource { ChannelKey, ModelLimits };

class SharedBucket : public SharedLimits, public ::testing::WithParamInterface<BucketSource> {};

TEST_P(SharedBucket, ThreeReplicasDrawFromOneUpstreamBucket) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig c = config(*mock, {});
  c.gateway_keys.front().limits.reset();
  ChannelSpec& only = c.channels.front();
  std::string bucket_pattern;
  if (GetParam() == BucketSource::ChannelKey) {
    only.keys.clear();
    only.extra_yaml = "keys: [{key: \"k-only\", rpm: 30}]\n";
    bucket_pattern = std::string(kPrefix) + "bucket:key:only/*:rpm";
  } else {
    only.model_limits = {{kModel, BucketSpec{.rpm = 30}}};
    bucket_pattern = std::string(kPrefix) + "bucket:model:only/" + kModel + ":rpm";
  }
  c.buckets = BucketsSpec{.max_wait_ms = 20'000};
  auto replicas = startReplicas(c, 3);
  ASSERT_EQ(replicas.size(), 3u);

  // 20 requests at each replica at once, each on its own connection.
  constexpr std::size_t kPerReplica = 20;
  std::size_t const total = kPerReplica * replicas.size();
  std::vector<Result<Response>> answers(total, makeError(ErrorKind::Internal, "not answered"));
  std::atomic<bool> go{false};
  std::vector<std::thread> clients;
  for (std::size_t i = 0; i < total; ++i) {
    clients.emplace_back([&, i] {
      while (!go) std::this_thread::yield();
      answers[i] = callGateway(replicas[i % replicas.size()].port,
                               clientCall(Protocol::OpenAiChat, false), {}, Millis(30'000));
    });
  }
  MonoTime start = MonoClock::now();
  go = true;

  // The bucket is full at first (30), then refills one token every 2 s: by 2 s about 30 went.
  std::this_thread::sleep_until(start + Millis(2'000));
  auto journal = fetchJournal(mock->port);
  MonoTime looked = MonoClock::now();
  std::size_t seen = journal.ok() ? journal->size() : 0;
  double waits = 0, overflows = 0, fallbacks = 0;
  std::string per_replica;
  for (auto const& replica : replicas) {
    double w = metric(replica.port, "llmux_bucket_events_total", {{"event", "wait"}});
    waits += w;
    overflows += metric(replica.port, "llmux_bucket_events_total", {{"event", "overflow"}});
    fallbacks += metric(replica.port, "llmux_redis_fallbacks_total");
    per_replica += (per_replica.empty() ? "" : " / ") + std::to_string(static_cast<long long>(w));
  }
  RedisValue buckets = redis({"KEYS", bucket_pattern});
  std::printf(
      "[ shared bucket ] %zu requests at once: upstream saw %zu by +%.0f ms; bucket waits "
      "%.0f (replicas %s), overflows %.0f, redis fallbacks %.0f; redis bucket keys %zu\n",
      total, seen, millisBetween(start, looked), waits, per_replica.c_str(), overflows, fallbacks,
      buckets.elements.size());

  // Done: the waiting requests would take another minute. Killing the replicas ends them.
  for (auto const& replica : replicas) (void)replica.process->signal(SIGKILL);
  for (auto& client : clients) client.join();

  ASSERT_TRUE(journal.ok()) << journal.error().message;

  EXPECT_GE(seen, 28u);
  EXPECT_LE(seen, 33u) << "per-replica buckets would let all 60 through at once";
  // Every request not yet let through waited for the bucket (one wait each).
  EXPECT_GE(waits + static_cast<double>(seen), static_cast<double>(total) - 2) << "waits " << waits;
  EXPECT_GT(waits, 0);
  EXPECT_EQ(overflows, 0);
  EXPECT_EQ(fallbacks, 0) << "a Redis call fell back to local buckets";
  EXPECT_EQ(buckets.elements.size(), 1u) << "the bucket is not in Redis as " << bucket_pattern;
  // What was answered before the replicas were killed was answered 200.
  std::size_t answered_ok = 0;
  for (std::size_t i = 0; i < total; ++i) {
    if (answers[i].ok()) {
      EXPECT_EQ(answers[i]->status(), 200) << answers[i]->body;
      answered_ok += answers[i]->status() == 200 ? 1 : 0;
    }
  }
  EXPECT_GE(answered_ok + 2, seen) << "the upstream answered requests the clients never got";
}

INSTANTIATE_TEST_SUITE_P(KeyAndModel, SharedBucket,
                         ::testing::Values(BucketSource::ChannelKey, BucketSource::ModelLimits),
                         [](auto const& info) {
                           return info.param == BucketSource::ChannelKey
                                      ? std::string("ChannelKeyRpm")
                                      : std::string("ModelLimitsRpm");
                         });

// ---------------------------------------------------------------------------------------------
// 3. Redis stops answering (SIGSTOP): one request pays the 50 ms timeout and is served on local
// limits, the cooldown's requests do not touch Redis, and after the cooldown Redis is used again.

TEST_F(SharedLimits, StoppedRedisCostsOneTimeoutThenLocalLimitsUntilTheCooldownEnds) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  constexpr int kTimeoutMs = 50;
  constexpr int kCooldownMs = 1'000;
  GatewayConfig c = config(*mock, {.rpm = 1'000});
  c.redis = redisSpec(kTimeoutMs);
  c.redis->cooldown_ms = kCooldownMs;
  auto gateway = startGateway(c);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t port = gateway->port;
  auto call = clientCall(Protocol::OpenAiChat, false);
  // One request's total time on the client's clock; a failure and -1 when it is not a 200.
  auto timed = [&](std::string const& id) {
    MonoTime sent = MonoClock::now();
    auto response = callGateway(port, call, id);
    double took = millisBetween(sent, MonoClock::now());
    EXPECT_TRUE(response.ok()) << id << ": " << response.error().message;
    if (!response.ok()) return -1.0;
    EXPECT_EQ(response->status(), 200) << id << ": " << response->body;
    return response->status() == 200 ? took : -1.0;
  };

  // Redis in use: the admission is in its window.
  ASSERT_GT(timed("r-1"), 0);
  EXPECT_EQ(metric(port, "llmux_redis_active"), 1);
  EXPECT_EQ(rpmWindowSize(), 1);
  std::vector<double> before;
  for (int i = 0; i < 5; ++i) before.push_back(timed("r-before-" + std::to_string(i)));
  double baseline = median(before);
  EXPECT_EQ(rpmWindowSize(), 6);
  EXPECT_EQ(metric(port, "llmux_redis_fallbacks_total"), 0);

  // Redis stops answering (it still accepts bytes): the next admission waits one timeout.
  redis_->pause();
  double stopped = timed("r-stopped");
  MonoTime failed_at = MonoClock::now();
  std::vector<double> during;
  for (int i = 0; i < 5; ++i) during.push_back(timed("r-cooldown-" + std::to_string(i)));
  double during_ms = millisBetween(failed_at, MonoClock::now());
  double fallbacks = metric(port, "llmux_redis_fallbacks_total");
  double active_during = metric(port, "llmux_redis_active");
  redis_->resume();
  // What reached Redis while it was stopped is in the window now: at most the admission that
  // timed out (its script ran when the server woke up), none of the cooldown's.
  long long after_resume = rpmWindowSize();

  std::printf(
      "[ redis stopped ] median before %.1f ms; the request meeting the stopped Redis "
      "took %.1f ms (+%.1f ms); cooldown requests %.1f / %.1f / %.1f / %.1f / %.1f ms "
      "(all in %.0f ms); fallbacks %.0f; window after resume %lld\n",
      baseline, stopped, stopped - baseline, during[0], during[1], during[2], during[3], during[4],
      during_ms, fallbacks, after_resume);
  ASSERT_GT(stopped, 0);
  EXPECT_GE(stopped, kTimeoutMs - 5) << "the request did not wait for Redis at all";
  EXPECT_LT(stopped, 250) << "a stopped Redis held the request up beyond its timeout";
  EXPECT_LT(during_ms, kCooldownMs) << "the cooldown requests took too long for this test";
  for (double took : during) {
    EXPECT_GT(took, 0);
    EXPECT_LT(took, kTimeoutMs) << "a cooldown request waited for Redis";
  }
  EXPECT_EQ(fallbacks, 6) << "the stopped request and the five of the cooldown were local";
  EXPECT_EQ(active_during, 0);
  EXPECT_GE(after_resume, 6);
  EXPECT_LE(after_resume, 7) << "a cooldown request went to Redis";

  // After the cooldown the next request goes to Redis again, and so do the ones after it.
  std::this_thread::sleep_until(failed_at + Millis(kCooldownMs + 200));
  double back = timed("r-back-1");
  EXPECT_GT(back, 0);
  EXPECT_EQ(metric(port, "llmux_redis_active"), 1);
  EXPECT_EQ(rpmWindowSize(), after_resume + 1) << "the request after the cooldown was not in Redis";
  EXPECT_GT(timed("r-back-2"), 0);
  EXPECT_EQ(rpmWindowSize(), after_resume + 2);
  EXPECT_EQ(metric(port, "llmux_redis_fallbacks_total"), 6);
  std::printf("[ redis back ] first request after the cooldown %.1f ms\n", back);
}

// ---------------------------------------------------------------------------------------------
// 4. A gateway key's concurrency of 2 shared by two replicas: with two slow requests in flight
// (one on each), a third gets 429 on either replica; the slots come back when they end.

TEST_F(SharedLimits, TwoReplicasShareOneGatewayKeyConcurrencyLimit) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig c = config(*mock, {.concurrency = 2});
  c.channels.front().headers = {{"x-mock-fault", "slow-first-byte=1000"}};
  auto replicas = startReplicas(c, 2);
  ASSERT_EQ(replicas.size(), 2u);
  auto call = clientCall(Protocol::Anthropic, false);
  std::string leases = std::string(kPrefix) + "client:" + kKeyName + ":leases";

  // One slow request on each replica: the two slots are taken.
  std::vector<Result<Response>> slow(2, makeError(ErrorKind::Internal, "not answered"));
  std::vector<std::thread> in_flight;
  for (std::size_t g = 0; g < 2; ++g) {
    in_flight.emplace_back(
        [&, g] { slow[g] = callGateway(replicas[g].port, call, "slow-" + std::to_string(g)); });
  }
  // Both admitted (two leases in Redis) before the third request is sent.
  MonoTime deadline = MonoClock::now() + Millis(1'000);
  while (redisInteger({"ZCARD", leases}) < 2 && MonoClock::now() < deadline) {
    std::this_thread::sleep_for(Millis(10));
  }
  long long held = redisInteger({"ZCARD", leases});

  // A third request at either replica, while both slow ones are in flight.
  std::vector<std::string> refusals;
  for (std::size_t g = 0; g < 2; ++g) {
    auto third = callGateway(replicas[g].port, call, "third-" + std::to_string(g));
    refusals.push_back(third.ok() ? checkRefusal(Protocol::Anthropic, *third)
                                  : "no answer: " + third.error().message);
  }
  for (auto& thread : in_flight) thread.join();

  EXPECT_EQ(held, 2) << "the two slow requests do not hold two leases in Redis";
  for (std::size_t g = 0; g < 2; ++g) {
    EXPECT_EQ(refusals[g], "") << "the third request at replica " << g;
    ASSERT_TRUE(slow[g].ok()) << slow[g].error().message;
    EXPECT_EQ(slow[g]->status(), 200) << slow[g]->body;
    EXPECT_EQ(metric(replicas[g].port, "llmux_limit_rejections_total",
                     {{"key", kKeyName}, {"limit", "concurrency"}}),
              1)
        << "replica " << g;
  }

  // The slots come back when the slow requests end (the finish follows the answer).
  deadline = MonoClock::now() + Millis(2'000);
  while (redisInteger({"ZCARD", leases}) > 0 && MonoClock::now() < deadline) {
    std::this_thread::sleep_for(Millis(10));
  }
  EXPECT_EQ(redisInteger({"ZCARD", leases}), 0) << "the finished requests still hold leases";
  auto after = callGateway(replicas[1].port, call, "after");
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->status(), 200) << after->body;
  // The two slow requests and this one reached the upstream; the refused ones did not.
  auto journal = waitForJournal(mock->port, 3);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 3u);
  for (auto const& replica : replicas) {
    EXPECT_EQ(metric(replica.port, "llmux_redis_fallbacks_total"), 0);
  }
}

// Racing's hedge budget (docs/racing.md) is the fleet's with Redis: requests armed on one replica
// give room to shadows on another. Replica A serves 20 fast armed requests (no race); replica B
// then races 2 slow ones. On its own, B's budget (10 % of its 2 requests) would send no shadow.
TEST_F(SharedLimits, TheHedgeBudgetIsTheFleets) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig fast_config;
  fast_config.gateway_keys = {{kKeyName, kGatewayKey, "sequential", std::nullopt}};
  fast_config.channels = {channel("fast", Protocol::OpenAiChat, mock->baseUrl(), {"k-a"})};
  fast_config.redis = redisSpec();
  fast_config.extra_yaml = "racing: {enabled: true, cost_preference: quality_first}\n";
  GatewayConfig slow_config = fast_config;
  auto slow = channel("slow", Protocol::OpenAiChat, mock->baseUrl(), {"k-slow"}, 1);
  slow.headers = {{"x-mock-fault", "slow-first-token=8000"}};
  slow_config.channels = {slow, channel("fast", Protocol::OpenAiChat, mock->baseUrl(), {"k-b"})};
  auto a = startReplicas(fast_config, 1);
  ASSERT_EQ(a.size(), 1u);
  for (int i = 0; i < 20; ++i) {
    auto answer = callGateway(a[0].port, clientCall(Protocol::OpenAiChat, true));
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200);
  }
  // The fleet's count of armed requests (each replica notes its own without waiting).
  auto armed = [&] {
    RedisValue fields = redis({"HVALS", std::string(kPrefix) + "hedge:requests"});
    long long sum = 0;
    for (auto const& value : fields.elements) sum += std::stoll(value.text);
    return sum;
  };
  for (int i = 0; i < 50 && armed() < 20; ++i) std::this_thread::sleep_for(Millis(20));
  EXPECT_EQ(armed(), 20);

  std::string path = writeTempFile(toYaml(slow_config));
  ChildOptions options = gatewayOptions(binary(), path);
  std::string home = temp().path() + "/replica-b";
  std::filesystem::create_directories(home);
  options.env.emplace_back("LLMUX_HOME", home);
  auto b = startServer(std::move(options));
  ASSERT_TRUE(b.ok()) << b.error().message;
  std::vector<std::thread> callers;
  std::vector<double> seconds(2);
  for (std::size_t i = 0; i < 2; ++i) {
    callers.emplace_back([&, i] {
      MonoTime sent = MonoClock::now();
      auto answer = callGateway(b->port, clientCall(Protocol::OpenAiChat, true), {}, Millis(15'000));
      EXPECT_TRUE(answer.ok() && answer->status() == 200);
      seconds[i] = std::chrono::duration<double>(MonoClock::now() - sent).count();
    });
  }
  for (auto& caller : callers) caller.join();
  EXPECT_EQ(metric(b->port, "llmux_shadows_sent_total"), 2) << "22 armed in the fleet: room for 2";
  EXPECT_EQ(metric(b->port, "llmux_races_total", {{"event", "blocked_budget"}}), 0);
  for (double s : seconds) EXPECT_LT(s, 7.0) << "answered by a shadow, not after the primary's 8 s";
  RedisValue shadows = redis({"HVALS", std::string(kPrefix) + "hedge:shadows"});
  long long taken = 0;
  for (auto const& value : shadows.elements) taken += std::stoll(value.text);
  EXPECT_EQ(taken, 2);
  EXPECT_EQ(metric(b->port, "llmux_redis_fallbacks_total"), 0);
}

}  // namespace
}  // namespace llmux::e2e

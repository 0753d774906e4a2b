#include "shared_state/redis_limits.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "shared_state/redis_client.h"

namespace llmux::shared_state {
namespace {

using namespace std::chrono;
using net::Task;

/// The refusing limits in the order the admission script numbers them (1-based there).
constexpr std::array<std::string_view, 8> kLimitNames = {
    "concurrency", "rpm", "rpd", "tpm", "daily_tokens", "monthly_tokens", "daily_cost_usd",
    "monthly_cost_usd"};

std::int64_t nowMs(WallTime now) { return floor<milliseconds>(now.time_since_epoch()).count(); }

/// As ClientWindows: until `then`, rounded up to whole ms, at least 1.
std::int64_t untilMs(WallTime now, WallTime then) {
  return std::max<std::int64_t>(ceil<milliseconds>(then - now).count(), 1);
}

std::string number(std::int64_t value) { return std::to_string(value); }

/// A double as text that reads back as the same double (Lua's tonumber is strtod). Costs that are
/// not finite count as 0, as negative ones do.
std::string number(double value) {
  if (!std::isfinite(value)) value = 0;
  char out[32];
  std::snprintf(out, sizeof out, "%.17g", value);
  return out;
}

/// Whether demands[i]'s id already appeared before i (a repeated id counts once, as in-process).
bool repeated(std::span<routing::BucketDemand const> demands, std::size_t i) {
  for (std::size_t j = 0; j < i; ++j) {
    if (demands[j].id == demands[i].id) return true;
  }
  return false;
}

Error unexpected(LuaScript const& script, RedisReply const& reply) {
  return makeError(ErrorKind::Internal,
                   "redis script " + script.name + " answered " + describe(reply));
}

/// EVALSHA, then EVAL when the server does not know the script. An error reply becomes an Error.
Task<Result<RedisReply>> runScript(RedisClient& redis, LuaScript const& script,
                                   std::vector<std::string> keys, std::vector<std::string> argv) {
  std::vector<std::string> args;
  args.reserve(3 + keys.size() + argv.size());
  args.push_back("EVALSHA");
  args.push_back(script.sha1);
  args.push_back(std::to_string(keys.size()));
  for (auto& k : keys) args.push_back(std::move(k));
  for (auto& a : argv) args.push_back(std::move(a));
  auto reply = co_await redis.call(args);
  if (reply && reply->isErrorCode("NOSCRIPT")) {
    args[0] = "EVAL";
    args[1] = script.body;
    reply = co_await redis.call(std::move(args));
  }
  if (reply && reply->isError()) {
    co_return makeError(ErrorKind::Unavailable,
                        "redis script " + script.name + " failed: " + reply->text);
  }
  co_return reply;
}

bool isIntegerArray(RedisReply const& reply, std::size_t size) {
  if (reply.kind != RedisReply::Kind::Array || reply.elements.size() != size) return false;
  for (auto const& e : reply.elements) {
    if (e.kind != RedisReply::Kind::Integer) return false;
  }
  return true;
}

std::optional<double> parseLevel(RedisReply const& reply) {
  if (reply.kind != RedisReply::Kind::Bulk) return std::nullopt;
  if (reply.text == "inf") return HUGE_VAL;
  char* end = nullptr;
  double value = std::strtod(reply.text.c_str(), &end);
  if (end != reply.text.c_str() + reply.text.size()) return std::nullopt;
  return value;
}

}  // namespace

RedisLimits::RedisLimits(std::string prefix, std::string replica)
    : prefix_(std::move(prefix)), replica_(std::move(replica)) {}

std::string RedisLimits::leaseName(std::uint64_t n) const {
  return replica_ + "|" + std::to_string(n);
}

std::string RedisLimits::bucketKey(std::string_view id, std::string_view dimension) const {
  std::string key = prefix_;
  key += "bucket:";
  key += id;
  key += ':';
  key += dimension;
  return key;
}

std::string RedisLimits::clientKey(std::string_view key, std::string_view part) const {
  std::string out = prefix_;
  out += "client:";
  out += key;
  out += ':';
  out += part;
  return out;
}

Task<Result<routing::BucketTake>> RedisLimits::take(RedisClient& redis,
                                                    std::span<routing::BucketDemand const> demands,
                                                    std::int64_t tokens, WallTime now) const {
  std::vector<std::string> keys;
  std::vector<std::string> argv = {number(nowMs(now)), number(tokens)};
  for (std::size_t i = 0; i < demands.size(); ++i) {
    auto const& demand = demands[i];
    if (!demand.limits.any() || repeated(demands, i)) continue;
    keys.push_back(bucketKey(demand.id, "rpm"));
    keys.push_back(bucketKey(demand.id, "tpm"));
    argv.push_back(number(demand.limits.rpm));
    argv.push_back(number(demand.limits.tpm));
  }
  if (keys.empty()) co_return routing::BucketTake{true, Millis(0)};
  auto reply = co_await runScript(redis, take_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  if (!isIntegerArray(*reply, 2)) co_return unexpected(take_, *reply);
  if (reply->elements[0].integer == 1) co_return routing::BucketTake{true, Millis(0)};
  co_return routing::BucketTake{false, Millis(reply->elements[1].integer)};
}

Task<Result<void>> RedisLimits::settle(RedisClient& redis,
                                       std::span<routing::BucketDemand const> demands,
                                       std::int64_t reserved, std::int64_t used,
                                       WallTime now) const {
  std::vector<std::string> keys;
  std::vector<std::string> argv = {number(nowMs(now)), number(reserved), number(used)};
  for (std::size_t i = 0; i < demands.size(); ++i) {
    auto const& demand = demands[i];
    if (demand.limits.tpm <= 0 || repeated(demands, i)) continue;
    keys.push_back(bucketKey(demand.id, "tpm"));
    argv.push_back(number(demand.limits.tpm));
  }
  if (keys.empty()) co_return Result<void>{};
  auto reply = co_await runScript(redis, settle_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  co_return Result<void>{};
}

Task<Result<std::pair<double, double>>> RedisLimits::levels(RedisClient& redis, std::string_view id,
                                                            routing::BucketLimits limits,
                                                            WallTime now) const {
  // Named vectors, not braced lists in the co_await expression: GCC 12 miscompiles those.
  std::vector<std::string> keys = {bucketKey(id, "rpm"), bucketKey(id, "tpm")};
  std::vector<std::string> argv = {number(nowMs(now)), number(limits.rpm), number(limits.tpm)};
  auto reply = co_await runScript(redis, levels_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  if (reply->kind != RedisReply::Kind::Array || reply->elements.size() != 2) {
    co_return unexpected(levels_, *reply);
  }
  auto rpm = parseLevel(reply->elements[0]);
  auto tpm = parseLevel(reply->elements[1]);
  if (!rpm || !tpm) co_return unexpected(levels_, *reply);
  co_return std::pair{*rpm, *tpm};
}

Task<Result<routing::ClientAdmission>> RedisLimits::admit(RedisClient& redis, std::string_view key,
                                                          routing::ClientLimits const& limits,
                                                          std::int64_t estimated_tokens,
                                                          std::string_view lease,
                                                          WallTime now) const {
  std::string const day = routing::utcDayStamp(now);
  std::string const month = routing::utcMonthStamp(now);
  std::vector<std::string> keys = {
      prefix_ + "replicas",
      clientKey(key, "leases"),
      clientKey(key, "rpm"),
      clientKey(key, "rpd:" + day),
      clientKey(key, "tpm"),
      clientKey(key, "tokens:" + day),
      clientKey(key, "tokens:" + month),
      clientKey(key, "cost:" + day),
      clientKey(key, "cost:" + month),
  };
  std::vector<std::string> argv = {
      number(nowMs(now)),
      std::string(lease),
      replica_,
      number(kHeartbeatTtl.count()),
      number(kLeaseBackstop.count()),
      number(limits.concurrency),
      number(limits.rpm),
      number(limits.rpd),
      number(limits.tpm),
      number(estimated_tokens),
      number(limits.daily_tokens),
      number(limits.monthly_tokens),
      number(limits.daily_cost_usd),
      number(limits.monthly_cost_usd),
      number(untilMs(now, routing::nextUtcMidnight(now))),
      number(untilMs(now, routing::nextUtcMonthStart(now))),
  };
  auto reply = co_await runScript(redis, admit_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  if (isIntegerArray(*reply, 1) && reply->elements[0].integer == 1) {
    co_return routing::ClientAdmission{};
  }
  if (!isIntegerArray(*reply, 3) || reply->elements[0].integer != 0) {
    co_return unexpected(admit_, *reply);
  }
  std::int64_t limit = reply->elements[1].integer;
  if (limit < 1 || limit > static_cast<std::int64_t>(kLimitNames.size())) {
    co_return unexpected(admit_, *reply);
  }
  co_return routing::ClientAdmission{false, kLimitNames[static_cast<std::size_t>(limit - 1)],
                                     Millis(reply->elements[2].integer)};
}

Task<Result<void>> RedisLimits::finish(RedisClient& redis, std::string_view key,
                                       routing::ClientLimits const& limits, std::string_view lease,
                                       std::int64_t estimated_tokens, std::int64_t used_tokens,
                                       double cost_usd, WallTime now) const {
  std::string const day = routing::utcDayStamp(now);
  std::string const month = routing::utcMonthStamp(now);
  std::vector<std::string> keys = {
      clientKey(key, "leases"),          clientKey(key, "tpm"),
      clientKey(key, "tokens:" + day),   clientKey(key, "tokens:" + month),
      clientKey(key, "cost:" + day),     clientKey(key, "cost:" + month),
  };
  std::vector<std::string> argv = {
      number(nowMs(now)),
      std::string(lease),
      number(limits.tpm),
      number(estimated_tokens),
      number(used_tokens),
      number(cost_usd),
      number(limits.daily_tokens),
      number(limits.monthly_tokens),
      number(limits.daily_cost_usd),
      number(limits.monthly_cost_usd),
      number(untilMs(now, routing::nextUtcMidnight(now))),
      number(untilMs(now, routing::nextUtcMonthStart(now))),
  };
  auto reply = co_await runScript(redis, finish_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  co_return Result<void>{};
}

Task<Result<void>> RedisLimits::releaseLease(RedisClient& redis, std::string_view key,
                                             std::string_view lease) const {
  std::vector<std::string> command = {"ZREM", clientKey(key, "leases"), std::string(lease)};
  auto reply = co_await redis.call(std::move(command));
  if (!reply) co_return reply.takeError();
  if (reply->isError()) co_return makeError(ErrorKind::Unavailable, "redis ZREM failed: " + reply->text);
  co_return Result<void>{};
}

Task<Result<std::int64_t>> RedisLimits::leaseCount(RedisClient& redis, std::string_view key) const {
  std::vector<std::string> command = {"ZCARD", clientKey(key, "leases")};
  auto reply = co_await redis.call(std::move(command));
  if (!reply) co_return reply.takeError();
  if (reply->kind != RedisReply::Kind::Integer) {
    co_return makeError(ErrorKind::Unavailable, "redis ZCARD answered " + describe(*reply));
  }
  co_return reply->integer;
}

namespace {
std::string utcSecond(WallTime now) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count());
}
}  // namespace

Task<Result<void>> RedisLimits::noteHedgeRequest(RedisClient& redis, WallTime now) const {
  std::vector<std::string> keys = {prefix_ + "hedge:requests"};
  std::vector<std::string> argv = {utcSecond(now)};
  auto reply = co_await runScript(redis, hedge_note_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  co_return Result<void>{};
}

Task<Result<bool>> RedisLimits::takeHedgeShadow(RedisClient& redis, double share, WallTime now) const {
  std::vector<std::string> keys = {prefix_ + "hedge:requests", prefix_ + "hedge:shadows"};
  std::vector<std::string> argv = {utcSecond(now), number(share)};
  auto reply = co_await runScript(redis, hedge_take_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  if (reply->kind != RedisReply::Kind::Integer) co_return unexpected(hedge_take_, *reply);
  co_return reply->integer == 1;
}

Task<Result<void>> RedisLimits::heartbeat(RedisClient& redis, WallTime now) const {
  std::vector<std::string> keys = {prefix_ + "replicas"};
  std::vector<std::string> argv = {number(nowMs(now)), replica_, number(kHeartbeatTtl.count())};
  auto reply = co_await runScript(redis, heartbeat_, std::move(keys), std::move(argv));
  if (!reply) co_return reply.takeError();
  co_return Result<void>{};
}

}  // namespace llmux::shared_state

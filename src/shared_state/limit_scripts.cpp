#include "shared_state/limit_scripts.h"

#include <openssl/evp.h>

#include <cstdio>

#include "routing/rate_limits.h"

namespace llmux::shared_state {
namespace {

using std::chrono::duration_cast;
using std::chrono::milliseconds;

std::string exact(double value) {
  char out[32];
  std::snprintf(out, sizeof out, "%.17g", value);
  return out;
}

std::string ms(Millis value) { return std::to_string(value.count()); }

// How long a key outlives the moment it stops mattering. The TTLs run on Redis' clock while the
// scripts reason on the caller's; the margin absorbs the difference (and keeps a fake-clock test's
// keys alive). A key that has expired reads exactly as one that mattered no more: a full bucket,
// an empty window, a past day's counter.
constexpr Millis kKeepMargin{60'000};
constexpr Millis kPeriodKeepMargin{3'600'000};

/// The constants and helpers every script shares. The bucket arithmetic is written in the same
/// order of operations as routing/rate_limits.cpp, so the doubles come out bit for bit equal.
std::string prelude() {
  return "local WINDOW_S = " + std::to_string(routing::kRateWindow.count()) +
         "\n"
         "local WINDOW_MS = " + ms(duration_cast<milliseconds>(routing::kRateWindow)) +
         "\n"
         "local SLACK = " + exact(routing::kBucketSlack) +
         "\n"
         "local MAX_WAIT_MS = " + ms(routing::kMaxBucketWait) +
         "\n"
         "local CONCURRENCY_RETRY_MS = " + ms(routing::kConcurrencyRetryAfter) +
         "\n"
         "local KEEP_MS = " + ms(kKeepMargin) +
         "\n"
         "local PERIOD_KEEP_MS = " + ms(kPeriodKeepMargin) + "\n" + R"lua(
local function exact(x) return string.format('%.17g', x) end

-- A bucket's level refilled to now (an absent bucket is full) and the time it is then at (an
-- older now refills nothing and does not move the bucket's time back).
local function refilled(key, limit, now)
  local state = redis.call('HMGET', key, 'level', 'at')
  local capacity = limit
  if not state[1] then return capacity, now end
  local level, at = tonumber(state[1]), tonumber(state[2])
  local elapsed = 0
  if now > at then elapsed = (now - at) / 1000 end
  local refilled_level = level + elapsed * capacity / WINDOW_S
  if capacity < refilled_level then refilled_level = capacity end
  if at > now then return refilled_level, at end
  return refilled_level, now
end

-- Stores a bucket; it expires a margin after it would be full again (absent reads as full).
local function store(key, level, at, limit)
  redis.call('HSET', key, 'level', exact(level), 'at', exact(at))
  local to_full = (limit - level) * WINDOW_S * 1000.0 / limit
  if to_full > MAX_WAIT_MS then to_full = MAX_WAIT_MS end
  if to_full < 0 then to_full = 0 end
  redis.call('PEXPIRE', key, math.ceil(to_full) + KEEP_MS)
end

local function has_enough(level, need) return level >= need - SLACK end

-- Until `level` reaches `need` at limit / 60 per second: whole ms, rounded up, >= 1.
local function wait_ms(level, need, limit)
  local wait = math.ceil((need - level - SLACK) * WINDOW_S * 1000.0 / limit)
  if wait < 1 then wait = 1 end
  if wait > MAX_WAIT_MS then wait = MAX_WAIT_MS end
  return wait
end

-- The replica is alive for `ttl` more ms; replicas past their time are forgotten.
local function beat(replicas, replica, now, ttl)
  redis.call('ZADD', replicas, now + ttl, replica)
  redis.call('ZREMRANGEBYSCORE', replicas, '-inf', now)
  redis.call('PEXPIRE', replicas, ttl + KEEP_MS)
end
)lua";
}

LuaScript script(std::string name, std::string_view body) {
  LuaScript s;
  s.name = std::move(name);
  s.body = prelude() + std::string(body);
  s.sha1 = sha1Hex(s.body);
  return s;
}

}  // namespace

std::string sha1Hex(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(text.data(), text.size(), digest, &length, EVP_sha1(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(length * 2);
  for (unsigned int i = 0; i < length; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0f];
  }
  return out;
}

LuaScript bucketTakeScript() {
  return script("bucket_take", R"lua(
local now = tonumber(ARGV[1])
local tokens = math.max(tonumber(ARGV[2]), 0)
local checked = {}
local enough = true
local wait = 0
local function check(key, limit, need)
  local level, at = refilled(key, limit, now)
  if not has_enough(level, need) then
    enough = false
    wait = math.max(wait, wait_ms(level, need, limit))
  end
  checked[#checked + 1] = {key, level, at, limit, need}
end
for i = 1, #KEYS / 2 do
  local rpm, tpm = tonumber(ARGV[1 + 2 * i]), tonumber(ARGV[2 + 2 * i])
  if rpm > 0 then check(KEYS[2 * i - 1], rpm, 1) end
  if tpm > 0 then check(KEYS[2 * i], tpm, math.min(tokens, tpm)) end
end
-- All or nothing; the refill is stored even on a refusal, as the in-process table does.
for _, c in ipairs(checked) do
  local level = c[2]
  if enough then level = level - c[5] end
  store(c[1], level, c[3], c[4])
end
if enough then return {1, 0} end
return {0, wait}
)lua");
}

LuaScript bucketSettleScript() {
  return script("bucket_settle", R"lua(
local now = tonumber(ARGV[1])
local reserved = math.max(tonumber(ARGV[2]), 0)
local used = math.max(tonumber(ARGV[3]), 0)
for i = 1, #KEYS do
  local tpm = tonumber(ARGV[3 + i])
  local level, at = refilled(KEYS[i], tpm, now)
  level = level + math.min(reserved, tpm) - used
  if tpm < level then level = tpm end
  store(KEYS[i], level, at, tpm)
end
return 1
)lua");
}

LuaScript bucketLevelsScript() {
  return script("bucket_levels", R"lua(
local now = tonumber(ARGV[1])
local rpm, tpm = tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {'inf', 'inf'}
if rpm > 0 then out[1] = exact((refilled(KEYS[1], rpm, now))) end
if tpm > 0 then out[2] = exact((refilled(KEYS[2], tpm, now))) end
return out
)lua");
}

LuaScript clientAdmitScript() {
  return script("client_admit", R"lua(
local now = tonumber(ARGV[1])
local lease, replica = ARGV[2], ARGV[3]
local heartbeat_ttl, backstop = tonumber(ARGV[4]), tonumber(ARGV[5])
local concurrency, rpm = tonumber(ARGV[6]), tonumber(ARGV[7])
local rpd, tpm = tonumber(ARGV[8]), tonumber(ARGV[9])
local estimate = math.max(tonumber(ARGV[10]), 0)
local daily_tokens, monthly_tokens = tonumber(ARGV[11]), tonumber(ARGV[12])
local daily_cost, monthly_cost = tonumber(ARGV[13]), tonumber(ARGV[14])
local to_midnight, to_month = tonumber(ARGV[15]), tonumber(ARGV[16])

-- Housekeeping first (it changes no answer a live replica could observe): this replica is alive,
-- it is admitting; leases past their absolute expiry are gone whoever holds them.
beat(KEYS[1], replica, now, heartbeat_ttl)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)

if concurrency > 0 then
  local in_flight = redis.call('ZCARD', KEYS[2])
  if in_flight >= concurrency then
    -- Full: drop the leases of replicas whose heartbeat has lapsed (they crashed) and count again.
    -- Only here, so a key below its limit pays nothing for it.
    local alive = {}
    for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
      local owner = string.match(member, '^([^|]*)|') or ''
      if alive[owner] == nil then
        local until_ms = redis.call('ZSCORE', KEYS[1], owner)
        alive[owner] = (until_ms ~= false) and (tonumber(until_ms) > now)
      end
      if not alive[owner] then redis.call('ZREM', KEYS[2], member) end
    end
    in_flight = redis.call('ZCARD', KEYS[2])
  end
  if in_flight >= concurrency then return {0, 1, CONCURRENCY_RETRY_MS} end
end

if rpm > 0 then
  -- Sliding window, exact: an admission exactly 60 s old has left; only the newest rpm are kept.
  redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now - WINDOW_MS)
  local kept = redis.call('ZCARD', KEYS[3])
  if kept > rpm then
    redis.call('ZREMRANGEBYRANK', KEYS[3], 0, kept - rpm - 1)
    kept = rpm
  end
  if kept >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[3], 0, 0, 'WITHSCORES')
    return {0, 2, math.max(1, tonumber(oldest[2]) + WINDOW_MS - now)}
  end
end

if rpd > 0 and tonumber(redis.call('GET', KEYS[4]) or 0) >= rpd then
  return {0, 3, to_midnight}
end

local tpm_level, tpm_at, tpm_need
if tpm > 0 then
  tpm_need = math.min(estimate, tpm)
  tpm_level, tpm_at = refilled(KEYS[5], tpm, now)
  store(KEYS[5], tpm_level, tpm_at, tpm)
  if not has_enough(tpm_level, tpm_need) then return {0, 4, wait_ms(tpm_level, tpm_need, tpm)} end
end

local function spent(key) return tonumber(redis.call('GET', key) or 0) end
if daily_tokens > 0 and spent(KEYS[6]) >= daily_tokens then return {0, 5, to_midnight} end
if monthly_tokens > 0 and spent(KEYS[7]) >= monthly_tokens then return {0, 6, to_month} end
if daily_cost > 0 and spent(KEYS[8]) >= daily_cost then return {0, 7, to_midnight} end
if monthly_cost > 0 and spent(KEYS[9]) >= monthly_cost then return {0, 8, to_month} end

-- Admitted: a lease (always, so a concurrency limit added by a reload counts what is in flight),
-- the rpm time, the day's count, the TPM deduction.
redis.call('ZADD', KEYS[2], now + backstop, lease)
redis.call('PEXPIRE', KEYS[2], backstop + KEEP_MS)
if rpm > 0 then
  local at = now
  local newest = redis.call('ZRANGE', KEYS[3], -1, -1, 'WITHSCORES')
  if newest[2] and tonumber(newest[2]) > at then at = tonumber(newest[2]) end
  redis.call('ZADD', KEYS[3], at, lease)
  redis.call('PEXPIRE', KEYS[3], WINDOW_MS + KEEP_MS)
end
if rpd > 0 then
  redis.call('INCR', KEYS[4])
  redis.call('PEXPIRE', KEYS[4], to_midnight + PERIOD_KEEP_MS)
end
if tpm > 0 then store(KEYS[5], tpm_level - tpm_need, tpm_at, tpm) end
return {1}
)lua");
}

LuaScript clientFinishScript() {
  return script("client_finish", R"lua(
local now = tonumber(ARGV[1])
local tpm = tonumber(ARGV[3])
local estimate = math.max(tonumber(ARGV[4]), 0)
local used = math.max(tonumber(ARGV[5]), 0)
local cost = math.max(tonumber(ARGV[6]), 0)
local to_midnight, to_month = tonumber(ARGV[11]), tonumber(ARGV[12])

redis.call('ZREM', KEYS[1], ARGV[2])
if tpm > 0 then
  local level, at = refilled(KEYS[2], tpm, now)
  level = level + math.min(estimate, tpm) - used
  if tpm < level then level = tpm end
  store(KEYS[2], level, at, tpm)
end
local function add(key, amount, ttl)
  local sum = tonumber(redis.call('GET', key) or 0) + amount
  redis.call('SET', key, exact(sum), 'PX', math.ceil(ttl))
end
if tonumber(ARGV[7]) > 0 then add(KEYS[3], used, to_midnight + PERIOD_KEEP_MS) end
if tonumber(ARGV[8]) > 0 then add(KEYS[4], used, to_month + PERIOD_KEEP_MS) end
if tonumber(ARGV[9]) > 0 then add(KEYS[5], cost, to_midnight + PERIOD_KEEP_MS) end
if tonumber(ARGV[10]) > 0 then add(KEYS[6], cost, to_month + PERIOD_KEEP_MS) end
return 1
)lua");
}

LuaScript hedgeNoteScript() {
  return script("hedge_note", R"lua(
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], 120000)
return 1
)lua");
}

LuaScript hedgeTakeScript() {
  return script("hedge_take", R"lua(
local second = tonumber(ARGV[1])
local share = tonumber(ARGV[2])
-- The minute's count, dropping seconds that left it (each hash holds at most ~60 fields).
local function minute(key)
  local total = 0
  local fields = redis.call('HGETALL', key)
  for i = 1, #fields, 2 do
    local at = tonumber(fields[i])
    if at <= second - 60 then
      redis.call('HDEL', key, fields[i])
    elseif at <= second then
      total = total + tonumber(fields[i + 1])
    end
  end
  return total
end
local requests = minute(KEYS[1])
local shadows = minute(KEYS[2])
if shadows + 1 > share * requests then return 0 end
redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[2], 120000)
return 1
)lua");
}

LuaScript heartbeatScript() {
  return script("heartbeat", R"lua(
beat(KEYS[1], ARGV[2], tonumber(ARGV[1]), tonumber(ARGV[3]))
return 1
)lua");
}

}  // namespace llmux::shared_state

#pragma once

// The Lua scripts behind RedisLimits. Each is one atomic step on the shared state (Redis runs a
// script without interleaving other commands), and each takes the time from its caller (ARGV) so
// the same inputs give the same answers: replicas agree, tests run on a fake clock.
#include <string>
#include <string_view>

namespace llmux::shared_state {

/// One script: its text and the SHA1 Redis knows it by (EVALSHA).
struct LuaScript {
  std::string name;  ///< for error messages
  std::string body;
  std::string sha1;  ///< lowercase hex of `body`
};

/// Takes 1 request and the tokens from every bucket pair, or nothing.
/// KEYS: per pair its RPM bucket, then its TPM bucket. ARGV: now_ms, tokens, then per pair rpm, tpm.
/// Returns {1, 0} taken, or {0, wait_ms}.
LuaScript bucketTakeScript();

/// Settles TPM buckets after an answer. KEYS: the TPM buckets. ARGV: now_ms, reserved, used, then
/// per bucket its tpm. Returns 1.
LuaScript bucketSettleScript();

/// Reads one pair's levels refilled to now, storing nothing. KEYS: RPM bucket, TPM bucket.
/// ARGV: now_ms, rpm, tpm. Returns {rpm level, tpm level} as "%.17g" strings ("inf" when unlimited).
LuaScript bucketLevelsScript();

/// Admits a gateway-key request or names the first refusing limit.
/// KEYS: 1 replicas, 2 leases, 3 rpm log, 4 requests of the day, 5 tpm bucket, 6 tokens of the
///       day, 7 tokens of the month, 8 cost of the day, 9 cost of the month.
/// ARGV: 1 now_ms, 2 lease, 3 replica, 4 heartbeat ttl ms, 5 lease backstop ms, 6 concurrency,
///       7 rpm, 8 rpd, 9 tpm, 10 estimate, 11 daily_tokens, 12 monthly_tokens, 13 daily_cost_usd,
///       14 monthly_cost_usd, 15 ms to the next UTC midnight, 16 ms to the next UTC month.
/// Returns {1} admitted, or {0, refusing limit 1..8 (concurrency, rpm, rpd, tpm, daily_tokens,
/// monthly_tokens, daily_cost_usd, monthly_cost_usd), retry_after_ms}.
LuaScript clientAdmitScript();

/// Ends an admitted request: releases its lease, settles TPM, adds the spending.
/// KEYS: 1 leases, 2 tpm bucket, 3 tokens of the day, 4 tokens of the month, 5 cost of the day,
///       6 cost of the month.
/// ARGV: 1 now_ms, 2 lease, 3 tpm, 4 estimate, 5 used, 6 cost_usd, 7 daily_tokens,
///       8 monthly_tokens, 9 daily_cost_usd, 10 monthly_cost_usd, 11 ms to the next UTC midnight,
///       12 ms to the next UTC month. Returns 1.
LuaScript clientFinishScript();

/// Marks a replica alive. KEYS: 1 replicas. ARGV: 1 now_ms, 2 replica, 3 heartbeat ttl ms.
/// Returns 1.
LuaScript heartbeatScript();

/// Racing's hedge budget shared by every replica (docs/racing.md): counts one armed request in
/// its UTC second. KEYS: 1 requests (a hash by second). ARGV: 1 second. Returns 1.
LuaScript hedgeNoteScript();

/// Takes one shadow when shadows + 1 <= share x armed requests over the last 60 seconds (seconds
/// a minute old are dropped). KEYS: 1 requests, 2 shadows (hashes by second). ARGV: 1 second,
/// 2 share. Returns 1 taken, 0 over the budget.
LuaScript hedgeTakeScript();

/// SHA1 of `text` as 40 lowercase hex digits (what SCRIPT LOAD answers for it).
std::string sha1Hex(std::string_view text);

}  // namespace llmux::shared_state

#pragma once

#include <chrono>
#include <string>

#include "core/request_record.h"

namespace llmux::store {

/// A streamed request that failed over from a rate-limited key to a translated one, with token
/// usage (the request log stores' tests).
inline RequestRecord failedOverRecord(std::string id) {
  RequestRecord r;
  r.request_id = std::move(id);
  r.started_at = WallTime(std::chrono::milliseconds(1'700'000'000'123));
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.gateway_key = "team-a";
  r.client = "codex-cli";
  r.model = "gpt-4o";
  r.stream = true;
  r.channel = "backup";
  r.key_label = "backup#1";
  r.status = 200;
  r.attempts.push_back({"primary", "primary#0", "gpt-4o-2024", 429,
                        AttemptOutcome::failover("status_429"), 35.5, 36});
  r.attempts.push_back({"backup", "backup#1", "gpt-4o", 200, AttemptOutcome::ok(), 410.25, 2500.75,
                        "anthropic", true});
  r.attempts.back().first_token_ms = 980.5;
  r.first_byte_ms = 450.5;
  r.total_ms = 2600.125;
  r.overhead_ms = 0.075;
  r.bytes_in = 1234;
  r.bytes_out = 56789;
  r.usage = TokenUsage{.input = 900,
                       .cache_read = 600,
                       .cache_write = 50,
                       .output = 120,
                       .reasoning = 40,
                       .estimated = false};
  return r;
}

}  // namespace llmux::store

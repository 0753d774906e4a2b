#pragma once

#include <optional>
#include <string_view>

#include "core/clock.h"
#include "core/error.h"
#include "core/wire_protocol.h"
#include "routing/outcome.h"

namespace llmux::routing {

struct FailurePolicy {
  Verdict verdict = Verdict::Relay;
  std::string_view reason;  ///< metric label: "status_429", "connect", "timeout_first_byte", ...
};

/// The rule for an HTTP status from the upstream: the outcome table's verdict (outcome.h) with a
/// metric label ("status_429", "status_5xx" for an unlisted 5xx). Never retried: 400, 404, 413,
/// 422 and every other 4xx but 401, 403, 408 and 429 (retrying cannot fix the client's request,
/// and costs money).
FailurePolicy policyForStatus(int status);

/// The rule for an attempt that got no response head (connect failure, timeout, broken
/// connection before the first byte).
FailurePolicy policyForTransportError(ErrorKind kind);

/// Whether an error answer says the upstream rejected the channel's key although its status is not
/// 401/403: Gemini answers a wrong key with 400 INVALID_ARGUMENT, reason API_KEY_INVALID. Such an
/// answer is the gateway's problem, not the client's: the key is paused and the next one tried.
bool isRejectedKeyAnswer(Protocol protocol, int status, std::string_view body);

/// Whether a 400 is the upstream refusing the content (a policy block): OpenAI's
/// `content_policy_violation`, Azure OpenAI's `content_filter` / `ResponsibleAIPolicyViolation`,
/// Gemini's `PROHIBITED_CONTENT`. The client's to change, like any 400, but counted apart.
bool isContentPolicyRefusal(int status, std::string_view body);

/// Statuses whose body must be read before deciding: every 400 (a content-policy refusal, and
/// Gemini's wrong key: see isRejectedKeyAnswer) and Gemini's 429 (Google gives its retry delay in
/// the body only, not in a retry-after header).
inline bool needsBodyToDecide(Protocol protocol, int status) {
  return status == 400 || (protocol == Protocol::Gemini && status == 429);
}

/// Whether a 429's body says the account itself is out of quota or credit, rather than that one
/// model is asked too fast: OpenAI's `insufficient_quota`, `billing_hard_limit_reached` and
/// `billing_not_active`, Anthropic's `enforced_spend_limit_reached`, `billing_error` and "credit
/// balance is too low". Such an answer pauses the whole key; any other 429 only the (key,
/// upstream model) pair, as OpenAI, Anthropic and Gemini rate-limit each model on its own
/// (Gemini's quota ids say so: "...PerProjectPerModel").
bool isAccountExhaustedAnswer(std::string_view body);

/// What an answer takes out of rotation.
enum class PauseScope {
  Model,  ///< the (key, upstream model) pair: a rate limit
  Key,    ///< every model of the key: a rejected key, an exhausted account
};

/// The scope of the pause after an answer the key is blamed for (Verdict::NextKey): 429 → Model,
/// unless its body says the account is exhausted; 401, 403 and the other key rejections → Key.
PauseScope pauseScopeFor(int status, std::string_view body);

/// How long a key sits out after an answer: 429 → the upstream's retry-after or 30 s; 401/403 →
/// 10 minutes (a wrong or revoked key does not heal by itself, but an operator may fix it).
inline constexpr Millis kDefaultRateLimitPause{30'000};
inline constexpr Millis kRejectedKeyPause{10 * 60'000};

/// The pause a 429 asks for (`retry_after`, from its headers or Gemini's RetryInfo; the default
/// when it gave none), never longer than `max_pause` (`retry.max_key_pause_ms`): a broken or
/// hostile upstream's `retry-after: 99999999` must not bench a key for years. Longer outages are
/// the freeze rules' job, which are visible and can be lifted.
Millis rateLimitPause(std::optional<Millis> retry_after, Millis max_pause);

}  // namespace llmux::routing

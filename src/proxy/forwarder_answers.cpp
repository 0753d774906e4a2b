// The gateway's own answers when no attempt answered (internal to the forwarder): every
// candidate failed, or every breaker refused.
#include <algorithm>
#include <chrono>
#include <string>

#include "proxy/error_reply.h"
#include "proxy/forwarder.h"
#include "routing/breakers.h"

namespace llmux::proxy {

using net::Task;
using namespace forwarding;

Task<void> Forwarder::answerDeadlinePassed(RequestContext& ctx) {
  co_await replyError(ctx, 504,
                      "no upstream was tried for model '" + ctx.profile.model +
                          "' within the request's retry deadline (" +
                          std::to_string(ctx.catalog->settings().retry.deadline.count()) + " ms)");
}

Task<void> Forwarder::answerShuttingDown(RequestContext& ctx) {
  co_await replyError(ctx, 503, "the gateway is shutting down");
}

Task<void> Forwarder::answerExhausted(RequestContext& ctx, AttemptResult const& last,
                                      std::size_t attempts) {
  int status = 502;
  std::string last_reason;
  HeaderList extra;
  if (last.status != 0) {
    last_reason = "upstream status " + std::to_string(last.status);
    switch (last.status) {
      case 429:
        status = 429;
        extra.add("retry-after",
                  std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                     last.retry_after.value_or(routing::kDefaultRateLimitPause))
                                     .count()));
        break;
      case 408:
      case 504: status = 504; break;
      case 529: status = ctx.protocol == Protocol::Anthropic ? 529 : 503; break;
      case 500:
      case 502:
      case 503: status = last.status; break;
      default: status = 502;  // 401/403: the gateway's credentials, not the client's
    }
  } else if (last.error && last.error->kind == ErrorKind::InvalidRequest) {
    // No candidate's protocol could carry the request: the client's to change.
    co_await replyError(ctx, 400, last.error->message);
    co_return;
  } else if (last.error && last.policy.reason == "misconfigured") {
    last_reason = last.error->message;  // names the setting, never its value
  } else if (last.error && last.policy.reason == "deadline") {
    last_reason = "no answer within the request's retry deadline (" +
                  std::to_string(ctx.catalog->settings().retry.deadline.count()) + " ms)";
    status = 504;
  } else if (last.error) {
    last_reason = std::string(errorKindName(last.error->kind));
    status = last.error->kind == ErrorKind::Timeout ? 504 : 502;
  }
  extra.add("x-llmux-attempts", std::to_string(attempts));
  std::string message = "all " + std::to_string(attempts) + " upstream attempt" +
                        (attempts == 1 ? "" : "s") + " for model '" + ctx.profile.model +
                        "' failed (last: " + last_reason + ")";
  co_await replyError(ctx, status, message, std::move(extra));
}

Task<void> Forwarder::answerAllRefused(RequestContext& ctx, BreakerRefusals const& refusals) {
  // Fail fast: every candidate's breaker is open. The client may come back when the first one
  // lets a probe through.
  HeaderList extra;
  long long seconds = 1;
  if (refusals.retry_at) {
    auto wait = std::chrono::ceil<std::chrono::seconds>(*refusals.retry_at - services_.clock.now());
    seconds = std::max<long long>(1, wait.count());
  }
  extra.add("retry-after", std::to_string(seconds));
  co_await replyError(ctx, 503,
                      "every upstream for model '" + ctx.profile.model +
                          "' is held by a circuit breaker (" + refusals.describe() +
                          "); retry after " + std::to_string(seconds) + " s (see GET /admin/breakers)",
                      std::move(extra));
}

}  // namespace llmux::proxy

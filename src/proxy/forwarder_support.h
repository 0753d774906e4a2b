#pragma once

// Pieces shared by the forwarder's passthrough and translated paths (forwarder.cpp,
// translated_relay.cpp). Internal to the proxy module.

#include <array>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/request_record.h"
#include "core/result.h"
#include "http/cancellation.h"
#include "net/task.h"
#include "proxy/attempt_clock.h"
#include "proxy/request_context.h"
#include "routing/failure_policy.h"

namespace llmux::http {
class UpstreamExchange;
class UpstreamPool;
struct PeerAddress;
}

namespace llmux::proxy::forwarding {

inline double msSince(MonoTime start) { return millisBetween(start, MonoClock::now()); }

/// The most a stream may send before its first content (its preamble, pings, empty frames) while
/// the answer is held back for failover; past it the attempt fails as an upstream protocol error.
inline constexpr std::size_t kHeldBeforeContentLimit = 1u << 20;

/// A 429 with another candidate left is judged on its head alone: the connection is closed
/// without waiting for the body, and the next candidate's request goes out at once (a 429 storm
/// must cost the client no time). What arrived with the head is still read by the freeze rules.
inline bool decidesOnHead(int status, bool last) { return status == 429 && !last; }

/// Adds the time until destruction to an accumulator: waits on upstreams are not gateway overhead.
class WaitClock {
 public:
  explicit WaitClock(std::chrono::nanoseconds& total) : total_(total), start_(MonoClock::now()) {}
  ~WaitClock() { total_ += MonoClock::now() - start_; }
  WaitClock(WaitClock const&) = delete;
  WaitClock& operator=(WaitClock const&) = delete;

 private:
  std::chrono::nanoseconds& total_;
  MonoTime start_;
};

/// While alive, a client disconnect or a shutdown closes the exchange's connection at once.
class AbortOnCancel {
 public:
  AbortOnCancel(http::Cancellation& cancellation, http::UpstreamExchange& exchange);
  ~AbortOnCancel() { cancellation_.remove(id_); }
  AbortOnCancel(AbortOnCancel const&) = delete;
  AbortOnCancel& operator=(AbortOnCancel const&) = delete;

 private:
  http::Cancellation& cancellation_;
  std::size_t id_;
};

/// How an attempt that got no (complete) answer failed: the transport error's rule, with a
/// timeout named by the clock that ran out (AttemptClock::timeoutReason). The retry deadline
/// ends the request: nothing follows it.
routing::FailurePolicy transportFailure(Error const& error, AttemptClock const& clock);

/// The outcome of an attempt that failed: failover when another candidate follows, failed for
/// the last one (and past the retry deadline, when none may follow).
AttemptOutcome failureOutcome(bool last, std::string_view reason);

/// The outcome of a relayed answer: the upstream's success, or the client's own error.
inline AttemptOutcome relayedOutcome(int status) {
  return status >= 400 ? AttemptOutcome::clientError() : AttemptOutcome::ok();
}

/// The client went away while its answer was being written: not an upstream failure.
void markClientGone(RequestContext& ctx, AttemptRecord& record);

/// Why a freeze was made, for the admin API and logs: "status 403: <start of the error body>".
/// The body is left out when it quotes the channel's key (some upstreams echo it).
std::string freezeReason(int status, std::string_view body, std::string_view key_secret);

/// How sending a request went (sendUpstreamRequest).
struct SendOutcome {
  std::optional<Error> error;   ///< none: the response head arrived
  bool connect_failed = false;  ///< no connection could be made (the exit may be at fault)
};

/// Takes a connection to `peer` from `pool` (a pooled one, else a new one within the connect
/// clock), writes `pieces` and waits for the response head into `exchange`. A pooled connection
/// the peer had reset (the write failed before a byte went out) is replaced once by a fresh one;
/// a request that was written is never resent. Time waited is added to `waited`; `cancellation`
/// closes the connection at once.
net::Task<SendOutcome> sendUpstreamRequest(http::UpstreamPool& pool, http::PeerAddress const& peer,
                                           std::array<std::string_view, 6> pieces,
                                           AttemptClock clock, config::Timeouts const& timeouts,
                                           http::Cancellation& cancellation,
                                           std::chrono::nanoseconds& waited,
                                           std::optional<http::UpstreamExchange>& exchange);

/// Reads a whole body expected to be at most `limit` bytes (an error document, or a non-streamed
/// answer to translate) before anything of it reaches the client: the retry deadline bounds it.
net::Task<Result<std::string>> readWholeBody(http::UpstreamExchange& exchange, AttemptClock clock,
                                             std::size_t limit);

}  // namespace llmux::proxy::forwarding

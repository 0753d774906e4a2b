#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/error.h"
#include "net/asio_types.h"
#include "net/wake_list.h"
#include "proxy/attempt_gates.h"
#include "proxy/forwarder_support.h"
#include "proxy/race_arming.h"
#include "proxy/request_context.h"
#include "proxy/services.h"
#include "routing/candidates.h"
#include "routing/failure_policy.h"
#include "routing/planner.h"
#include "translate/errors.h"

namespace llmux::http {
class UpstreamPool;
class UpstreamExchange;
}  // namespace llmux::http
namespace llmux::telemetry {
class Counter;
}

namespace llmux::proxy {

/// Serves a routed, inspected request from its ordered candidates: one attempt after another
/// until one answers, failing over only while nothing has reached the client (the commit point is
/// the first body byte of a successful answer); after that, bytes are relayed as they arrive.
///
/// Thread safety: one instance per worker (it uses the worker's connection pool).
class Forwarder {
 public:
  Forwarder(GatewayServices& services, http::UpstreamPool& pool);

  /// Answers the client (relayed response or an error in its protocol's shape) and fills
  /// `ctx.record` with the attempts and the outcome.
  /// Candidates are tried in order within the retry budget (Settings::retry); every attempt is
  /// reported to the router and its answer matched against the freeze rules.
  net::Task<void> forward(RequestContext& ctx, std::vector<routing::PlannedCandidate> candidates);

  /// How one attempt ended.
  struct AttemptResult {
    enum class Kind {
      Answered,  ///< the client got a response (relayed success or relayed upstream error)
      Failed,    ///< nothing reached the client: the next candidate may try
      Aborted,   ///< the client left or the gateway is shutting down: stop
    };
    Kind kind = Kind::Failed;
    routing::FailurePolicy policy;
    int status = 0;                    ///< upstream status when a head arrived
    std::optional<Error> error;        ///< transport failure
    std::optional<Millis> retry_after; ///< from a 429
  };

 private:
  net::Task<AttemptResult> attempt(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                                   bool last, AttemptRecord& record);
  /// Relays a successful answer (`headers`: what the client gets) from its first body piece on.
  net::Task<AttemptResult> relay(RequestContext& ctx, http::UpstreamExchange& exchange,
                                 AttemptRecord& record, forwarding::AttemptClock clock,
                                 HeaderList headers, bool last);
  /// A same-protocol error answer (status >= 300): read, judged (judgeErrorAnswer), then failed
  /// over or relayed to the client cleaned of the channel key.
  net::Task<AttemptResult> answerPassthroughError(RequestContext& ctx,
                                                  http::UpstreamExchange& exchange,
                                                  AttemptRecord& record,
                                                  routing::PlannedCandidate const& candidate,
                                                  forwarding::AttemptClock clock, bool last,
                                                  AttemptResult result);
  // Translated attempts (translated_relay.cpp): an upstream of another protocol.
  net::Task<AttemptResult> answerTranslatedError(RequestContext& ctx, http::UpstreamExchange& exchange,
                                                 AttemptRecord& record, Protocol upstream,
                                                 AttemptResult result, bool last,
                                                 routing::PlannedCandidate const& candidate,
                                                 forwarding::AttemptClock clock);
  net::Task<AttemptResult> relayTranslated(RequestContext& ctx, http::UpstreamExchange& exchange,
                                           AttemptRecord& record, Protocol upstream,
                                           forwarding::AttemptClock clock, bool last);
  /// A translated stream reported an error before any content (translated_relay.cpp).
  net::Task<AttemptResult> answerStreamFailure(RequestContext& ctx, AttemptRecord& record,
                                               translate::Event const& failure, bool last);
  /// What an upstream's error answer (status >= 300) means, judged the same way on the
  /// passthrough and the translated paths.
  struct AnswerJudgement {
    routing::FailurePolicy policy;
    translate::UpstreamError error;  ///< the upstream's error as its protocol words it
    bool hide_answer = false;  ///< a rejected channel key: never shown to the client
    bool fail_over = false;    ///< another candidate takes the request; nothing is sent
    bool retryable() const { return policy.verdict != routing::Verdict::Relay; }
  };
  /// Classifies the answer by its status and `body` (a rejected key, a content-policy refusal,
  /// a context overflow — the client's when `overflow_is_clients`), lets the freeze rules and
  /// key pauses learn from it, and decides between failing over and answering the client.
  AnswerJudgement judgeErrorAnswer(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                                   Protocol upstream, int status, HeaderList const& headers,
                                   std::string_view body, bool overflow_is_clients, bool last,
                                   std::optional<Millis>& retry_after);
  /// After an error answer: the freeze rules are matched (a match freezes its object), else a
  /// key the answer blames sits out a while (KeyHealth: 429's retry-after, 401/403).
  void learnFromAnswer(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                       routing::FailurePolicy const& policy, int status, HeaderList const& headers,
                       std::string_view body, std::optional<Millis>& retry_after);
  /// Reports a finished attempt to the router (statistics, affinity, headroom); returns the
  /// outcome it was classified as.
  routing::Outcome report(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                          AttemptResult const& result, AttemptRecord& record);
  /// A finished attempt reported to the router and to its breakers (`probe`: it held the
  /// half-open breaker's probe slot).
  routing::Outcome concludeAttempt(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                                   AttemptResult const& result, AttemptRecord& record, bool probe);
  /// Shows attempt `number` (from 1) of the request in its running request-log row, as it starts
  /// and as it ends (docs/operations.md, "Request log").
  void showAttempt(RequestContext const& ctx, std::size_t number, AttemptRecord const& record);
  /// What a candidate is (channel, key label, upstream model and protocol) and how it is placed
  /// (strategy, score, factors, depth), into its attempt's record.
  static void describePlacement(RequestContext const& ctx, routing::PlannedCandidate const& candidate,
                                AttemptRecord& record);
  /// A candidate's token buckets: `passed` when taken (or none are configured, or the last
  /// candidate waited its maximum and goes anyway); `demands` and `reserved` settle them.
  struct BucketPass {
    std::vector<shared_state::OwnedBucketDemand> demands;
    shared_state::BucketGrant grant;
    std::int64_t reserved = 0;
    bool passed = true;
  };
  // Racing (raced_attempt.cpp, docs/racing.md).
  struct Race;
  struct Branch;
  /// The attempt of `candidates[primary]` as the primary of a race: when it has not delivered its
  /// first content by the threshold, shadows from the rest of the plan run too, and the first
  /// branch to claim answers the client. The indexes of the candidates run as shadows go into
  /// `raced` (failover does not try them again); `attempts` counts every branch.
  net::Task<AttemptResult> race(RequestContext& ctx,
                                std::span<routing::PlannedCandidate const> candidates,
                                std::size_t primary, bool last, bool probe, BucketPass buckets,
                                RaceArming const& arming, std::vector<std::size_t>& raced,
                                std::size_t& attempts);
  /// One branch's attempt, start to end.
  net::Task<void> runBranch(Race& race, Branch& branch);
  /// Whether the hedge budget (the fleet's through Redis, else this replica's) has room for one
  /// more shadow, which it then takes; a refusal is counted.
  net::Task<bool> hedgeBudgetAllows(Race& race);
  /// Shadows for a primary past its threshold, started (none when nothing fits: counted).
  void startShadows(Race& race);
  /// Every branch ended: reports them, learns, and merges the winner's answer into `ctx`.
  AttemptResult settleRace(RequestContext& ctx, Race& race, std::vector<std::size_t>& raced,
                           std::size_t& attempts);
  /// Takes `demands` (not empty: a candidate without buckets skips this coroutine); the last
  /// candidate waits for them, at most until `no_attempt_after`.
  net::Task<BucketPass> takeBuckets(RequestContext& ctx,
                                    std::vector<shared_state::OwnedBucketDemand> demands, bool last,
                                    MonoTime no_attempt_after);
  // The gateway's own answers are coroutines of their own: their temporaries would otherwise sit
  // in forward()'s frame for the whole life of every stream.
  /// No attempt could start before the retry deadline (504).
  net::Task<void> answerDeadlinePassed(RequestContext& ctx);
  /// The gateway is shutting down before the answer started (503).
  net::Task<void> answerShuttingDown(RequestContext& ctx);
  /// No attempt was made: every candidate's breaker refused (a 503 with retry-after).
  net::Task<void> answerAllRefused(RequestContext& ctx, BreakerRefusals const& refusals);
  /// Breaker state changes since the last call, into the metrics and the log.
  void publishBreakerTransitions();
  net::Task<void> answerExhausted(RequestContext& ctx, AttemptResult const& last, std::size_t attempts);

  GatewayServices& services_;
  http::UpstreamPool& pool_;
  telemetry::Counter& races_armed_;  ///< llmux_races_total{event="armed"}, resolved once
  net::WakeList thresholds_;         ///< the races of this worker waiting for their threshold
};

}  // namespace llmux::proxy

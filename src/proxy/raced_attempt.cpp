// Racing (docs/racing.md): the primary's attempt runs as a branch; past its threshold, shadows
// from the rest of the plan run beside it, each an ordinary attempt with a writer and a request
// state of its own. The first branch to write claims the client; the others are cancelled.
#include <algorithm>
#include <boost/asio/co_spawn.hpp>
#include <boost/container/small_vector.hpp>
#include <boost/asio/this_coro.hpp>
#include <exception>
#include <memory>

#include "http/response_writer.h"
#include "net/asio_types.h"
#include "proxy/attempt_gates.h"
#include "proxy/branch_writer.h"
#include "proxy/forwarder.h"
#include "racing/model_family.h"
#include "racing/racing_state.h"
#include "racing/shadow_choice.h"
#include "racing/threshold_registry.h"
#include "routing/breakers.h"
#include "routing/freezes.h"
#include "routing/router_state.h"
#include "shared_state/shared_limits.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {

using net::Task;
using namespace forwarding;

/// One branch of a race: an attempt with its own writer and record. A shadow has a request state
/// of its own (a copy made when it starts); the primary works on the request's, with its writer
/// swapped in while it runs (a race that never starts copies nothing).
struct Forwarder::Branch {
  /// `client`: the client's writer (the request's, before the primary's writer is swapped in).
  Branch(RequestContext& parent, http::ResponseWriter& client, racing::ClaimGate& gate, int index,
         RaceReferee& referee, bool quality_gate)
      : index(index), writer(client, gate, index, referee, quality_gate) {
    if (index == 0) {
      ctx = &parent;
    } else {
      own.emplace(parent, writer);
      ctx = &*own;
    }
  }

  int const index;  ///< 0: the primary
  BranchWriter writer;
  std::optional<RequestContext> own;  ///< a shadow's request state
  RequestContext* ctx = nullptr;      ///< what the branch works on
  std::size_t candidate = 0;  ///< into the race's candidates
  bool last = false;          ///< relays its own error when it fails (the primary alone may)
  bool probe = false;         ///< holds its half-open breaker's probe slot
  BucketPass buckets;
  std::optional<racing::ShadowSlots::Slot> slot;  ///< a shadow's place in max_shadows_in_flight
  AttemptRecord record;
  AttemptResult result;
  MonoTime started{};
  Millis sought_after{0};  ///< a shadow: how long after the primary's start it was sought
  bool attempted = false;  ///< it got as far as an attempt (a shadow may fail its buckets)
  bool done = false;
  bool lost_race = false;  ///< still running when another branch claimed: a silent loser
  std::exception_ptr failure;
};

/// The race of one request: its branches, the gate, and the coordinator's wake-up.
struct Forwarder::Race final : RaceReferee {
  Race(RequestContext& parent, std::span<routing::PlannedCandidate const> candidates,
       RaceArming const& arming, std::vector<std::size_t> const& raced, net::Executor executor)
      : parent(parent),
        client(*parent.response),
        wait_before(parent.upstream_wait),
        candidates(candidates),
        arming(arming),
        raced(raced),
        executor(executor) {}

  bool othersMayAnswer(int branch) const override {
    // Shadows start only while the primary runs, so a branch alone now stays alone. A branch
    // that declined will not answer either.
    return std::any_of(branches.begin(), branches.end(), [branch](auto const& other) {
      return other->index != branch && !other->done && other->writer.declined().empty();
    });
  }
  void claimed(int branch) override {
    for (auto& other : branches) {
      if (other->index == branch || other->done) continue;
      other->lost_race = true;
      other->writer.lose();
    }
    signal();
  }
  /// Wakes the coordinator when it waits for the shadows (a branch ended or claimed).
  void signal() {
    if (settled) settled->cancel();
  }
  bool allDone() const {
    return std::all_of(branches.begin(), branches.end(), [](auto const& b) { return b->done; });
  }
  Branch& primary() { return *branches.front(); }

  RequestContext& parent;
  http::ResponseWriter& client;            ///< the client's writer, which every branch wraps
  std::chrono::nanoseconds wait_before;    ///< the request's upstream waits before the race
  std::span<routing::PlannedCandidate const> candidates;
  RaceArming const& arming;
  std::vector<std::size_t> const& raced;  ///< candidates earlier races of the request ran
  racing::ClaimGate gate;
  std::optional<Branch> primary_branch;  ///< in the race (and so the request's frame): no allocation
  std::vector<std::unique_ptr<Branch>> shadow_branches;
  /// Every branch, the primary first. At most 1 + the policy's max shadows (3).
  boost::container::small_vector<Branch*, 4> branches;
  net::Executor executor;  ///< the request's: shadows run on it
  /// The race's place in the worker's threshold wake-ups while it waits for its threshold.
  std::optional<net::WakeList::Entry> threshold_entry;
  /// The coordinator's wait for the shadows, made only when they run; cancelled to wake it.
  std::optional<net::Timer> settled;
  bool shadows_sought = false;  ///< the threshold passed (shadows sent or not)
  /// The request's attempts before the race, and the branches started so far: a branch's number
  /// in the running request-log row (settling renumbers them in branch order).
  std::size_t attempts_before = 0;
  std::size_t branches_started = 0;
  MonoTime threshold_at = MonoTime::max();
  Millis threshold{0};
  racing::ModelFamily family = racing::ModelFamily::Other;
  racing::Stage stage = racing::Stage::StreamFirstContent;
};

namespace {

racing::Combination combinationOf(config::Channel const& channel,
                                  routing::PlannedCandidate const& candidate,
                                  std::string_view task_class) {
  return {channel.keys[candidate.key].id, std::string(candidate.upstream_model),
          std::string(task_class)};
}

/// What latency learning concluded, logged (the router hears of it through LatencyRouterSync).
void logLearning(racing::LatencyMemory::Change change, racing::Combination const& combination,
                 std::string_view key_label) {
  if (change == racing::LatencyMemory::Change::Degraded) {
    telemetry::logWarn("racing: {} {} ({}) is slow to its first token: degraded", key_label,
                       combination.upstream_model, combination.task_class);
  } else if (change == racing::LatencyMemory::Change::Recovered) {
    telemetry::logInfo("racing: {} {} ({}) is fast again: recovered", key_label,
                       combination.upstream_model, combination.task_class);
  }
}

}  // namespace

Task<Forwarder::AttemptResult> Forwarder::race(
    RequestContext& ctx, std::span<routing::PlannedCandidate const> candidates, std::size_t primary,
    bool last, bool probe, BucketPass buckets, RaceArming const& arming,
    std::vector<std::size_t>& raced, std::size_t& attempts) {
  auto const& settings = ctx.catalog->settings();
  auto const& channel = settings.channels[candidates[primary].channel];
  Race race(ctx, candidates, arming, raced, co_await boost::asio::this_coro::executor);
  // However the race ends (an exception too): the request's writer is its own again, and the
  // race waits for no threshold.
  struct EndRace {
    Race& race;
    net::WakeList& thresholds;
    ~EndRace() {
      race.parent.response = &race.client;
      if (race.threshold_entry) thresholds.remove(*race.threshold_entry);
    }
  } end_race{race, thresholds_};

  // The threshold: the p90 of the family's recent samples at this stage, within the floor (the
  // policy's, raised for reasoning) and the ceiling (the channel's own clock for that stage).
  bool const stream = ctx.profile.stream;
  race.stage = stream ? racing::Stage::StreamFirstContent : racing::Stage::NonStreamCompletion;
  race.family = racing::familyOf(candidates[primary].upstream_model);
  auto const tier = reasoningTierOf(ctx.profile.reasoning);
  Millis const floor = stream ? racing::streamFloorForReasoning(arming.policy.stream_floor, tier)
                              : arming.policy.non_stream_floor;
  Millis const ceiling =
      stream ? firstTokenTimeout(channel.timeouts, tier) : channel.timeouts.first_byte;
  race.threshold = services_.racing.thresholds.threshold(
      race.family, race.stage, racing::boundsFor(floor, ceiling), MonoClock::now());
  race.attempts_before = ctx.record.attempts.size();
  auto& first = race.primary_branch.emplace(ctx, race.client, race.gate, 0, race, arming.tools);
  race.branches.push_back(&first);
  first.candidate = primary;
  first.last = last;
  first.probe = probe;
  first.buckets = std::move(buckets);
  first.started = MonoClock::now();

  // Past the threshold, with the primary still running and nothing claimed, shadows join it.
  race.threshold_entry = thresholds_.add(first.started + race.threshold, [this, &race] {
    race.threshold_entry.reset();  // it ran: nothing to remove
    if (race.primary().done || race.gate.claimed()) return;
    race.shadows_sought = true;
    startShadows(race);
  });

  // The primary runs here, in the request's own coroutine: a race that never starts costs no
  // spawned coroutine and no wake-up.
  ctx.response = &first.writer;
  try {
    co_await runBranch(race, first);
  } catch (...) {
    first.failure = std::current_exception();  // rethrown once the shadows ended
  }
  ctx.response = &race.client;
  first.done = true;
  if (race.threshold_entry) {
    thresholds_.remove(*race.threshold_entry);
    race.threshold_entry.reset();
  }
  // Shadows still running: the first to claim answers (if none did yet), the losers end at once.
  while (!race.allDone()) {
    race.settled.emplace(race.executor, MonoTime::max());
    co_await race.settled->async_wait(net::kUseTuple);
    race.settled.reset();
  }
  co_return settleRace(ctx, race, raced, attempts);
}

void Forwarder::startShadows(Race& race) {
  auto& state = services_.racing;
  auto& counters = state.counters;
  auto& races = services_.metrics_registry.counter(telemetry::MetricId::RacesTotal);
  RequestContext& ctx = race.parent;
  auto const& settings = ctx.catalog->settings();
  auto const& primary = race.candidates[race.primary().candidate];
  auto const& primary_channel = settings.channels[primary.channel];
  MonoTime const now = MonoClock::now();
  WallTime const wall_now = services_.clock.wallNow();
  counters.triggered.fetch_add(1, std::memory_order_relaxed);
  races.labels({"triggered"}).inc();
  services_.metrics_registry.gauge(telemetry::MetricId::RacingThresholdSeconds)
      .labels({racing::familyName(race.family), racing::stageName(race.stage)})
      .set(std::chrono::duration<double>(race.threshold).count());
  // A race started for the primary is slow evidence against it.
  auto primary_combination = combinationOf(primary_channel, primary, race.arming.task_class);
  logLearning(state.latency.noteSlow(primary_combination, wall_now), primary_combination,
              primary_channel.keys[primary.key].label);

  // The candidates as the shadow choice sees them, with this moment's pauses, freezes and
  // breakers (buckets are tried when a shadow starts: try, never wait).
  std::vector<racing::ShadowCandidate> described;
  described.reserve(race.candidates.size());
  for (std::size_t i = 0; i < race.candidates.size(); ++i) {
    auto const& candidate = race.candidates[i];
    auto const& channel = settings.channels[candidate.channel];
    auto const& key = channel.keys[candidate.key];
    racing::ShadowCandidate& d = described.emplace_back();
    d.channel = channel.name;
    d.key_id = key.id;
    d.upstream_model = candidate.upstream_model;
    d.racing_enabled = channelRaces(channel);
    // Candidates before the primary were tried already (or skipped), as were earlier shadows.
    bool const tried = i < race.primary().candidate ||
                       std::find(race.raced.begin(), race.raced.end(), i) != race.raced.end();
    d.available = !tried && !services_.key_health.pausedUntil(key.id, candidate.upstream_model) &&
                  !services_.freezes.frozen(channel.name, key.id, candidate.upstream_model) &&
                  !services_.breakers.refusing(channel.name, candidate.upstream_model,
                                               channel.breaker, services_.clock.now());
    d.slow =
        state.latency.degraded(combinationOf(channel, candidate, race.arming.task_class), wall_now);
    d.fails_tools = state.tool_failures.failing(key.id, candidate.upstream_model, wall_now);
    if (auto price = settings.prices.find(std::string(candidate.upstream_model));
        price != settings.prices.end()) {
      d.price = price->second.input + price->second.output;
    }
  }
  auto const choice = racing::chooseShadows(described, race.primary().candidate, race.arming.policy,
                                            race.arming.tools);
  if (choice.shadows.empty()) {
    counters.no_candidate.fetch_add(1, std::memory_order_relaxed);
    races.labels({"no_candidate"}).inc();
    telemetry::logDebug("request {}: racing: no shadow ({})", ctx.request_id, choice.none_because);
    return;
  }
  Millis const elapsed = std::chrono::duration_cast<Millis>(now - race.primary().started);
  for (std::size_t index : choice.shadows) {
    auto const& candidate = race.candidates[index];
    auto const& channel = settings.channels[candidate.channel];
    auto slot = state.slots.tryAcquire();
    if (!slot) {
      counters.blocked_by_cap.fetch_add(1, std::memory_order_relaxed);
      races.labels({"blocked_cap"}).inc();
      break;
    }
    routing::BreakerDecision admission = services_.breakers.admit(
        channel.name, candidate.upstream_model, channel.breaker, services_.clock.now());
    if (admission.admission == routing::Admission::Refused) continue;
    services_.metrics_registry.gauge(telemetry::MetricId::ShadowsInFlight).get().inc();
    auto& shadow = *race.shadow_branches.emplace_back(std::make_unique<Branch>(
        ctx, race.client, race.gate, static_cast<int>(race.branches.size()), race,
        race.arming.tools));
    race.branches.push_back(&shadow);
    shadow.candidate = index;
    shadow.probe = admission.admission == routing::Admission::Probe;
    shadow.slot.emplace(std::move(*slot));
    shadow.buckets.demands =
        bucketDemandsFor(channel, channel.keys[candidate.key], candidate.upstream_model);
    shadow.started = MonoClock::now();
    shadow.sought_after = elapsed;
    boost::asio::co_spawn(race.executor, runBranch(race, shadow),
                          [&race, &shadow](std::exception_ptr e) {
                            shadow.failure = e;
                            shadow.done = true;
                            race.signal();
                          });
  }
}

Task<void> Forwarder::runBranch(Race& race, Branch& branch) {
  auto const& candidate = race.candidates[branch.candidate];
  auto const& channel = branch.ctx->catalog->settings().channels[candidate.channel];
  auto const& key = channel.keys[candidate.key];
  if (branch.index > 0) {
    // A shadow goes only within the hedge budget and with its bucket tokens (never waits).
    if (!co_await hedgeBudgetAllows(race)) co_return;
    if (branch.writer.lost()) co_return;  // another branch claimed meanwhile
    if (!branch.buckets.demands.empty()) {
      branch.buckets = co_await takeBuckets(*branch.ctx, std::move(branch.buckets.demands), false,
                                            MonoTime::max());
      if (!branch.buckets.passed) co_return;
    }
    auto& state = services_.racing;
    state.counters.shadows_sent.fetch_add(1, std::memory_order_relaxed);
    services_.metrics_registry.counter(telemetry::MetricId::ShadowsSentTotal)
        .labels({channel.name})
        .inc();
    telemetry::logInfo("request {}: racing: shadow {} {} {} after {} ms (threshold {} ms, {})",
                       branch.ctx->request_id, channel.name, key.label, candidate.upstream_model,
                       branch.sought_after.count(), race.threshold.count(),
                       config::costPreferenceName(race.arming.preference));
  }
  describePlacement(*branch.ctx, candidate, branch.record);
  branch.record.role = branch.index == 0 ? AttemptRole::Primary : AttemptRole::Shadow;
  branch.attempted = true;
  // The request's row, not the shadow's copy of it: the row may have opened since the copy.
  showAttempt(race.parent, race.attempts_before + ++race.branches_started, branch.record);
  services_.router_state.attemptStarted(key.id, key, branch.ctx->prompt_tokens);
  branch.result = co_await attempt(*branch.ctx, candidate, branch.last, branch.record);
  if (branch.buckets.grant.taken && branch.ctx->record.usage && branch.writer.won()) {
    co_await services_.limits.settleBuckets(std::move(branch.buckets.demands), branch.buckets.grant,
                                            branch.buckets.reserved,
                                            branch.ctx->record.usage->total());
  }
}

Task<bool> Forwarder::hedgeBudgetAllows(Race& race) {
  auto& state = services_.racing;
  double const share = race.parent.catalog->settings().racing.hedge_budget;
  // With Redis the fleet's budget decides; without it (or when it does not answer) this
  // replica's.
  std::optional<bool> allowed;
  if (services_.limits.sharesHedgeBudget())
    allowed = co_await services_.limits.takeHedgeShadow(share);
  if (!allowed) allowed = state.budget.tryTakeShadow(MonoClock::now());
  if (!*allowed) {
    state.counters.blocked_by_budget.fetch_add(1, std::memory_order_relaxed);
    services_.metrics_registry.counter(telemetry::MetricId::RacesTotal)
        .labels({"blocked_budget"})
        .inc();
  }
  co_return *allowed;
}

Forwarder::AttemptResult Forwarder::settleRace(RequestContext& ctx, Race& race,
                                               std::vector<std::size_t>& raced,
                                               std::size_t& attempts) {
  auto& state = services_.racing;
  auto const& settings = ctx.catalog->settings();
  WallTime const wall_now = services_.clock.wallNow();
  MonoTime const now = MonoClock::now();
  // The race waited (upstream time, not gateway overhead) as long as its answering branch's path:
  // until that branch started, then its own waits; without a winner, the longest path. The
  // primary's waits are already in the request's state (it works on it).
  auto path = [&](Branch const& branch) {
    auto own = branch.index == 0 ? ctx.upstream_wait - race.wait_before : branch.ctx->upstream_wait;
    return (branch.started - race.primary().started) + own;
  };
  std::chrono::nanoseconds waited{0};
  if (auto won = race.gate.winner()) {
    waited = path(*race.branches[static_cast<std::size_t>(*won)]);
  } else {
    for (auto const& branch : race.branches) waited = std::max(waited, path(*branch));
  }
  ctx.upstream_wait = race.wait_before + waited;
  bool const shadows_ran = race.branches.size() > 1;
  std::optional<int> winner = race.gate.winner();
  std::exception_ptr failure;
  AttemptResult answer;  // the winner's, else the last failure's
  answer.kind = AttemptResult::Kind::Failed;
  bool have_failure = false;

  for (auto& owned : race.branches) {
    Branch& branch = *owned;
    if (branch.failure && !failure) failure = branch.failure;
    if (branch.index > 0) {
      raced.push_back(branch.candidate);
      services_.metrics_registry.gauge(telemetry::MetricId::ShadowsInFlight).get().dec();
      branch.slot.reset();
    }
    auto const& candidate = race.candidates[branch.candidate];
    auto const& channel = settings.channels[candidate.channel];
    auto const& key = channel.keys[candidate.key];
    // A branch that tells the breaker nothing gives its admission (a probe slot) back.
    auto giveBackAdmission = [&] {
      services_.breakers.record(channel.name, candidate.upstream_model, channel.breaker,
                                routing::AttemptSignal::Ignored, branch.probe,
                                services_.clock.now());
    };
    if (!branch.attempted) {  // a shadow without bucket tokens or hedge budget
      giveBackAdmission();
      continue;
    }
    ++attempts;
    AttemptRecord& record = branch.record;
    AttemptResult& result = branch.result;
    bool const won = winner && *winner == branch.index;

    // Stream samples from every branch that delivered content, losers included; whole answers
    // from the winner only.
    if (race.stage == racing::Stage::StreamFirstContent && record.first_token_ms >= 0) {
      state.thresholds.record(race.family, race.stage,
                              Millis(static_cast<std::int64_t>(record.first_token_ms)), now);
    } else if (race.stage == racing::Stage::NonStreamCompletion && won) {
      state.thresholds.record(race.family, race.stage,
                              Millis(static_cast<std::int64_t>(record.duration_ms)), now);
    }
    if (branch.ctx->record.usage && !won) {
      // A loser's tokens, when it reported them: racing overhead, charged to the gateway key
      // with the winner's (RequestRecord::racing_overhead).
      std::int64_t tokens = branch.ctx->record.usage->total();
      state.counters.loser_tokens.fetch_add(static_cast<std::uint64_t>(tokens),
                                            std::memory_order_relaxed);
      services_.metrics_registry.counter(telemetry::MetricId::RacingLoserTokensTotal)
          .get()
          .inc(static_cast<double>(tokens));
      record.usage = branch.ctx->record.usage;
      if (!ctx.record.racing_overhead) ctx.record.racing_overhead = TokenUsage{};
      *ctx.record.racing_overhead += *branch.ctx->record.usage;
    }

    if (branch.lost_race) {
      // A silent loser: nothing for the router's statistics, the breakers or learning.
      record.outcome = AttemptOutcome::racingLost();
      record.duration_ms = msSince(branch.started);
      AttemptResult silent;
      silent.kind = AttemptResult::Kind::Aborted;
      report(*branch.ctx, candidate, silent, record);  // ends its in-flight count, as a client gone
      record.outcome_class = "racing_lost";  // the router took it as neither success nor failure
      giveBackAdmission();
      ctx.record.attempts.push_back(std::move(record));
      showAttempt(ctx, ctx.record.attempts.size(), ctx.record.attempts.back());
      continue;
    }
    if (!branch.writer.declined().empty()) {
      // An error answer or pseudo tool-call markup while another branch could still answer: a
      // failure of this candidate, nothing sent.
      std::string_view reason = branch.writer.declined();  // "pseudo_tool_call", "error_answer"
      if (reason == "error_answer" && !result.policy.reason.empty()) reason = result.policy.reason;
      if (branch.writer.declined() == "pseudo_tool_call") {
        state.tool_failures.note(key.id, candidate.upstream_model, wall_now);
        result.policy = {routing::Verdict::NextChannel, "pseudo_tool_call"};
      }
      result.kind = AttemptResult::Kind::Failed;
      record.outcome = AttemptOutcome::failover(reason);
    }
    if (won && shadows_ran && record.outcome.is(AttemptOutcome::Kind::Ok)) {
      record.outcome = AttemptOutcome::racingWon();
    }
    concludeAttempt(*branch.ctx, candidate, result, record, branch.probe);
    if (won) {
      answer = result;
      // The winner's answer is the request's.
      if (shadows_ran) record.usage = branch.ctx->record.usage;
      ctx.record.status = branch.ctx->record.status;
      ctx.record.error = branch.ctx->record.error;
      ctx.record.usage = branch.ctx->record.usage;
      ctx.record.channel = record.channel;
      ctx.record.key_label = record.key_label;
      ctx.dropped_logged = ctx.dropped_logged || branch.ctx->dropped_logged;
      if (branch.index > 0) {
        state.counters.won_by_shadow.fetch_add(1, std::memory_order_relaxed);
        services_.metrics_registry.counter(telemetry::MetricId::RacesTotal)
            .labels({"won_by_shadow"})
            .inc();
      } else if (shadows_ran) {
        state.counters.won_by_primary.fetch_add(1, std::memory_order_relaxed);
        services_.metrics_registry.counter(telemetry::MetricId::RacesTotal)
            .labels({"won_by_primary"})
            .inc();
      }
      Millis const first_token(static_cast<std::int64_t>(record.first_token_ms));
      bool const fast_with_nothing_to_recover =
          first_token * 2 < race.threshold && state.latency.empty();
      if (!shadows_ran && ctx.profile.stream && record.first_token_ms >= 0 &&
          !fast_with_nothing_to_recover) {
        // A plain stream teaches latency learning its first token against the threshold.
        auto combination = combinationOf(channel, candidate, race.arming.task_class);
        logLearning(
            state.latency.noteFirstToken(combination, first_token, race.threshold, wall_now),
            combination, key.label);
      }
    } else if (!winner && (branch.index == 0 || !have_failure ||
                           result.kind == AttemptResult::Kind::Aborted)) {
      // No winner: the primary's failure leads (a shadow's when the primary had none to give).
      if (!have_failure || answer.kind != AttemptResult::Kind::Aborted) answer = result;
      have_failure = true;
    }
    ctx.record.attempts.push_back(std::move(record));
    showAttempt(ctx, ctx.record.attempts.size(), ctx.record.attempts.back());
  }
  publishBreakerTransitions();
  if (!winner && !ctx.record.attempts.empty()) {
    ctx.record.channel = ctx.record.attempts.back().channel;
    ctx.record.key_label = ctx.record.attempts.back().key_label;
  }
  if (failure) std::rethrow_exception(failure);
  if (!winner && ctx.response->cancellation().cancelled())
    answer.kind = AttemptResult::Kind::Aborted;
  return answer;
}

}  // namespace llmux::proxy

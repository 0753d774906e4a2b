#include "routing/planner.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>

#include "routing/freezes.h"
#include "routing/hop_order.h"
#include "routing/key_health.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "routing/scoring.h"

namespace llmux::routing {

using config::Strategy;

namespace {

/// `value` as "%.4g" prints it. Whole numbers under 10^4 (most factors are exactly 1 or 0) skip
/// the general conversion, which costs a few hundred instructions a number.
char* appendFactor(char* out, char* end, double value) {
  bool const whole = value > -1e4 && value < 1e4 && value == static_cast<double>(static_cast<int>(value)) &&
                     !(value == 0 && std::signbit(value));
  if (whole) return std::to_chars(out, end, static_cast<int>(value)).ptr;
  return std::to_chars(out, end, value, std::chars_format::general, 4).ptr;
}

}  // namespace

std::string formatFactors(Factors const& f) {
  // Every attempt's record carries this line: built with std::to_chars (snprintf's format
  // parsing and locale cost more than the rest of the planning).
  std::pair<char const*, double> const fields[] = {
      {"score=", f.score},       {" weight=", f.weight},   {" headroom=", f.headroom},
      {" failures=", f.failures}, {" cooldown=", f.cooldown}, {" affinity=", f.affinity},
      {" billing=", f.billing},   {" yield=", f.yield},       {" performance=", f.performance},
      {" latency=", f.latency}};
  char text[320];
  char* out = text;
  char* const end = text + sizeof text;
  for (auto const& [name, value] : fields) {
    for (char const* c = name; *c != '\0'; ++c) *out++ = *c;
    out = appendFactor(out, end, value);
  }
  return std::string(text, out);
}

namespace {

/// One model to serve, in the order the request falls back. The name views the request's or the
/// configuration's string.
struct Hop {
  std::string_view model;              ///< client-side name
  std::optional<std::size_t> channel;  ///< only this channel (a group member's, `channel/model`)
  bool gated = false;                  ///< a fallback: the capability gate applies
};

/// Expands a name into hops: a group's members in order, then the `fallbacks:` of every hop so
/// far in order, then theirs (breadth first: a model's own list comes before its fallbacks'
/// fallbacks). `visited` holds (model, channel) pairs so a chain can never loop. The lists are
/// the caller's scratch, reused from plan to plan.
class Expander {
 public:
  using Visit = std::pair<std::string_view, std::optional<std::size_t>>;

  Expander(Catalog const& catalog, std::vector<Hop>& hops, std::vector<Visit>& visited,
           std::vector<std::string_view>& pending)
      : catalog_(catalog), hops_(hops), visited_(visited), pending_(pending) {
    hops_.clear();
    visited_.clear();
    pending_.clear();
  }

  void expand(std::string_view name, std::optional<std::size_t> channel) {
    add(name, channel, false);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      for (auto const& fallback : catalog_.fallbacksFor(pending_[i])) add(fallback, std::nullopt, true);
    }
  }

 private:
  void add(std::string_view name, std::optional<std::size_t> channel, bool gated) {
    for (auto const& [model, only] : visited_) {
      if (model == name && only == channel) return;
    }
    visited_.emplace_back(name, channel);
    if (auto const* group = channel ? nullptr : catalog_.group(name)) {
      for (std::size_t i = 0; i < group->members.size(); ++i) {
        auto const& member = group->members[i];
        std::optional<std::size_t> only;
        if (!member.channel.empty()) {
          only = catalog_.channelIndex(member.channel);
          if (!only) continue;  // a disabled channel
        }
        add(member.model, only, gated || i > 0);  // members after the first are fallbacks
      }
    } else {
      hops_.push_back(Hop{name, channel, gated});
    }
    pending_.push_back(name);
  }

  Catalog const& catalog_;
  std::vector<Hop>& hops_;
  std::vector<Visit>& visited_;
  std::vector<std::string_view>& pending_;  ///< names whose fallbacks come next, in order
};

/// An unsigned integer that orders like the double (not NaN; -0 before +0, scores are never -0).
std::uint64_t orderedBits(double value) {
  std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

/// What a strategy orders a hop's candidates by, smallest first (OrderFields: tier, first, flag,
/// second, then configuration order). The tier counts the model's priorities from the highest
/// (PlanChannel::priority_rank, `priorities` of them), the demoted after all the others:
/// - intelligent, fast: the demoted last; priority, higher first (the operator's word: a backup
///   stays a backup however well it scores); score, higher first; passthrough first; equals in
///   all of these in a random order weighted by the candidate's weight (key_rank), so that equal
///   candidates share the load by weight instead of the first in the configuration taking it all;
/// - sequential: the demoted last; priority, higher first; passthrough first; then channel and
///   key in configuration order;
/// - random: the demoted last; priority; then a random channel and a random key in it;
/// - model-random: the demoted last; a random channel and a random key (priorities ignored);
/// - global-random: the demoted last; a random key.
/// Written in place, every field (`out` is reused from an earlier plan): a small struct returned
/// by value is stored in pieces and then copied in wider loads, which stall on those stores.
void orderFields(Strategy strategy, std::uint32_t priority_rank, std::uint32_t priorities, double score,
                 bool passthrough, bool demoted, std::uint64_t channel_rank, std::uint64_t key_rank, OrderFields& out) {
  std::uint64_t by_priority = (demoted ? priorities : 0u) + priority_rank;
  switch (strategy) {
    case Strategy::Intelligent:
    case Strategy::Fast:
      out.tier = by_priority;
      out.first = ~orderedBits(score);
      out.second = key_rank;
      out.flag = passthrough ? 0 : 1;
      return;
    case Strategy::Sequential:
      out.tier = by_priority * 2 + (passthrough ? 0 : 1);
      out.first = out.second = out.flag = 0;
      return;
    case Strategy::Random:
      out.tier = by_priority;
      out.first = channel_rank;
      out.second = key_rank;
      out.flag = 0;
      return;
    case Strategy::ModelRandom:
      out.tier = demoted ? 1 : 0;
      out.first = channel_rank;
      out.second = key_rank;
      out.flag = 0;
      return;
    case Strategy::GlobalRandom:
      out.tier = demoted ? 1 : 0;
      out.first = key_rank;
      out.second = out.flag = 0;
      return;
  }
}

/// The bound of orderFields' tiers.
std::uint64_t tierBound(Strategy strategy, std::uint32_t priorities) {
  switch (strategy) {
    case Strategy::Sequential: return 4 * std::uint64_t{priorities};
    case Strategy::ModelRandom:
    case Strategy::GlobalRandom: return 2;
    default: return 2 * std::uint64_t{priorities};
  }
}

/// A random rank whose order puts an item first with a chance proportional to its weight (the
/// exponential race: -ln(u) / weight, smallest first). Costs a logarithm: used only when the
/// configuration has weights other than 1.
std::uint64_t weightedRank(Rng& rng, double weight) {
  double rank = -std::log(1.0 - rng.uniform()) / std::max(weight, 1e-9);
  return static_cast<std::uint64_t>(std::min(rank * 1e15, 1.8e19));
}

/// Sequential's spreading among equals, as the gateway core did it: within each run of equal
/// tiers (same priority and passthrough-ness), a weighted rotation picks the leading channel
/// (weight 3 leads three times as often as weight 1, spread out, not in blocks), the others
/// follow in configuration order after it; each channel's keys rotate. Counters in `rotation`.
/// `order` holds draft indices; tiers from `demoted_tiers` on are the demoted candidates'.
void rotateEquals(std::uint32_t* begin, std::uint32_t* end, std::vector<PlannedCandidate> const& drafts,
                  std::vector<OrderFields> const& fields, std::uint64_t demoted_tiers, config::Settings const& settings,
                  Rotation& rotation) {
  std::vector<std::uint32_t*> blocks;  // where each channel's run starts
  for (std::uint32_t* group = begin; group != end;) {
    std::uint32_t* group_end = group + 1;
    while (group_end != end && fields[*group_end].tier == fields[*group].tier) ++group_end;
    blocks.clear();
    for (std::uint32_t* k = group; k != group_end; ++k) {
      if (blocks.empty() || drafts[*blocks.back()].channel != drafts[*k].channel) blocks.push_back(k);
    }
    blocks.push_back(group_end);
    std::size_t channels = blocks.size() - 1;
    for (std::size_t b = 0; b < channels; ++b) {
      auto const& channel = settings.channels[drafts[*blocks[b]].channel];
      auto n = static_cast<std::size_t>(blocks[b + 1] - blocks[b]);
      if (channel.keys.size() > 1 && n > 0) {
        auto first = static_cast<std::ptrdiff_t>(rotation.next("keys:" + channel.name) % n);
        std::rotate(blocks[b], blocks[b] + first, blocks[b + 1]);
      }
    }
    if (channels > 1) {
      PlannedCandidate const& head = drafts[*group];
      auto weight = [&](std::size_t b) {
        return static_cast<std::uint64_t>(std::max(settings.channels[drafts[*blocks[b]].channel].weight, 1));
      };
      std::uint64_t total = 0;
      for (std::size_t b = 0; b < channels; ++b) total += weight(b);
      std::string counter = "model:" + std::string(head.model) + "@" +
                            std::to_string(settings.channels[head.channel].priority) +
                            (head.passthrough ? "" : "/translated") +
                            (fields[*group].tier >= demoted_tiers ? "/demoted" : "");
      std::uint64_t slot = rotation.next(counter) % total;
      std::size_t leader = 0;
      for (; leader + 1 < channels && slot >= weight(leader); ++leader) slot -= weight(leader);
      std::rotate(group, blocks[leader], group_end);
    }
    group = group_end;
  }
}

/// The candidate's score factors (`weight` included) and their product, into `f`: every field,
/// in place like orderFields.
void scoreFactors(PlanKey const& key, CandidateState const& cs, SessionState const& session, bool session_model,
                  RequestNeeds const& needs, Strategy scoring, Factors& f) {
  f.weight = key.weight;
  f.headroom = 1;  // an exhausted candidate is left out, not scored
  f.affinity = 1;
  f.failures = failureFactor(cs.consecutive_failures, scoring);
  f.cooldown = cooldownFactor(cs.cooling);
  bool session_key = session.isLastKey(key.id);
  if (session.known) f.affinity = affinityFactor(session_key, session_model, session.failuresOn(key.id));
  f.billing = billingFactor(key.key->billing, needs.prompt_tokens, cs.quota_remaining);
  f.yield = session_key ? 1.0 : yieldFactor(cs.success_streak);  // a session's key never yields
  f.performance = performanceFactor(cs.success_rate, cs.first_token_ms, scoring);
  f.latency = latencyFactor(cs.latency_degraded);
  // The weight is not in the score (the heavier candidate would then always lead): it shares
  // the load among equal scores (weightedRank).
  f.score = f.headroom * f.failures * f.cooldown * f.affinity * f.billing * f.yield * f.performance * f.latency;
}

void addOnce(std::vector<std::string>& list, std::string item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

/// Why the gate ruled a hop out, for the client and the log: "no tools", "no vision", "context
/// window of 8000 tokens < a prompt of about 12000".
std::string gateReason(GateResult const& gate, config::ModelCapabilities const& caps,
                       RequestNeeds const& needs) {
  if (gate.missing == "context_window" && caps.context_window) {
    return "context window of " + std::to_string(*caps.context_window) +
           " tokens < a prompt of about " + std::to_string(needs.prompt_tokens);
  }
  return "no " + gate.missing;
}

/// Buffers reused from plan to plan (no allocation once warm). Indexed by draft: a candidate
/// while the plan is built, in configuration order within each hop.
struct Scratch {
  /// A new draft's index. Its entries keep an earlier plan's values (no initialisation per plan:
  /// the planner writes every field).
  std::uint32_t addDraft() {
    if (drafted == drafts.size()) {
      drafts.emplace_back();
      fields.emplace_back();
      upstream_ids.emplace_back();
    }
    return static_cast<std::uint32_t>(drafted++);
  }
  std::size_t drafted = 0;
  std::vector<Hop> hops;
  std::vector<Expander::Visit> visited;
  std::vector<std::string_view> pending;
  std::vector<PlannedCandidate> drafts;
  std::vector<OrderFields> fields;
  std::vector<std::uint32_t> upstream_ids;  ///< the draft's PlanChannel::upstream_id (duplicates)
  std::vector<std::uint32_t> order;         ///< draft indices, hop by hop, in the plan's order
  std::vector<std::size_t> hop_begin;
  std::vector<std::uint32_t> hop_priorities;  ///< the hop's ModelPlan::priorities
  std::vector<std::uint32_t> listed_before;
  std::vector<CandidateState> states;  ///< of the channel's keys, for the upstream model
};

}  // namespace

RoutePlan planRoute(Catalog const& catalog, RouterState const& state, KeyHealth const& health,
                    FreezeTable const& freezes, RouteRequest const& request, Rng& rng,
                    Rotation* rotation) {
  RoutePlan plan;
  auto const& settings = catalog.settings();

  std::optional<std::size_t> pinned;
  if (!request.pinned_channel.empty()) {
    pinned = catalog.channelIndex(request.pinned_channel);
    if (!pinned) {
      plan.status = RouteStatus::UnknownChannel;
      return plan;
    }
  }

  thread_local Scratch scratch;
  Scratch& s = scratch;

  // "channel/model" addresses one channel's model directly.
  Expander expander(catalog, s.hops, s.visited, s.pending);
  auto split = catalog.splitChannelModel(request.model);  // outlives the hops that view its name
  if (split) {
    expander.expand(split->second, split->first);
  } else {
    expander.expand(request.model, std::nullopt);
  }
  auto const& hops = s.hops;

  // One snapshot for every read of the learned state, bound to the catalog's key slots; the
  // clocks once per plan.
  RouterState::Snapshot snapshot(state, catalog);
  MonoTime now = snapshot.now();
  WallTime wall_now = state.clock().wallNow();
  SessionState session = snapshot.session(request.session);
  Strategy scoring = request.strategy == Strategy::Fast ? Strategy::Fast : Strategy::Intelligent;
  auto protocol = static_cast<std::size_t>(request.client_protocol);

  bool served = false;   // some hop's model has a channel (the pinned one, when pinned)
  bool skipped = false;  // some candidate was left out as paused, frozen or exhausted
  bool vetoed = false;   // some fallback was ruled out by the capability gate
  auto noteResume = [&](std::optional<MonoTime> at) {
    skipped = true;
    if (at && (!plan.resume_at || *at < *plan.resume_at)) plan.resume_at = at;
  };

  auto& drafts = s.drafts;
  s.drafted = 0;
  s.hop_begin.clear();
  s.hop_priorities.clear();
  // Most plans see no paused key and no freeze: ask once.
  bool any_paused = health.anyPaused();
  bool any_frozen = freezes.anyFrozen();
  bool weighted = catalog.hasWeights();

  for (std::size_t h = 0; h < hops.size(); ++h) {
    auto const& hop = hops[h];
    s.hop_begin.push_back(s.drafted);
    std::size_t earlier = s.drafted;  // drafts of previous hops, for the duplicate check
    ModelPlan const* model_plan = catalog.modelPlan(hop.model);
    s.hop_priorities.push_back(model_plan ? model_plan->priorities : 0);
    if (!model_plan) continue;

    for (auto const& route : model_plan->channels) {
      if (hop.channel && route.channel != *hop.channel) continue;
      if (pinned && route.channel != *pinned) continue;
      auto const& channel = settings.channels[route.channel];
      if (request.modality && !channel.media.enables(*request.modality)) continue;
      served = true;
      std::string const& upstream = *route.upstream;
      if (hop.gated && !request.modality) {  // media requests need nothing the table lists
        config::ModelCapabilities caps = capabilitiesFor(channel, *route.model, upstream);
        auto gate = gateFallback(caps, request.needs);
        if (gate.verdict == GateVerdict::Reject) {
          addOnce(plan.gate_skipped, std::string(hop.model) + " (" + channel.name +
                                         "): " + gateReason(gate, caps, request.needs));
          vetoed = true;
          continue;
        }
        if (gate.verdict == GateVerdict::Unknown) addOnce(plan.unknown_capabilities, std::string(hop.model));
      }
      std::uint32_t row = route.row[protocol];
      bool passthrough = (route.passthrough >> protocol) & 1u;
      if (request.modality) {
        row = static_cast<std::uint32_t>(channel.media.row);
        passthrough = true;
      }
      std::uint64_t channel_rank = rng.next();
      bool session_model = session.known && session.last_model == upstream;
      // A plan never lists a (channel, key, upstream model) twice: the keys earlier hops list.
      s.listed_before.clear();
      for (std::size_t i = 0; i < earlier; ++i) {
        if (drafts[i].channel == route.channel && s.upstream_ids[i] == route.upstream_id) {
          s.listed_before.push_back(static_cast<std::uint32_t>(drafts[i].key));
        }
      }
      PlanKey const* keys = model_plan->keys.data() + route.keys_begin;
      std::size_t key_count = route.keys_end - route.keys_begin;
      if (s.states.size() < key_count) s.states.resize(key_count);
      snapshot.candidates(keys, key_count, upstream, s.states.data());
      for (std::size_t k = 0; k < key_count; ++k) {
        PlanKey const& key = keys[k];
        if (!s.listed_before.empty() &&
            std::find(s.listed_before.begin(), s.listed_before.end(), key.index) != s.listed_before.end()) {
          continue;
        }
        if (auto until = any_paused ? health.pausedUntil(key.key->id, upstream) : std::nullopt) {
          noteResume(until);
          continue;
        }
        if (any_frozen) {
          if (auto freeze = freezes.frozen(channel.name, key.key->id, upstream)) {
            std::optional<MonoTime> back;
            if (freeze->until) back = now + std::chrono::duration_cast<MonoClock::duration>(*freeze->until - wall_now);
            noteResume(back);
            continue;
          }
        }
        CandidateState const& cs = s.states[k];
        if (cs.exhausted) {
          noteResume(cs.exhausted_until);
          continue;
        }

        std::uint32_t index = s.addDraft();
        PlannedCandidate& draft = drafts[index];
        draft.channel = route.channel;
        draft.row = row;
        draft.key = key.index;
        draft.model = ModelName(*route.model);
        draft.upstream_model = ModelName(upstream);
        draft.depth = static_cast<int>(h);
        draft.passthrough = passthrough;
        Factors& f = draft.factors;
        scoreFactors(key, cs, session, session_model, request.needs, scoring, f);
        std::uint64_t key_rank = weighted ? weightedRank(rng, f.weight) : rng.next();
        orderFields(request.strategy, route.priority_rank, model_plan->priorities, f.score, passthrough,
                    cs.cooling || f.affinity <= 0, channel_rank, key_rank, s.fields[index]);
        s.upstream_ids[index] = route.upstream_id;
      }
    }
  }
  s.hop_begin.push_back(s.drafted);

  // Hops stay in order (a fallback only after every candidate of the model before it).
  s.order.resize(s.drafted);
  for (std::size_t h = 0; h + 1 < s.hop_begin.size(); ++h) {
    std::size_t begin = s.hop_begin[h], n = s.hop_begin[h + 1] - begin;
    std::uint32_t* order = s.order.data() + begin;
    orderHop(s.fields.data() + begin, n, order, tierBound(request.strategy, s.hop_priorities[h]));
    for (std::size_t i = 0; i < n; ++i) order[i] += static_cast<std::uint32_t>(begin);  // hop position -> draft
    if (request.strategy == Strategy::Fast) {
      // Exploration: now and then a random other live candidate leads, so the latency figures of
      // the others stay fresh.
      auto live = std::find_if(order, order + n, [&](std::uint32_t d) { return drafts[d].factors.score <= 0; }) - order;
      if (live > 1 && rng.uniform() < scoring_constants::kFastExploration) {
        auto pick = 1 + static_cast<std::ptrdiff_t>(rng.below(static_cast<std::uint64_t>(live - 1)));
        std::rotate(order, order + pick, order + pick + 1);
      }
    }
    if (request.strategy == Strategy::Sequential && rotation) {
      rotateEquals(order, order + n, drafts, s.fields, 2 * std::uint64_t{s.hop_priorities[h]}, settings, *rotation);
    }
  }

  // The output once, in order.
  plan.candidates.reserve(s.order.size());
  for (std::uint32_t d : s.order) plan.candidates.push_back(drafts[d]);

  if (!plan.candidates.empty()) {
    plan.status = RouteStatus::Ready;
    plan.resume_at.reset();
  } else if (!served) {
    plan.status = pinned ? RouteStatus::UnknownChannel : RouteStatus::UnknownModel;
  } else if (skipped) {
    plan.status = RouteStatus::AllPaused;
  } else {
    plan.status = vetoed ? RouteStatus::CapabilityVetoed : RouteStatus::UnknownModel;
  }
  return plan;
}

}  // namespace llmux::routing

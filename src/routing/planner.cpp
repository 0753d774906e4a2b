#include "routing/planner.h"

#include <algorithm>
#include <cstdio>

#include "routing/freezes.h"
#include "routing/key_health.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "routing/scoring.h"

namespace llmux::routing {

using config::Strategy;

std::string formatFactors(Factors const& f) {
  char text[256];
  std::snprintf(text, sizeof text,
                "score=%.4g weight=%.4g headroom=%.4g failures=%.4g cooldown=%.4g affinity=%.4g "
                "billing=%.4g yield=%.4g performance=%.4g",
                f.score, f.weight, f.headroom, f.failures, f.cooldown, f.affinity, f.billing, f.yield,
                f.performance);
  return text;
}

namespace {

/// One model to serve, in the order the request falls back.
struct Hop {
  std::string model;                   ///< client-side name
  std::optional<std::size_t> channel;  ///< only this channel (a group member's, `channel/model`)
  bool gated = false;                  ///< a fallback: the capability gate applies
};

/// Expands a name into hops: a group's members in order, then the `fallbacks:` of every hop so
/// far in order, then theirs (breadth first: a model's own list comes before its fallbacks'
/// fallbacks). `visited` holds (model, channel) pairs so a chain can never loop.
class Expander {
 public:
  explicit Expander(Catalog const& catalog) : catalog_(catalog) {}

  void expand(std::string const& name, std::optional<std::size_t> channel) {
    add(name, channel, false);
    for (std::size_t i = 0; i < pending_.size(); ++i) {
      for (auto const& fallback : catalog_.fallbacksFor(*pending_[i])) add(fallback, std::nullopt, true);
    }
  }

  std::vector<Hop> hops;

 private:
  void add(std::string const& name, std::optional<std::size_t> channel, bool gated) {
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
      hops.push_back(Hop{name, channel, gated});
    }
    pending_.push_back(&name);
  }

  Catalog const& catalog_;
  std::vector<std::pair<std::string, std::optional<std::size_t>>> visited_;
  std::vector<std::string const*> pending_;  ///< names whose fallbacks come next, in order
};

/// A candidate while it is being ordered (cheap to build and sort; strings come at the end).
struct Draft {
  std::uint32_t channel, row, key, hop;
  std::string const* upstream;
  int priority;
  bool passthrough;
  bool demoted;  ///< cooling, or excluded for the session: tried only after the others
  std::uint64_t channel_rank, key_rank;  ///< random strategies
  Factors factors;
};

/// Score, then priority, then passthrough; equals in all three in random order, so that equal
/// candidates share the load instead of the first in the configuration taking it all.
bool scoreOrder(Draft const& a, Draft const& b) {
  if (a.factors.score != b.factors.score) return a.factors.score > b.factors.score;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.passthrough != b.passthrough) return a.passthrough;
  return a.key_rank < b.key_rank;
}

bool sequentialOrder(Draft const& a, Draft const& b) {
  if (a.demoted != b.demoted) return b.demoted;
  if (a.priority != b.priority) return a.priority > b.priority;
  if (a.passthrough != b.passthrough) return a.passthrough;
  if (a.channel != b.channel) return a.channel < b.channel;
  return a.key < b.key;
}

/// Orders one hop's drafts by the strategy.
void orderHop(Draft* begin, Draft* end, Strategy strategy, Rng& rng) {
  namespace sc = scoring_constants;
  switch (strategy) {
    case Strategy::Intelligent:
    case Strategy::Fast: {
      std::sort(begin, end, scoreOrder);
      if (strategy != Strategy::Fast) return;
      // Exploration: now and then a random other live candidate leads, so the latency figures of
      // the others stay fresh.
      auto live = std::find_if(begin, end, [](Draft const& d) { return d.factors.score <= 0; }) - begin;
      if (live > 1 && rng.uniform() < sc::kFastExploration) {
        auto pick = 1 + static_cast<std::ptrdiff_t>(rng.below(static_cast<std::uint64_t>(live - 1)));
        std::rotate(begin, begin + pick, begin + pick + 1);
      }
      return;
    }
    case Strategy::Sequential: std::sort(begin, end, sequentialOrder); return;
    case Strategy::Random:
      std::sort(begin, end, [](Draft const& a, Draft const& b) {
        if (a.demoted != b.demoted) return b.demoted;
        if (a.priority != b.priority) return a.priority > b.priority;
        if (a.channel_rank != b.channel_rank) return a.channel_rank < b.channel_rank;
        return a.key_rank < b.key_rank;
      });
      return;
    case Strategy::ModelRandom:
      std::sort(begin, end, [](Draft const& a, Draft const& b) {
        if (a.demoted != b.demoted) return b.demoted;
        if (a.channel_rank != b.channel_rank) return a.channel_rank < b.channel_rank;
        return a.key_rank < b.key_rank;
      });
      return;
    case Strategy::GlobalRandom:
      std::sort(begin, end, [](Draft const& a, Draft const& b) {
        if (a.demoted != b.demoted) return b.demoted;
        return a.key_rank < b.key_rank;
      });
      return;
  }
}

void addOnce(std::vector<std::string>& list, std::string item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

}  // namespace

RoutePlan planRoute(Catalog const& catalog, RouterState const& state, KeyHealth const& health,
                    FreezeTable const& freezes, RouteRequest const& request, Rng& rng) {
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

  // "channel/model" addresses one channel's model directly.
  Expander expander(catalog);
  if (auto split = catalog.splitChannelModel(request.model)) {
    expander.expand(split->second, split->first);
  } else {
    expander.expand(request.model, std::nullopt);
  }
  auto const& hops = expander.hops;

  // One snapshot for every read of the learned state; the clocks once per plan.
  RouterState::Snapshot snapshot(state);
  MonoTime now = snapshot.now();
  WallTime wall_now = state.clock().wallNow();
  SessionState session = snapshot.session(request.session);
  Strategy scoring = request.strategy == Strategy::Fast ? Strategy::Fast : Strategy::Intelligent;

  bool served = false;   // some hop's model has a channel (the pinned one, when pinned)
  bool skipped = false;  // some candidate was left out as paused, frozen or exhausted
  auto noteResume = [&](std::optional<MonoTime> at) {
    skipped = true;
    if (at && (!plan.resume_at || *at < *plan.resume_at)) plan.resume_at = at;
  };

  thread_local std::vector<Draft> drafts;
  drafts.clear();
  std::vector<std::size_t> hop_begin;
  hop_begin.reserve(hops.size() + 1);

  for (std::size_t h = 0; h < hops.size(); ++h) {
    auto const& hop = hops[h];
    hop_begin.push_back(drafts.size());
    std::size_t earlier = drafts.size();  // drafts of previous hops, for the duplicate check
    std::vector<std::size_t> const* channels = nullptr;
    std::vector<std::size_t> single;
    if (hop.channel) {
      if (settings.channels[*hop.channel].serves(hop.model)) single.push_back(*hop.channel);
      channels = &single;
    } else {
      channels = &catalog.channelsFor(hop.model);
    }

    for (std::size_t c : *channels) {
      if (pinned && c != *pinned) continue;
      served = true;
      auto const& channel = settings.channels[c];
      std::string const& upstream = channel.upstreamModel(hop.model);
      if (hop.gated) {
        auto gate = gateFallback(capabilitiesFor(channel, hop.model, upstream), request.needs);
        if (gate.verdict == GateVerdict::Reject) {
          addOnce(plan.gate_skipped, hop.model + " (" + channel.name + "): no " + gate.missing);
          continue;
        }
        if (gate.verdict == GateVerdict::Unknown) addOnce(plan.unknown_capabilities, hop.model);
      }
      std::size_t row = channel.rowIndexFor(request.client_protocol, hop.model);
      bool passthrough = channel.rows[row].protocol == request.client_protocol;
      std::uint64_t channel_rank = rng.next();
      for (std::size_t k = 0; k < channel.keys.size(); ++k) {
        auto const& key = channel.keys[k];
        if (!key.enabled) continue;
        if (h > 0) {
          bool seen = false;
          for (std::size_t i = 0; i < earlier && !seen; ++i) {
            seen = drafts[i].channel == c && drafts[i].key == k && *drafts[i].upstream == upstream;
          }
          if (seen) continue;
        }
        if (auto until = health.pausedUntil(key.id)) {
          noteResume(until);
          continue;
        }
        if (auto freeze = freezes.frozen(channel.name, key.id, upstream)) {
          std::optional<MonoTime> back;
          if (freeze->until) back = now + std::chrono::duration_cast<MonoClock::duration>(*freeze->until - wall_now);
          noteResume(back);
          continue;
        }
        CandidateState cs = snapshot.candidate(key, upstream);
        if (cs.exhausted) {
          noteResume(cs.exhausted_until);
          continue;
        }

        Factors f;
        f.weight = static_cast<double>(std::max(channel.weight, 1)) * std::max(key.weight, 1);
        f.failures = failureFactor(cs.consecutive_failures, scoring);
        f.cooldown = cooldownFactor(cs.cooling);
        bool session_key = session.known && session.last_key_id == key.id;
        if (session.known) {
          f.affinity = affinityFactor(session_key, session.last_model == upstream, session.failuresOn(key.id));
        }
        f.billing = billingFactor(key.billing, request.needs.prompt_tokens, cs.quota_remaining);
        f.yield = session_key ? 1.0 : yieldFactor(cs.success_streak);  // a session's key never yields
        f.performance = performanceFactor(cs.success_rate, cs.first_token_ms, scoring);
        f.score = f.weight * f.headroom * f.failures * f.cooldown * f.affinity * f.billing * f.yield *
                  f.performance;
        drafts.push_back(Draft{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(row),
                               static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(h), &upstream,
                               channel.priority, passthrough, cs.cooling || f.affinity <= 0,
                               channel_rank, rng.next(), f});
      }
    }
  }
  hop_begin.push_back(drafts.size());

  // Hops stay in order (a fallback only after every candidate of the model before it).
  for (std::size_t h = 0; h + 1 < hop_begin.size(); ++h) {
    orderHop(drafts.data() + hop_begin[h], drafts.data() + hop_begin[h + 1], request.strategy, rng);
  }

  plan.candidates.reserve(drafts.size());
  for (auto const& d : drafts) {
    PlannedCandidate& out = plan.candidates.emplace_back();
    out.channel = d.channel;
    out.row = d.row;
    out.key = d.key;
    out.model = hops[d.hop].model;
    out.upstream_model = *d.upstream;
    out.depth = static_cast<int>(d.hop);
    out.passthrough = d.passthrough;
    out.factors = d.factors;
  }

  if (!plan.candidates.empty()) {
    plan.status = RouteStatus::Ready;
    plan.resume_at.reset();
  } else if (!served) {
    plan.status = pinned ? RouteStatus::UnknownChannel : RouteStatus::UnknownModel;
  } else {
    plan.status = skipped ? RouteStatus::AllPaused : RouteStatus::UnknownModel;
  }
  return plan;
}

}  // namespace llmux::routing

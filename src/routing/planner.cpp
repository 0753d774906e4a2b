#include "routing/planner.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
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

/// A candidate while the plan is built: what its PlannedCandidate will hold. Drafts stay where
/// they are; the ordering sorts the small SortKeys that point at them.
struct Draft {
  std::uint32_t channel, row, key, hop;
  std::string const* model;     ///< the channel's own copy of the hop's model name
  std::string const* upstream;  ///< the channel's upstream name for it
  bool passthrough;
  Factors factors;
};

/// A draft's place in its hop's order: the strategy's criteria packed into two integers so that
/// one branch-free comparison orders them (a sort of 100 candidates otherwise pays a mispredicted
/// branch per criterion). See sortKey for the packing.
struct SortKey {
  unsigned __int128 primary;
  std::uint64_t secondary;
  std::uint32_t draft;
};

struct ByKey {
  bool operator()(SortKey const& a, SortKey const& b) const {
    return (a.primary < b.primary) | ((a.primary == b.primary) & (a.secondary < b.secondary));
  }
};

/// An unsigned integer that orders like the double (not NaN; -0 before +0, scores are never -0).
std::uint64_t orderedBits(double value) {
  std::uint64_t bits = std::bit_cast<std::uint64_t>(value);
  return bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
}

/// An unsigned integer that orders like the int.
std::uint64_t orderedBits(std::int32_t value) { return static_cast<std::uint32_t>(value) ^ 0x8000'0000u; }

/// What a strategy orders a hop's candidates by, smallest key first:
/// - intelligent, fast: the demoted last; priority, higher first (the operator's word: a backup
///   stays a backup however well it scores); score, higher first; passthrough first; equals in
///   all of these in a random order weighted by the candidate's weight (key_rank), so that equal
///   candidates share the load by weight instead of the first in the configuration taking it all;
/// - sequential: the demoted last; priority, higher first; passthrough first; then channel and
///   key in configuration order (`draft`: drafts are made in that order within a hop);
/// - random: the demoted last; priority; then a random channel and a random key in it;
/// - model-random: the demoted last; a random channel and a random key (priorities ignored);
/// - global-random: the demoted last; a random key.
SortKey sortKey(Strategy strategy, double score, std::int32_t priority, bool passthrough, bool demoted,
                std::uint64_t channel_rank, std::uint64_t key_rank, std::uint32_t draft) {
  using u128 = unsigned __int128;
  std::uint64_t tier = orderedBits(priority) << 1 | static_cast<std::uint64_t>(passthrough);  // larger first
  std::uint64_t last = demoted ? 1 : 0;
  switch (strategy) {
    case Strategy::Intelligent:
    case Strategy::Fast: {
      u128 priority_first = u128{~orderedBits(priority) & 0xffff'ffffu} << 65;
      return {u128{last} << 97 | priority_first | u128{~orderedBits(score)} << 1 |
                  u128{passthrough ? 0u : 1u},
              key_rank, draft};
    }
    case Strategy::Sequential: return {u128{last} << 64 | ~tier, draft, draft};
    case Strategy::Random: {
      std::uint64_t first = last << 32 | (~orderedBits(priority) & 0xffff'ffffu);
      return {u128{first} << 64 | channel_rank, key_rank, draft};
    }
    case Strategy::ModelRandom: return {u128{last} << 64 | channel_rank, key_rank, draft};
    case Strategy::GlobalRandom: return {u128{last}, key_rank, draft};
  }
  return {0, draft, draft};
}

/// A random rank whose order puts an item first with a chance proportional to its weight (the
/// exponential race: -ln(u) / weight, smallest first). Costs a logarithm: used only when the
/// configuration has weights other than 1.
std::uint64_t weightedRank(Rng& rng, double weight) {
  double rank = -std::log(1.0 - rng.uniform()) / std::max(weight, 1e-9);
  return static_cast<std::uint64_t>(std::min(rank * 1e15, 1.8e19));
}

/// Sequential's spreading among equals, as the gateway core did it: within each run of equal
/// sort keys (same priority and passthrough-ness), a weighted rotation picks the leading channel
/// (weight 3 leads three times as often as weight 1, spread out, not in blocks), the others
/// follow in configuration order after it; each channel's keys rotate. Counters in `rotation`.
void rotateEquals(SortKey* begin, SortKey* end, std::vector<Draft> const& drafts,
                  config::Settings const& settings, Rotation& rotation) {
  std::vector<SortKey*> blocks;  // where each channel's run starts
  for (SortKey* group = begin; group != end;) {
    SortKey* group_end = group + 1;
    while (group_end != end && group_end->primary == group->primary) ++group_end;
    blocks.clear();
    for (SortKey* k = group; k != group_end; ++k) {
      if (blocks.empty() || drafts[blocks.back()->draft].channel != drafts[k->draft].channel) blocks.push_back(k);
    }
    blocks.push_back(group_end);
    std::size_t channels = blocks.size() - 1;
    for (std::size_t b = 0; b < channels; ++b) {
      auto const& channel = settings.channels[drafts[blocks[b]->draft].channel];
      auto n = static_cast<std::size_t>(blocks[b + 1] - blocks[b]);
      if (channel.keys.size() > 1 && n > 0) {
        auto first = static_cast<std::ptrdiff_t>(rotation.next("keys:" + channel.name) % n);
        std::rotate(blocks[b], blocks[b] + first, blocks[b + 1]);
      }
    }
    if (channels > 1) {
      Draft const& head = drafts[group->draft];
      auto weight = [&](std::size_t b) {
        return static_cast<std::uint64_t>(std::max(settings.channels[drafts[blocks[b]->draft].channel].weight, 1));
      };
      std::uint64_t total = 0;
      for (std::size_t b = 0; b < channels; ++b) total += weight(b);
      std::string counter = "model:" + *head.model + "@" +
                            std::to_string(settings.channels[head.channel].priority) +
                            (head.passthrough ? "" : "/translated") +
                            (group->primary >> 64 ? "/demoted" : "");
      std::uint64_t slot = rotation.next(counter) % total;
      std::size_t leader = 0;
      for (; leader + 1 < channels && slot >= weight(leader); ++leader) slot -= weight(leader);
      std::rotate(group, blocks[leader], group_end);
    }
    group = group_end;
  }
}

/// A SortKey cut into its criteria, most significant first (the bit ranges sortKey packs them
/// in): ByKey's order is their lexicographic order.
struct KeyFields {
  std::array<std::uint64_t, 5> value{};  ///< unused criteria are 0
};

KeyFields fieldsOf(Strategy strategy, SortKey const& k) {
  auto high = static_cast<std::uint64_t>(k.primary >> 64);
  auto low = static_cast<std::uint64_t>(k.primary);
  switch (strategy) {
    case Strategy::Intelligent:
    case Strategy::Fast:
      return {{static_cast<std::uint64_t>(k.primary >> 97), static_cast<std::uint64_t>(k.primary >> 65) & 0xffff'ffffu,
               static_cast<std::uint64_t>(k.primary >> 1), low & 1, k.secondary}};
    default: return {{high, low, k.secondary, 0, 0}};
  }
}

constexpr std::size_t kIndexBits = 7;  ///< a hop's candidate index in the low bits of its prefix
constexpr std::size_t kPrefixBudget = 64 - kIndexBits;
constexpr std::size_t kFairShare = 16;  ///< bits every criterion gets before the first take more

/// How many bits of each criterion a hop's prefixes keep: a criterion's bits above its highest
/// differing one are the same in every key of the hop and order nothing. Each criterion first
/// gets up to kFairShare bits (a wide score must not crowd out the random rank that orders equal
/// scores), then the most significant ones take what is left.
struct PrefixLayout {
  std::array<std::uint64_t, 5> mask{};   ///< the criterion's differing bits (0: none kept)
  std::array<std::uint32_t, 5> drop{};   ///< its low bits the prefix leaves out
  std::array<std::uint32_t, 5> shift{};  ///< where the rest goes in the prefix
};

PrefixLayout prefixLayout(Strategy strategy, SortKey const* begin, SortKey const* end) {
  KeyFields first = fieldsOf(strategy, *begin);
  std::array<std::uint64_t, 5> differs{};
  for (SortKey const* k = begin + 1; k != end; ++k) {
    KeyFields f = fieldsOf(strategy, *k);
    for (std::size_t i = 0; i < 5; ++i) differs[i] |= f.value[i] ^ first.value[i];
  }
  std::array<std::uint32_t, 5> width{}, kept{};
  std::size_t budget = kPrefixBudget;
  for (std::size_t i = 0; i < 5; ++i) {
    width[i] = static_cast<std::uint32_t>(std::bit_width(differs[i]));
    kept[i] = static_cast<std::uint32_t>(std::min<std::size_t>({width[i], kFairShare, budget}));
    budget -= kept[i];
  }
  for (std::size_t i = 0; i < 5; ++i) {
    auto more = static_cast<std::uint32_t>(std::min<std::size_t>(width[i] - kept[i], budget));
    kept[i] += more;
    budget -= more;
  }
  PrefixLayout layout;
  auto shift = static_cast<std::uint32_t>(kIndexBits);
  for (std::size_t i = 5; i-- > 0;) {
    if (kept[i] == 0) continue;
    layout.mask[i] = width[i] == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width[i]) - 1;
    layout.drop[i] = width[i] - kept[i];
    layout.shift[i] = shift;
    shift += kept[i];
  }
  return layout;
}

/// The key's prefix: the kept bits of each criterion in order, then its index in the hop. Orders
/// like ByKey except where two keys agree in every kept bit.
std::uint64_t prefixOf(Strategy strategy, SortKey const& k, PrefixLayout const& layout, std::uint64_t index) {
  KeyFields f = fieldsOf(strategy, k);
  std::uint64_t prefix = index;
  for (std::size_t i = 0; i < 5; ++i) prefix |= ((f.value[i] & layout.mask[i]) >> layout.drop[i]) << layout.shift[i];
  return prefix;
}

/// Merges two sorted runs of `half` distinct integers each into `out`, from both ends at once
/// and without a branch on the data (the parity merge: with equal halves neither end can run
/// past its runs, so no bound checks). Two independent chains of loads halve the latency.
void parityMerge(std::uint64_t* out, std::uint64_t const* left, std::uint64_t const* right, std::size_t half) {
  std::uint64_t const *left_front = left, *right_front = right;
  std::uint64_t const *left_back = left + half - 1, *right_back = right + half - 1;
  std::uint64_t *out_front = out, *out_back = out + 2 * half - 1;
  for (std::size_t step = 0; step < half; ++step) {
    bool right_first = *right_front < *left_front;
    *out_front++ = right_first ? *right_front : *left_front;
    right_front += right_first;
    left_front += !right_first;
    bool left_last = *right_back < *left_back;
    *out_back-- = left_last ? *left_back : *right_back;
    left_back -= left_last;
    right_back -= !left_last;
  }
}

/// Sorts eight values with the 19 comparators of Knuth's network: branch-free, and the groups of
/// eight are independent of one another (the merges' first three passes were one long chain).
void sortEight(std::uint64_t* v) {
  static constexpr std::uint8_t kNetwork[19][2] = {{0, 2}, {1, 3}, {4, 6}, {5, 7}, {0, 4}, {1, 5}, {2, 6},
                                                   {3, 7}, {0, 1}, {2, 3}, {4, 5}, {6, 7}, {2, 4}, {3, 5},
                                                   {1, 4}, {3, 6}, {1, 2}, {3, 4}, {5, 6}};
  for (auto const& [a, b] : kNetwork) {
    std::uint64_t low = std::min(v[a], v[b]), high = std::max(v[a], v[b]);
    v[a] = low;
    v[b] = high;
  }
}

constexpr std::size_t kNetworkSize = 8;

/// Sorts `values` (distinct, none all ones; the size a power of two of at least kNetworkSize,
/// padded with all ones): runs of eight by a sorting network, then bottom-up parity merges, a
/// comparison sort whose comparisons steer no branch (std::sort mispredicts about every other
/// one on keys this random).
void mergeSortDistinct(std::vector<std::uint64_t>& values, std::vector<std::uint64_t>& scratch) {
  std::size_t n = values.size();
  scratch.resize(n);
  for (std::size_t run = 0; run < n; run += kNetworkSize) sortEight(values.data() + run);
  std::uint64_t* from = values.data();
  std::uint64_t* to = scratch.data();
  for (std::size_t half = kNetworkSize; half < n; half *= 2) {
    for (std::size_t run = 0; run < n; run += 2 * half) parityMerge(to + run, from + run, from + run + half, half);
    std::swap(from, to);
  }
  if (from != values.data()) std::copy(from, from + n, values.data());
}

/// Sorts by ByKey. std::sort over the keys pays a mispredicted branch for many of its ~650
/// comparisons of 48-byte keys; here the keys' 64-bit prefixes are sorted as plain integers and
/// an insertion sort with the full comparison then puts right the rare keys that agree in their
/// prefix (so the order is exactly ByKey's).
void sortKeys(SortKey* begin, SortKey* end, Strategy strategy) {
  auto n = static_cast<std::size_t>(end - begin);
  if (n < 2) return;
  if (n > (std::size_t{1} << kIndexBits)) {
    std::sort(begin, end, ByKey{});
    return;
  }
  thread_local std::vector<std::uint64_t> prefixes, scratch;
  thread_local std::vector<SortKey> sorted;
  PrefixLayout layout = prefixLayout(strategy, begin, end);
  // Padding: an index below n < 2^kIndexBits never makes a prefix all ones.
  prefixes.assign(std::max(std::bit_ceil(n), kNetworkSize), ~std::uint64_t{0});
  for (std::size_t i = 0; i < n; ++i) prefixes[i] = prefixOf(strategy, begin[i], layout, i);
  // Sequential's keys are in configuration order within each run of equal criteria: std::sort
  // predicts its way through them; the random ranks of the others need the branch-free merge.
  if (strategy == Strategy::Sequential) std::sort(prefixes.begin(), prefixes.begin() + static_cast<std::ptrdiff_t>(n));
  else mergeSortDistinct(prefixes, scratch);
  sorted.resize(n);
  for (std::size_t i = 0; i < n; ++i) sorted[i] = begin[prefixes[i] & ((1u << kIndexBits) - 1)];
  std::copy(sorted.begin(), sorted.end(), begin);
  for (SortKey* k = begin + 1; k != end; ++k) {
    if (!ByKey{}(*k, k[-1])) continue;
    SortKey moving = *k;
    SortKey* hole = k;
    do {
      *hole = hole[-1];
      --hole;
    } while (hole != begin && ByKey{}(moving, hole[-1]));
    *hole = moving;
  }
}

/// Orders one hop's keys by the strategy (sortKey holds its criteria).
void orderHop(SortKey* begin, SortKey* end, Strategy strategy, std::vector<Draft> const& drafts, Rng& rng) {
  sortKeys(begin, end, strategy);
  if (strategy != Strategy::Fast) return;
  // Exploration: now and then a random other live candidate leads, so the latency figures of the
  // others stay fresh.
  auto live = std::find_if(begin, end, [&](SortKey const& k) { return drafts[k.draft].factors.score <= 0; }) - begin;
  if (live > 1 && rng.uniform() < scoring_constants::kFastExploration) {
    auto pick = 1 + static_cast<std::ptrdiff_t>(rng.below(static_cast<std::uint64_t>(live - 1)));
    std::rotate(begin, begin + pick, begin + pick + 1);
  }
}

/// The channel's own copies of a model's names, which the plan's ModelNames view.
struct OwnedNames {
  std::string const* model;
  std::string const* upstream;
};

/// `model` as the channel spells it: its model_map entry (and the upstream name it maps to), else
/// its entry in `models`. nullopt when the channel does not serve the model.
std::optional<OwnedNames> ownedNames(config::Channel const& channel, std::string const& model) {
  if (auto it = channel.model_map.find(model); it != channel.model_map.end()) {
    return OwnedNames{&it->first, &it->second};
  }
  auto listed = std::find(channel.models.begin(), channel.models.end(), model);
  if (listed == channel.models.end()) return std::nullopt;
  return OwnedNames{&*listed, &*listed};
}

/// The keys of `channel` that earlier hops' drafts already list for `upstream` (a plan never
/// lists a (channel, key, upstream model) twice). Integer compares; the names only when the
/// channel and the key match but two copies of the name do.
void keysListedBefore(std::vector<Draft> const& drafts, std::size_t earlier, std::uint32_t channel,
                      std::string const& upstream, std::vector<std::uint32_t>& out) {
  out.clear();
  for (std::size_t i = 0; i < earlier; ++i) {
    auto const& d = drafts[i];
    if (d.channel == channel && (d.upstream == &upstream || *d.upstream == upstream)) out.push_back(d.key);
  }
}

/// The candidate's score factors (`weight` included) and their product.
Factors scoreFactors(config::Channel const& channel, config::ChannelKey const& key,
                     CandidateState const& cs, SessionState const& session, HashedKeyId const& id,
                     bool session_model, RequestNeeds const& needs, Strategy scoring) {
  Factors f;
  f.weight = static_cast<double>(std::max(channel.weight, 1)) * std::max(key.weight, 1);
  f.failures = failureFactor(cs.consecutive_failures, scoring);
  f.cooldown = cooldownFactor(cs.cooling);
  bool session_key = session.isLastKey(id);
  if (session.known) f.affinity = affinityFactor(session_key, session_model, session.failuresOn(id));
  f.billing = billingFactor(key.billing, needs.prompt_tokens, cs.quota_remaining);
  f.yield = session_key ? 1.0 : yieldFactor(cs.success_streak);  // a session's key never yields
  f.performance = performanceFactor(cs.success_rate, cs.first_token_ms, scoring);
  // The weight is not in the score (the heavier candidate would then always lead): it shares
  // the load among equal scores (weightedRank).
  f.score = f.headroom * f.failures * f.cooldown * f.affinity * f.billing * f.yield * f.performance;
  return f;
}

void addOnce(std::vector<std::string>& list, std::string item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(std::move(item));
}

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

  // Scratch reused from plan to plan (no allocation once warm).
  thread_local std::vector<Draft> drafts;
  thread_local std::vector<SortKey> order;
  thread_local std::vector<std::size_t> hop_begin;
  thread_local std::vector<std::uint32_t> listed_before;
  drafts.clear();
  order.clear();
  bool any_paused = health.anyPaused();  // most plans see no paused key: ask once
  hop_begin.clear();

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
      auto const& channel = settings.channels[c];
      auto names = ownedNames(channel, hop.model);
      if (!names) continue;  // cannot happen: channelsFor and serves() list channels naming it
      served = true;
      std::string const& upstream = *names->upstream;
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
      bool session_model = session.known && session.last_model == upstream;
      if (h > 0) keysListedBefore(drafts, earlier, static_cast<std::uint32_t>(c), upstream, listed_before);
      for (std::size_t k = 0; k < channel.keys.size(); ++k) {
        auto const& key = channel.keys[k];
        if (!key.enabled) continue;
        if (h > 0 && std::find(listed_before.begin(), listed_before.end(), k) != listed_before.end()) continue;
        if (auto until = any_paused ? health.pausedUntil(key.id) : std::nullopt) {
          noteResume(until);
          continue;
        }
        if (auto freeze = freezes.frozen(channel.name, key.id, upstream)) {
          std::optional<MonoTime> back;
          if (freeze->until) back = now + std::chrono::duration_cast<MonoClock::duration>(*freeze->until - wall_now);
          noteResume(back);
          continue;
        }
        HashedKeyId id(key.id);
        CandidateState cs = snapshot.candidate(key, id, upstream);
        if (cs.exhausted) {
          noteResume(cs.exhausted_until);
          continue;
        }

        Factors f = scoreFactors(channel, key, cs, session, id, session_model, request.needs, scoring);
        order.push_back(sortKey(request.strategy, f.score, channel.priority, passthrough,
                                cs.cooling || f.affinity <= 0, channel_rank,
                                catalog.hasWeights() ? weightedRank(rng, f.weight) : rng.next(),
                                static_cast<std::uint32_t>(drafts.size())));
        drafts.push_back(Draft{static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(row),
                               static_cast<std::uint32_t>(k), static_cast<std::uint32_t>(h), names->model,
                               &upstream, passthrough, f});
      }
    }
  }
  hop_begin.push_back(drafts.size());

  // Hops stay in order (a fallback only after every candidate of the model before it).
  for (std::size_t h = 0; h + 1 < hop_begin.size(); ++h) {
    orderHop(order.data() + hop_begin[h], order.data() + hop_begin[h + 1], request.strategy, drafts, rng);
    if (request.strategy == Strategy::Sequential && rotation) {
      rotateEquals(order.data() + hop_begin[h], order.data() + hop_begin[h + 1], drafts, settings, *rotation);
    }
  }

  // The output once, in order.
  plan.candidates.reserve(order.size());
  for (auto const& sorted : order) {
    auto const& d = drafts[sorted.draft];
    plan.candidates.push_back(PlannedCandidate{{d.channel, d.row, d.key}, ModelName(*d.model), ModelName(*d.upstream),
                                               static_cast<int>(d.hop), d.passthrough, d.factors});
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

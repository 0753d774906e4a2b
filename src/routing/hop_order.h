#pragma once

// How the planner puts one hop's candidates in order (implementation: hop_order.cpp). Pure
// integers: the planner turns each strategy's criteria into OrderFields.

#include <cstddef>
#include <cstdint>

namespace llmux::routing {

/// A candidate's place in its hop's order: the strategy's criteria as unsigned integers, most
/// significant first, smaller first. `tier` is the coarse one most candidates of a hop share (the
/// demoted last, then priority: a small number); `first`, `flag` and `second` order within a
/// tier. Candidates equal in all four keep their order in the hop (configuration order).
struct OrderFields {
  std::uint64_t tier = 0;
  std::uint64_t first = 0;
  std::uint64_t second = 0;
  std::uint32_t flag = 0;  ///< 0 or 1
};

/// Writes into `order` the permutation of 0..n-1 that sorts `fields` by (tier, first, flag,
/// second, position). Every tier is below `tier_bound` (0: unknown). The candidates are bucketed
/// by tier first (counted straight into place when the bound is small, else the hop's tiers are
/// searched for; a hop has a few), then each
/// tier is sorted as 64-bit integers (the criteria cut to the bits that differ within the tier,
/// the position in the low bits) by a branch-free network and merges; an insertion pass with the
/// full comparison puts right the rare candidates whose cut bits agree. A tier whose
/// candidates differ in nothing but position (sequential's) costs no sort at all.
void orderHop(OrderFields const* fields, std::size_t n, std::uint32_t* order, std::uint64_t tier_bound = 0);

}  // namespace llmux::routing

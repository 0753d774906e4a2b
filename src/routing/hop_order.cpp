#include "routing/hop_order.h"

#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <vector>

namespace llmux::routing {
namespace {

constexpr std::size_t kIndexBits = 7;  ///< a candidate's position in its tier, in the low prefix bits
constexpr std::size_t kMaxIndexed = std::size_t{1} << kIndexBits;
constexpr std::size_t kPrefixBudget = 64 - kIndexBits;
/// Bits `second` keeps at least when `first` is wide: a wide score must not crowd out the random
/// rank that orders equal scores.
constexpr std::size_t kFairShare = 16;
/// Tiers bucketed by a linear search; a hop with more (more than 16 priorities) is sorted whole.
constexpr std::size_t kMaxTiers = 16;
constexpr std::size_t kNetworkSize = 8;
/// Tier bounds up to this are counted into place without a search (ours: the counters fit a
/// few cache lines; 16 priorities of one model for sequential).
constexpr std::size_t kCountedTiers = 64;

/// The full order: (tier, first, flag, second, position).
struct Less {
  OrderFields const* f;
  bool operator()(std::uint32_t i, std::uint32_t j) const {
    auto const &x = f[i], &y = f[j];
    if (x.tier != y.tier) return x.tier < y.tier;
    if (x.first != y.first) return x.first < y.first;
    if (x.flag != y.flag) return x.flag < y.flag;
    if (x.second != y.second) return x.second < y.second;
    return i < j;
  }
};

/// The full order within a tier (the tiers are equal): (first, flag, second, position).
struct InTier {
  OrderFields const* f;
  bool operator()(std::uint32_t i, std::uint32_t j) const {
    auto const &x = f[i], &y = f[j];
    if (x.first != y.first) return x.first < y.first;
    if (x.flag != y.flag) return x.flag < y.flag;
    if (x.second != y.second) return x.second < y.second;
    return i < j;
  }
};

/// Merges two sorted runs of `half` integers each into `out`, from both ends at once and without
/// a branch on the data (the parity merge: with equal halves neither end can run past its runs,
/// so no bound checks). Two independent chains of loads halve the latency.
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

/// Orders two values (a comparator of a sorting network: two conditional moves, no branch).
inline void compareSwap(std::uint64_t& a, std::uint64_t& b) {
  std::uint64_t low = a < b ? a : b;
  b = a < b ? b : a;
  a = low;
}

/// Sorts eight values with the 19 comparators of Knuth's network: branch-free, in registers (a
/// loop over a table of pairs went through memory: five times the instructions), and the groups
/// of eight are independent of one another.
void sortEight(std::uint64_t* v) {
  std::uint64_t v0 = v[0], v1 = v[1], v2 = v[2], v3 = v[3], v4 = v[4], v5 = v[5], v6 = v[6], v7 = v[7];
  compareSwap(v0, v2), compareSwap(v1, v3), compareSwap(v4, v6), compareSwap(v5, v7);
  compareSwap(v0, v4), compareSwap(v1, v5), compareSwap(v2, v6), compareSwap(v3, v7);
  compareSwap(v0, v1), compareSwap(v2, v3), compareSwap(v4, v5), compareSwap(v6, v7);
  compareSwap(v2, v4), compareSwap(v3, v5);
  compareSwap(v1, v4), compareSwap(v3, v6);
  compareSwap(v1, v2), compareSwap(v3, v4), compareSwap(v5, v6);
  v[0] = v0, v[1] = v1, v[2] = v2, v[3] = v3, v[4] = v4, v[5] = v5, v[6] = v6, v[7] = v7;
}

/// Sorts `n` values (a power of two, at least kNetworkSize): runs of eight by the network, then
/// bottom-up parity merges, a comparison sort whose comparisons steer no branch (std::sort
/// mispredicts about every other one on keys this random). `scratch` holds n values.
void sortPowerOfTwo(std::uint64_t* values, std::uint64_t* scratch, std::size_t n) {
  for (std::size_t run = 0; run < n; run += kNetworkSize) sortEight(values + run);
  std::uint64_t* from = values;
  std::uint64_t* to = scratch;
  for (std::size_t half = kNetworkSize; half < n; half *= 2) {
    for (std::size_t run = 0; run < n; run += 2 * half) parityMerge(to + run, from + run, from + run + half, half);
    std::swap(from, to);
  }
  if (from != values) std::copy(from, from + n, values);
}

/// The kept high bits of a criterion `width` bits wide (the bits above are the same throughout
/// the tier).
std::uint64_t keptBits(std::uint64_t value, std::size_t width, std::size_t kept) {
  if (kept == 0) return 0;
  std::uint64_t low = width >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << width) - 1;
  return (value & low) >> (width - kept);
}

/// `value << shift` / `value >> shift`, 0 when the shift is the word's width or more (a criterion
/// with no bit kept sits above the prefix: shifting by 64 would be undefined).
std::uint64_t shiftedUp(std::uint64_t value, std::size_t shift) { return shift >= 64 ? 0 : value << shift; }
std::uint64_t shiftedDown(std::uint64_t value, std::size_t shift) { return shift >= 64 ? 0 : value >> shift; }

/// Sorts one tier's members (positions, ascending) by (first, flag, second, position).
void sortTier(OrderFields const* f, std::uint32_t* members, std::size_t m) {
  if (m < 2) return;
  OrderFields const& head = f[members[0]];
  std::uint64_t first_differs = 0, second_differs = 0;
  std::uint32_t flag_differs = 0;
  for (std::size_t k = 1; k < m; ++k) {
    auto const& x = f[members[k]];
    first_differs |= x.first ^ head.first;
    flag_differs |= x.flag ^ head.flag;
    second_differs |= x.second ^ head.second;
  }
  if ((first_differs | second_differs | flag_differs) == 0) return;  // position order already
  if (m > kMaxIndexed) {
    std::sort(members, members + m, InTier{f});
    return;
  }
  // Each criterion's bits above its highest differing one order nothing within the tier.
  std::size_t first_width = static_cast<std::size_t>(std::bit_width(first_differs));
  std::size_t flag_width = flag_differs ? 1 : 0;
  std::size_t second_width = static_cast<std::size_t>(std::bit_width(second_differs));
  std::size_t first_kept = std::min(first_width, kPrefixBudget - flag_width - std::min(second_width, kFairShare));
  std::size_t second_kept = std::min(second_width, kPrefixBudget - flag_width - first_kept);
  std::size_t second_shift = kIndexBits, flag_shift = second_shift + second_kept, first_shift = flag_shift + flag_width;

  // Padding: a position below m < 2^kIndexBits never makes a prefix all ones (and m = 2^kIndexBits
  // needs no padding).
  std::size_t padded = std::max(std::bit_ceil(m), kNetworkSize);
  std::array<std::uint64_t, kMaxIndexed> prefixes, merge;
  std::array<std::uint32_t, kMaxIndexed> unsorted;
  for (std::size_t k = 0; k < m; ++k) {
    auto const& x = f[members[k]];
    prefixes[k] = shiftedUp(keptBits(x.first, first_width, first_kept), first_shift) |
                  (flag_width ? shiftedUp(std::uint64_t{x.flag}, flag_shift) : 0) |
                  shiftedUp(keptBits(x.second, second_width, second_kept), second_shift) | k;
    unsorted[k] = members[k];
  }
  std::fill(prefixes.begin() + static_cast<std::ptrdiff_t>(m), prefixes.begin() + static_cast<std::ptrdiff_t>(padded),
            ~std::uint64_t{0});
  sortPowerOfTwo(prefixes.data(), merge.data(), padded);
  for (std::size_t k = 0; k < m; ++k) members[k] = unsorted[prefixes[k] & (kMaxIndexed - 1)];
  if (first_kept == first_width && second_kept == second_width) return;  // nothing was cut
  // Only members agreeing in every kept bit from the first cut criterion up can be out of order
  // (runs of such members are contiguous, and moves stay within them): within those runs the
  // full comparison puts them right.
  std::size_t run_shift = first_kept < first_width ? first_shift : kIndexBits;
  InTier less{f};
  for (std::size_t k = 1; k < m; ++k) {
    if (shiftedDown(prefixes[k] ^ prefixes[k - 1], run_shift)) continue;
    if (!less(members[k], members[k - 1])) continue;
    std::uint32_t moving = members[k];
    std::size_t hole = k;
    do {
      members[hole] = members[hole - 1];
      --hole;
    } while (hole > 0 && less(moving, members[hole - 1]));
    members[hole] = moving;
  }
}

}  // namespace

void orderHop(OrderFields const* fields, std::size_t n, std::uint32_t* order, std::uint64_t tier_bound) {
  if (n == 0) return;
  if (tier_bound != 0 && tier_bound <= kCountedTiers) {
    // Each candidate straight to its tier's run, positions ascending (a stable counting sort).
    std::array<std::uint32_t, kCountedTiers> size{}, start{};
    for (std::size_t i = 0; i < n; ++i) ++size[fields[i].tier];
    std::uint32_t next = 0;
    for (std::size_t t = 0; t < tier_bound; ++t) {
      start[t] = next;
      next += size[t];
    }
    std::array<std::uint32_t, kCountedTiers> fill = start;
    for (std::size_t i = 0; i < n; ++i) order[fill[fields[i].tier]++] = static_cast<std::uint32_t>(i);
    for (std::size_t t = 0; t < tier_bound; ++t) sortTier(fields, order + start[t], size[t]);
    return;
  }
  thread_local std::vector<std::uint8_t> tier_of;
  // The hop's tiers, in order of appearance, and each candidate's.
  std::array<std::uint64_t, kMaxTiers> tiers;
  std::size_t tier_count = 0;
  tier_of.resize(n);
  std::size_t t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t tier = fields[i].tier;
    // Neighbours (a channel's keys) mostly share their tier: search only when it changes.
    if (t < tier_count && tiers[t] == tier) {
      tier_of[i] = static_cast<std::uint8_t>(t);
      continue;
    }
    t = 0;
    while (t < tier_count && tiers[t] != tier) ++t;
    if (t == tier_count) {
      if (tier_count == kMaxTiers) {
        std::iota(order, order + n, std::uint32_t{0});
        std::sort(order, order + n, Less{fields});
        return;
      }
      tiers[tier_count++] = tier;
    }
    tier_of[i] = static_cast<std::uint8_t>(t);
  }
  if (tier_count == 1) {
    std::iota(order, order + n, std::uint32_t{0});
    sortTier(fields, order, n);
    return;
  }
  // Tiers by value (few: insertion sort), then each candidate to its tier's run, positions
  // ascending within each run (a stable counting sort).
  std::array<std::uint8_t, kMaxTiers> by_value;
  for (std::size_t t = 0; t < tier_count; ++t) {
    std::size_t at = t;
    for (; at > 0 && tiers[by_value[at - 1]] > tiers[t]; --at) by_value[at] = by_value[at - 1];
    by_value[at] = static_cast<std::uint8_t>(t);
  }
  std::array<std::uint32_t, kMaxTiers> size{}, start{};
  for (std::size_t i = 0; i < n; ++i) ++size[tier_of[i]];
  std::uint32_t next = 0;
  for (std::size_t r = 0; r < tier_count; ++r) {
    start[by_value[r]] = next;
    next += size[by_value[r]];
  }
  std::array<std::uint32_t, kMaxTiers> fill = start;
  for (std::size_t i = 0; i < n; ++i) order[fill[tier_of[i]]++] = static_cast<std::uint32_t>(i);
  for (std::size_t t = 0; t < tier_count; ++t) sortTier(fields, order + start[t], size[t]);
}

}  // namespace llmux::routing

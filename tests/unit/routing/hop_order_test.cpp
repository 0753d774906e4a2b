// orderHop against the plain definition of its order: std::sort by (tier, first, flag, second,
// position), over the shapes its fast paths take apart.
#include "routing/hop_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <tuple>
#include <vector>

namespace llmux::routing {
namespace {

std::vector<std::uint32_t> reference(std::vector<OrderFields> const& f) {
  std::vector<std::uint32_t> order(f.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t i, std::uint32_t j) {
    return std::tie(f[i].tier, f[i].first, f[i].flag, f[i].second, i) <
           std::tie(f[j].tier, f[j].first, f[j].flag, f[j].second, j);
  });
  return order;
}

std::vector<std::uint32_t> ordered(std::vector<OrderFields> const& f, std::uint64_t tier_bound = 0) {
  std::vector<std::uint32_t> order(f.size(), 0xdead'beefu);
  orderHop(f.data(), f.size(), order.data(), tier_bound);
  return order;
}

/// Random fields: `tiers` tiers, `first` drawn from `first_values` values spread over the whole
/// 64 bits (so the prefix must cut them) or dense, random 64-bit `second`s with some repeated.
std::vector<OrderFields> randomFields(std::mt19937_64& g, std::size_t n, std::uint64_t tiers,
                                      std::uint64_t first_values, bool wide) {
  std::vector<std::uint64_t> firsts(first_values);
  for (auto& v : firsts) v = wide ? g() : g() % 1000;
  std::vector<OrderFields> f(n);
  for (auto& x : f) {
    x.tier = g() % tiers;
    x.first = firsts[g() % first_values];
    x.flag = static_cast<std::uint32_t>(g() % 2);
    x.second = g() % 8 == 0 ? 42 : g();
  }
  return f;
}

TEST(OrderHop, EmptyAndSingle) {
  orderHop(nullptr, 0, nullptr);
  std::vector<OrderFields> one(1);
  EXPECT_EQ(ordered(one), std::vector<std::uint32_t>{0});
}

TEST(OrderHop, EqualCandidatesKeepConfigurationOrder) {
  std::vector<OrderFields> same(200, OrderFields{3, 7, 9, 1});
  std::vector<std::uint32_t> expected(200);
  std::iota(expected.begin(), expected.end(), 0u);
  EXPECT_EQ(ordered(same), expected);
  EXPECT_EQ(ordered(same, 4), expected);
}

TEST(OrderHop, TiersFirstThenTheOtherCriteriaThenPosition) {
  std::vector<OrderFields> f = {
      {1, 5, 0, 0}, {0, 9, 0, 0}, {0, 2, 7, 1}, {0, 2, 7, 0}, {0, 2, 3, 1}, {1, 5, 0, 0},
  };
  // Tier 0: first 2 before 9; among first 2, flag 0 before 1, then second 3 before 7.
  std::vector<std::uint32_t> expected = {3, 4, 2, 1, 0, 5};
  EXPECT_EQ(ordered(f), expected);
  EXPECT_EQ(ordered(f, 2), expected);
}

TEST(OrderHop, MatchesTheDefinitionOverRandomShapes) {
  std::mt19937_64 g(2024);
  int checked = 0;
  for (std::size_t n : {2u, 3u, 7u, 8u, 9u, 31u, 100u, 128u, 129u, 300u}) {
    for (std::uint64_t tiers : {1u, 3u, 6u, 16u, 40u}) {
      for (std::uint64_t first_values : {1u, 4u, 1000u}) {
        for (bool wide : {false, true}) {
          auto f = randomFields(g, n, tiers, first_values, wide);
          auto expected = reference(f);
          EXPECT_EQ(ordered(f), expected) << "n=" << n << " tiers=" << tiers << " firsts=" << first_values;
          EXPECT_EQ(ordered(f, tiers), expected) << "counted, n=" << n << " tiers=" << tiers;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 300);
}

TEST(OrderHop, PrefixCutsAreSetRight) {
  // Firsts that agree in their top 50 differing bits and differ below: the prefix keeps about
  // 40 bits of them, so only the insertion pass can order them.
  std::mt19937_64 g(7);
  std::vector<OrderFields> f(100);
  for (std::size_t i = 0; i < f.size(); ++i) {
    f[i].first = (std::uint64_t{1} << 63) | (g() & 0xfff);  // differing: bit 63 (with 0s) and the low 12
    if (i % 3 == 0) f[i].first = g() & 0xfff;
    f[i].second = g();
  }
  EXPECT_EQ(ordered(f), reference(f));
  EXPECT_EQ(ordered(f, 1), reference(f));
}

}  // namespace
}  // namespace llmux::routing

#include "core/ascii_scan.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace llmux {
namespace {

bool isJsonSpecial(unsigned char c) { return c < 0x20 || c == '"' || c == '\\'; }
bool isHeaderControl(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

#if defined(__SSE2__)
__m128i load16(char const* p) { return _mm_loadu_si128(reinterpret_cast<__m128i const*>(p)); }
/// Lanes holding a byte <= 0x1F.
__m128i controls(__m128i v) {
  __m128i const control_max = _mm_set1_epi8(0x1F);
  return _mm_cmpeq_epi8(_mm_max_epu8(v, control_max), control_max);
}
#endif

/// The first offset in `s` where `lanes` (per 16-byte block) or `is` (for the tail) holds.
template <class Lanes, class Is>
std::size_t findFirst(std::string_view s, Lanes lanes, Is is) {
  char const* p = s.data();
  char const* const end = p + s.size();
#if defined(__SSE2__)
  for (; end - p >= 16; p += 16) {
    if (unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(lanes(load16(p)))); mask != 0) {
      return static_cast<std::size_t>(p - s.data()) + static_cast<std::size_t>(__builtin_ctz(mask));
    }
  }
#else
  (void)lanes;
#endif
  for (; p < end; ++p) {
    if (is(static_cast<unsigned char>(*p))) break;
  }
  return static_cast<std::size_t>(p - s.data());
}

}  // namespace

std::size_t findJsonSpecial(std::string_view s) {
#if defined(__SSE2__)
  auto lanes = [](__m128i v) {
    __m128i quotes = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i backslashes = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    return _mm_or_si128(_mm_or_si128(quotes, backslashes), controls(v));
  };
#else
  auto lanes = nullptr;
#endif
  return findFirst(s, lanes, isJsonSpecial);
}

std::size_t findHeaderControl(std::string_view s) {
#if defined(__SSE2__)
  auto lanes = [](__m128i v) {
    __m128i tabs = _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'));
    __m128i dels = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f));
    return _mm_or_si128(_mm_andnot_si128(tabs, controls(v)), dels);
  };
#else
  auto lanes = nullptr;
#endif
  return findFirst(s, lanes, isHeaderControl);
}

}  // namespace llmux

#include "mock/mock_ids.h"

#include <cstring>

namespace llmux::mock {
namespace {

constexpr std::uint64_t kMul = 0x9E3779B97F4A7C15ULL;

std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ULL;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBULL;
  x ^= x >> 31;
  return x;
}

constexpr std::string_view kAlnum =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
constexpr std::string_view kHex = "0123456789abcdef";
constexpr std::string_view kBase64 =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kBase64Url =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

}  // namespace

std::uint64_t hashBytes(std::string_view bytes, std::uint64_t seed) {
  std::uint64_t h = seed ^ (bytes.size() * kMul);
  std::size_t i = 0;
  for (; i + 8 <= bytes.size(); i += 8) {
    std::uint64_t word;
    std::memcpy(&word, bytes.data() + i, 8);
    h = (h ^ mix(word)) * kMul;
  }
  std::uint64_t tail = 0;
  for (std::size_t shift = 0; i < bytes.size(); ++i, shift += 8) {
    tail |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[i])) << shift;
  }
  return mix(h ^ mix(tail + 1));
}

std::uint64_t IdSource::next() {
  state_ += kMul;  // splitmix64
  return mix(state_);
}

std::string IdSource::fromAlphabet(std::string_view alphabet, std::size_t n) {
  std::string out;
  out.reserve(n + 3);
  std::uint64_t bits = 0;
  int left = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (left < 8) {
      bits = next();
      left = 64;
    }
    out.push_back(alphabet[(bits & 0xFF) % alphabet.size()]);
    bits >>= 8;
    left -= 8;
  }
  return out;
}

std::string IdSource::alnum(std::size_t n) {
  return fromAlphabet(kAlnum, n);
}
std::string IdSource::hex(std::size_t n) {
  return fromAlphabet(kHex, n);
}

std::string IdSource::base64(std::size_t n) {
  std::string out = fromAlphabet(kBase64, n);
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

std::string IdSource::base64Url(std::size_t n) {
  std::string out = fromAlphabet(kBase64Url, n);
  while (out.size() % 4 != 0) out.push_back('=');
  return out;
}

std::int64_t IdSource::unixTime() {
  // Mid-2025 onwards: the era of the recordings the mock imitates.
  return 1'750'000'000 + static_cast<std::int64_t>(next() % 20'000'000);
}

}  // namespace llmux::mock

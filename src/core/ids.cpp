#include "core/ids.h"

#include <sys/random.h>

#include <array>
#include <cstdint>
#include <random>

namespace llmux {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void fillFromOs(void* out, std::size_t size) {
  auto* p = static_cast<unsigned char*>(out);
  while (size > 0) {
    ssize_t n = getrandom(p, size, 0);
    if (n <= 0) continue;  // EINTR; getrandom never fails otherwise once the pool is ready
    p += n;
    size -= static_cast<std::size_t>(n);
  }
}

// Request ids need uniqueness, not secrecy: a per-thread generator seeded from the OS avoids a
// syscall per request.
std::mt19937_64& threadGenerator() {
  thread_local std::mt19937_64 generator = [] {
    std::array<std::uint64_t, 2> seed{};
    fillFromOs(seed.data(), sizeof(seed));
    std::seed_seq seq{seed[0], seed[1]};
    return std::mt19937_64(seq);
  }();
  return generator;
}

void appendHex(std::string& out, std::uint64_t v) {
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kHex[(v >> shift) & 0xF]);
}

}  // namespace

std::string newRequestId() {
  auto& g = threadGenerator();
  std::string id;
  id.reserve(32);
  appendHex(id, g());
  appendHex(id, g());
  return id;
}

bool isAcceptableRequestId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (unsigned char c : id) {
    if (c <= 0x20 || c >= 0x7F) return false;
  }
  return true;
}

std::string randomHex(std::size_t bytes) {
  std::string raw(bytes, '\0');
  fillFromOs(raw.data(), raw.size());
  std::string out;
  out.reserve(bytes * 2);
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
  }
  return out;
}

}  // namespace llmux

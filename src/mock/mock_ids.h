#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::mock {

/// A fast 64-bit hash of `bytes` (8 bytes per step). Not cryptographic: it only makes the mock's
/// ids and timestamps a pure function of the request.
std::uint64_t hashBytes(std::string_view bytes, std::uint64_t seed = 0);

/// Deterministic generator of provider-looking ids, signatures and numbers. Seeded from the
/// request hash so that the same request always gets the same bytes back.
class IdSource {
 public:
  explicit IdSource(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next();
  /// `n` characters from [A-Za-z0-9].
  std::string alnum(std::size_t n);
  /// `n` lowercase hex digits.
  std::string hex(std::size_t n);
  /// `n` characters from the standard base64 alphabet, plus padding to a multiple of 4.
  std::string base64(std::size_t n);
  /// `n` characters from the URL-safe base64 alphabet, plus padding to a multiple of 4.
  std::string base64Url(std::size_t n);
  /// A unix timestamp in a recent, plausible range.
  std::int64_t unixTime();

 private:
  std::string fromAlphabet(std::string_view alphabet, std::size_t n);
  std::uint64_t state_;
};

}  // namespace llmux::mock

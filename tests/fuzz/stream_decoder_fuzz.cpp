// One protocol's stream decoder on arbitrary bytes, cut at fuzzer-chosen places: no crash, no
// hang, bounded memory, a well-formed event sequence after finish(), and valid frames from every
// stream encoder fed those events (translate_fuzz_support.h). Built once per protocol:
// LLMUX_FUZZ_PROTOCOL names it; LLMUX_FUZZ_JSON_ARRAY feeds `[` first so that every input takes
// the Gemini decoder's JSON-array path instead of whichever framing its first byte picks.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "translate_fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view input(reinterpret_cast<char const*>(data), size);
#ifdef LLMUX_FUZZ_JSON_ARRAY
  std::string_view prefix = "[";
#else
  std::string_view prefix;
#endif
  llmux::fuzz::fuzzStreamDecoder(llmux::Protocol::LLMUX_FUZZ_PROTOCOL, input, prefix);
  return 0;
}

// The request and response decoders of every protocol on arbitrary bodies, and whatever they
// accept encoded into every protocol: no crash, no hang, bounded memory, and every encoded body
// valid JSON that the target protocol's decoder then reads without crashing.
//
// Input: one selector byte, then the body. Selector bits 0-1: the protocol (core/wire_protocol.h
// order); bit 2: a response (else a request); bit 3: a Gemini request's streaming flag (Gemini
// takes it from the URL).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "translate/codec.h"
#include "translate_fuzz_support.h"

using llmux::kAllProtocols;
using llmux::Protocol;
namespace translate = llmux::translate;

namespace {

void fuzzRequest(Protocol protocol, std::string_view body, bool stream) {
  auto request = translate::decodeRequest(protocol, body, "fuzz-model", stream);
  if (!request.ok()) return;
  for (Protocol target : kAllProtocols) {
    auto encoded = translate::encodeRequest(target, *request, "fuzz-upstream");
    if (!encoded.ok()) continue;
    llmux::fuzz::checkJson(*encoded, llmux::protocolName(target));
    (void)translate::decodeRequest(target, *encoded, "fuzz-upstream", request->stream);
  }
}

void fuzzResponse(Protocol protocol, std::string_view body) {
  auto response = translate::decodeResponse(protocol, body);
  if (!response.ok()) return;
  translate::EncodeOptions options;
  options.model = "fuzz-model";
  options.id = "fuzz-id";
  options.created = 1700000000;
  for (Protocol target : kAllProtocols) {
    std::string encoded = translate::encodeResponse(target, *response, options);
    llmux::fuzz::checkJson(encoded, llmux::protocolName(target));
    (void)translate::decodeResponse(target, encoded);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size == 0) return 0;
  std::uint8_t selector = data[0];
  std::string_view body(reinterpret_cast<char const*>(data) + 1, size - 1);
  Protocol protocol = kAllProtocols[selector & 3];
  if ((selector & 4) != 0) {
    fuzzResponse(protocol, body);
  } else {
    fuzzRequest(protocol, body, (selector & 8) != 0);
  }
  return 0;
}

#include "translate/signature_tag.h"

namespace llmux::translate {
namespace {

constexpr std::string_view kRedacted = "redacted:";

}  // namespace

std::string tagSignature(std::string_view signature, Protocol origin, bool redacted) {
  std::string out(kSignatureTag);
  out += protocolName(origin);
  out.push_back(':');
  if (redacted) out += kRedacted;
  out += signature;
  return out;
}

CarriedSignature untagSignature(std::string_view text, Protocol untagged_origin) {
  if (text.empty()) return {};
  if (text.starts_with(kSignatureTag)) {
    std::string_view rest = text.substr(kSignatureTag.size());
    auto colon = rest.find(':');
    if (colon != std::string_view::npos) {
      if (auto origin = parseProtocol(rest.substr(0, colon))) {
        std::string_view value = rest.substr(colon + 1);
        // Providers' signatures are base64: none starts with "redacted:".
        bool redacted = value.starts_with(kRedacted);
        if (redacted) value.remove_prefix(kRedacted.size());
        return CarriedSignature{std::string(value), origin, redacted};
      }
    }
  }
  return CarriedSignature{std::string(text), untagged_origin, false};
}

}  // namespace llmux::translate

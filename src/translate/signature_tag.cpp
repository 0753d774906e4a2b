#include "translate/signature_tag.h"

namespace llmux::translate {
namespace {

constexpr std::string_view kRedacted = "redacted:";
constexpr std::string_view kNextPart = "next:";

}  // namespace

std::string tagSignature(std::string_view signature, Protocol origin, SignatureKind kind) {
  std::string out(kSignatureTag);
  out += protocolName(origin);
  out.push_back(':');
  if (kind == SignatureKind::Redacted) out += kRedacted;
  if (kind == SignatureKind::NextPart) out += kNextPart;
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
        // Providers' signatures are base64: none starts with "redacted:" or "next:".
        SignatureKind kind = SignatureKind::Reasoning;
        if (value.starts_with(kRedacted)) {
          kind = SignatureKind::Redacted;
          value.remove_prefix(kRedacted.size());
        } else if (value.starts_with(kNextPart)) {
          kind = SignatureKind::NextPart;
          value.remove_prefix(kNextPart.size());
        }
        return CarriedSignature{std::string(value), origin, kind};
      }
    }
  }
  return CarriedSignature{std::string(text), untagged_origin, SignatureKind::Reasoning};
}

}  // namespace llmux::translate

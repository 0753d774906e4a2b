#include "core/wire_protocol.h"

namespace llmux {

std::string_view protocolName(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat: return "openai-chat";
    case Protocol::OpenAiResponses: return "openai-responses";
    case Protocol::Anthropic: return "anthropic";
    case Protocol::Gemini: return "gemini";
  }
  return "unknown";
}

std::optional<Protocol> parseProtocol(std::string_view name) {
  for (Protocol p : kAllProtocols) {
    if (protocolName(p) == name) return p;
  }
  return std::nullopt;
}

}  // namespace llmux

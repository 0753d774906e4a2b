#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace llmux {

/// The four LLM wire protocols llmux accepts from clients and speaks to upstreams.
enum class Protocol : std::uint8_t {
  OpenAiChat,       ///< POST /v1/chat/completions
  OpenAiResponses,  ///< POST /v1/responses
  Anthropic,        ///< POST /v1/messages
  Gemini,           ///< POST /v1beta/models/{model}:generateContent | :streamGenerateContent
};

inline constexpr std::array<Protocol, 4> kAllProtocols = {
    Protocol::OpenAiChat, Protocol::OpenAiResponses, Protocol::Anthropic, Protocol::Gemini};

/// The configuration spelling: "openai-chat", "openai-responses", "anthropic", "gemini".
std::string_view protocolName(Protocol protocol);

/// Parses the configuration spelling; nullopt when unknown.
std::optional<Protocol> parseProtocol(std::string_view name);

/// Where the upstream model goes in a Gemini row's configured `chat_path`
/// ("/api/v1/models/{model}"; the gateway appends ":generateContent" and the like).
inline constexpr std::string_view kModelPlaceholder = "{model}";

}  // namespace llmux

#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "core/http_headers.h"

namespace llmux::protocol {

/// One model the gateway offers a client.
struct ModelEntry {
  std::string id;
  std::string owned_by;      ///< OpenAI `owned_by`; "llmux" when empty
  std::int64_t created = 0;  ///< unix seconds (OpenAI `created`, Anthropic `created_at`)
};

/// OpenAI GET /v1/models: {"object":"list","data":[{"id","object":"model","created","owned_by"}]}.
std::string renderOpenAiModelList(std::span<ModelEntry const> models);

/// Anthropic GET /v1/models: {"data":[{"type":"model","id","display_name","created_at"}],
/// "has_more":false,"first_id","last_id"} with RFC 3339 `created_at` and null ids when empty.
std::string renderAnthropicModelList(std::span<ModelEntry const> models);

/// Gemini GET /v1beta/models: {"models":[{"name":"models/<id>","baseModelId","displayName",
/// "supportedGenerationMethods":["generateContent","streamGenerateContent","countTokens"]}]}.
std::string renderGeminiModelList(std::span<ModelEntry const> models);

/// Which shape GET /v1/models answers in, shared by OpenAI and Anthropic clients.
enum class ModelListShape {
  OpenAi,     ///< the default
  Anthropic,  ///< the request carries `anthropic-version`, which every Anthropic SDK sends
};

ModelListShape modelListShapeFor(HeaderList const& headers);

}  // namespace llmux::protocol

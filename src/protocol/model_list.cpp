#include "protocol/model_list.h"

#include <chrono>
#include <cstdio>
#include <string_view>

#include "core/json_text.h"

namespace llmux::protocol {
namespace {

/// Unix seconds as RFC 3339 UTC ("2025-02-19T00:00:00Z").
std::string rfc3339(std::int64_t unix_seconds) {
  using namespace std::chrono;
  sys_seconds t{seconds{unix_seconds}};
  sys_days day = floor<days>(t);
  year_month_day ymd{day};
  hh_mm_ss hms{t - day};
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02dZ", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(hms.hours().count()), static_cast<int>(hms.minutes().count()),
                static_cast<int>(hms.seconds().count()));
  return buf;
}

}  // namespace

std::string renderOpenAiModelList(std::span<ModelEntry const> models) {
  std::string out = "{\"object\":\"list\",\"data\":[";
  bool first = true;
  for (ModelEntry const& m : models) {
    if (!first) out += ',';
    first = false;
    out += "{\"id\":";
    appendJsonString(out, m.id);
    out += ",\"object\":\"model\",\"created\":";
    out += std::to_string(m.created);
    out += ",\"owned_by\":";
    appendJsonString(out, m.owned_by.empty() ? std::string_view("llmux") : m.owned_by);
    out += '}';
  }
  out += "]}";
  return out;
}

std::string renderAnthropicModelList(std::span<ModelEntry const> models) {
  std::string out = "{\"data\":[";
  bool first = true;
  for (ModelEntry const& m : models) {
    if (!first) out += ',';
    first = false;
    out += "{\"type\":\"model\",\"id\":";
    appendJsonString(out, m.id);
    out += ",\"display_name\":";
    appendJsonString(out, m.id);
    out += ",\"created_at\":";
    appendJsonString(out, rfc3339(m.created));
    out += '}';
  }
  out += "],\"has_more\":false,\"first_id\":";
  if (models.empty()) {
    out += "null,\"last_id\":null}";
    return out;
  }
  appendJsonString(out, models.front().id);
  out += ",\"last_id\":";
  appendJsonString(out, models.back().id);
  out += '}';
  return out;
}

std::string renderGeminiModelList(std::span<ModelEntry const> models) {
  constexpr std::string_view kPrefix = "models/";
  std::string out = "{\"models\":[";
  bool first = true;
  for (ModelEntry const& m : models) {
    std::string_view id = m.id;
    if (id.starts_with(kPrefix)) id.remove_prefix(kPrefix.size());
    if (!first) out += ',';
    first = false;
    out += "{\"name\":";
    appendJsonString(out, std::string(kPrefix) + std::string(id));
    out += ",\"baseModelId\":";
    appendJsonString(out, id);
    out += ",\"displayName\":";
    appendJsonString(out, id);
    out +=
        ",\"supportedGenerationMethods\":"
        "[\"generateContent\",\"streamGenerateContent\",\"countTokens\"]}";
  }
  out += "]}";
  return out;
}

ModelListShape modelListShapeFor(HeaderList const& headers) {
  return headers.has("anthropic-version") ? ModelListShape::Anthropic : ModelListShape::OpenAi;
}

}  // namespace llmux::protocol

#include "protocol/upstream_path.h"

#include "protocol/percent_encoding.h"

namespace llmux::protocol {
namespace {

bool endsWithSegment(std::string_view path, std::string_view segment) {
  // "/v1" matches "/v1" and "/relay/v1", not "/apiv1".
  return path.ends_with(segment);
}

std::string versioned(std::string_view prefix, std::string_view version, std::string_view tail) {
  std::string out(prefix);
  if (!endsWithSegment(prefix, version)) out += version;
  out += tail;
  return out;
}

}  // namespace

std::string upstreamPath(std::string_view path_prefix, Route const& route,
                         std::string_view upstream_model) {
  while (path_prefix.ends_with('/')) path_prefix.remove_suffix(1);
  switch (route.kind) {
    case RouteKind::ChatCompletions:
      return versioned(path_prefix, "/v1", "/chat/completions");
    case RouteKind::Responses:
      return versioned(path_prefix, "/v1", "/responses");
    case RouteKind::Messages:
      return versioned(path_prefix, "/v1", "/messages");
    case RouteKind::CountTokens:
      return versioned(path_prefix, "/v1", "/messages/count_tokens");
    case RouteKind::GeminiGenerate:
    case RouteKind::GeminiCountTokens: {
      constexpr std::string_view kPrefix = "models/";
      if (upstream_model.starts_with(kPrefix)) upstream_model.remove_prefix(kPrefix.size());
      std::string tail = "/models/" + percentEncodeSegment(upstream_model) +
                         (route.kind == RouteKind::GeminiCountTokens ? ":countTokens"
                          : route.gemini_stream                       ? ":streamGenerateContent"
                                                                      : ":generateContent");
      if (endsWithSegment(path_prefix, "/v1")) return std::string(path_prefix) + tail;
      return versioned(path_prefix, "/v1beta", tail);
    }
    case RouteKind::ListModels:
    case RouteKind::GeminiListModels:
    case RouteKind::Healthz:
    case RouteKind::Readyz:
    case RouteKind::Metrics:
    case RouteKind::AdminFreezes:
    case RouteKind::AdminFreeze:
    case RouteKind::AdminRoutePreview:
    case RouteKind::AdminBreakers:
    case RouteKind::AdminBreaker:
    case RouteKind::AdminRacing:
    case RouteKind::AdminRacingSet:
    case RouteKind::AdminLatencyPenalties:
    case RouteKind::AdminLatencyPenalty:
      return {};
  }
  return {};
}

}  // namespace llmux::protocol

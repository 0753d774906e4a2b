#include "protocol/upstream_path.h"

#include "protocol/percent_encoding.h"

namespace llmux::protocol {
namespace {

std::string_view withoutTrailingSlashes(std::string_view prefix) {
  while (prefix.ends_with('/')) prefix.remove_suffix(1);
  return prefix;
}

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

/// Gemini's versioned root behind `prefix`: v1beta, unless the prefix already names v1.
std::string geminiRoot(std::string_view prefix) {
  if (endsWithSegment(prefix, "/v1")) return std::string(prefix);
  return versioned(prefix, "/v1beta", "");
}

/// The completion endpoint of `protocol`: the row's own chat path, else the standard one behind
/// the prefix (Gemini's with the model placeholder still in it).
std::string chatPath(Protocol protocol, RowPaths const& paths) {
  if (!paths.chat.empty()) return std::string(paths.chat);
  std::string_view prefix = withoutTrailingSlashes(paths.prefix);
  switch (protocol) {
    case Protocol::OpenAiChat:
      return versioned(prefix, "/v1", "/chat/completions");
    case Protocol::OpenAiResponses:
      return versioned(prefix, "/v1", "/responses");
    case Protocol::Anthropic:
      return versioned(prefix, "/v1", "/messages");
    case Protocol::Gemini:
      return geminiRoot(prefix) + "/models/" + std::string(kModelPlaceholder);
  }
  return {};
}

std::string_view geminiMethod(Route const& route) {
  if (route.kind == RouteKind::GeminiCountTokens) return "countTokens";
  return route.gemini_stream ? "streamGenerateContent" : "generateContent";
}

/// A Gemini chat path with its `{model}` replaced by the model as one path segment, and
/// ":method" appended.
std::string geminiPath(std::string chat_path, std::string_view upstream_model,
                       std::string_view method) {
  constexpr std::string_view kPrefix = "models/";
  if (upstream_model.starts_with(kPrefix)) upstream_model.remove_prefix(kPrefix.size());
  // A loaded row's chat path has the placeholder exactly once, at its end (checked at load).
  if (auto at = chat_path.find(kModelPlaceholder); at != std::string::npos) {
    chat_path.replace(at, kModelPlaceholder.size(), percentEncodeSegment(upstream_model));
  }
  chat_path += ':';
  chat_path += method;
  return chat_path;
}

/// The standard path of a media route behind `prefix`, before any job id.
std::string_view standardMediaTail(RouteKind kind) {
  switch (kind) {
    case RouteKind::ImageGenerations: return "/images/generations";
    case RouteKind::ImageEdits: return "/images/edits";
    case RouteKind::Embeddings: return "/embeddings";
    case RouteKind::Speech: return "/audio/speech";
    case RouteKind::Transcriptions: return "/audio/transcriptions";
    default: return "/videos";
  }
}

std::string mediaPath(RowPaths const& paths, Route const& route) {
  std::string path = !paths.media.empty()
                         ? std::string(paths.media)
                         : versioned(withoutTrailingSlashes(paths.prefix), "/v1",
                                     standardMediaTail(route.kind));
  if (route.kind == RouteKind::VideoRetrieve || route.kind == RouteKind::VideoContent) {
    while (path.ends_with('/')) path.pop_back();
    path += '/';
    path += route.video_id;  // checked by the router: [A-Za-z0-9_-] only
    if (route.kind == RouteKind::VideoContent) path += "/content";
  }
  return path;
}

}  // namespace

std::string upstreamPath(RowPaths const& paths, Route const& route,
                         std::string_view upstream_model) {
  switch (route.kind) {
    case RouteKind::ChatCompletions:
      return chatPath(Protocol::OpenAiChat, paths);
    case RouteKind::Responses:
      return chatPath(Protocol::OpenAiResponses, paths);
    case RouteKind::Messages:
      return chatPath(Protocol::Anthropic, paths);
    case RouteKind::CountTokens:
      return chatPath(Protocol::Anthropic, paths) + "/count_tokens";
    case RouteKind::GeminiGenerate:
    case RouteKind::GeminiCountTokens:
      return geminiPath(chatPath(Protocol::Gemini, paths), upstream_model, geminiMethod(route));
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits:
    case RouteKind::Embeddings:
    case RouteKind::Speech:
    case RouteKind::Transcriptions:
    case RouteKind::VideoCreate:
    case RouteKind::VideoRetrieve:
    case RouteKind::VideoContent:
      return mediaPath(paths, route);
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
    case RouteKind::AdminInspection:
    case RouteKind::AdminInspectionRun:
    case RouteKind::AdminRequestPayloads:
    case RouteKind::AdminRequests:
    case RouteKind::AdminRequest:
    case RouteKind::AdminUsage:
    case RouteKind::AdminProbes:
    case RouteKind::AdminProbeRun:
    case RouteKind::AdminObjects:
    case RouteKind::AdminObject:
    case RouteKind::AdminAudit:
      return {};
  }
  return {};
}

std::string upstreamPath(std::string_view path_prefix, Route const& route,
                         std::string_view upstream_model) {
  return upstreamPath(RowPaths{.prefix = path_prefix}, route, upstream_model);
}

std::string modelsPath(Protocol protocol, RowPaths const& paths) {
  if (!paths.models.empty()) return std::string(paths.models);
  std::string_view prefix = withoutTrailingSlashes(paths.prefix);
  if (protocol == Protocol::Gemini) return geminiRoot(prefix) + "/models";
  return versioned(prefix, "/v1", "/models");
}

std::string v1Path(std::string_view prefix, std::string_view tail) {
  return versioned(withoutTrailingSlashes(prefix), "/v1", tail);
}

std::string chatPathTemplate(Protocol protocol, RowPaths const& paths) {
  std::string path = chatPath(protocol, paths);
  if (protocol == Protocol::Gemini) path += ":generateContent";
  return path;
}

}  // namespace llmux::protocol

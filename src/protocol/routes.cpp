#include "protocol/routes.h"

#include <algorithm>

#include "protocol/percent_encoding.h"

namespace llmux::protocol {
namespace {

constexpr std::string_view kGenerate = "generateContent";
constexpr std::string_view kStreamGenerate = "streamGenerateContent";
constexpr std::string_view kCountTokens = "countTokens";

RouteLookup byMethod(std::string_view method, Route route) {
  RouteMatch match =
      method == routeMethod(route.kind) ? RouteMatch::Found : RouteMatch::MethodNotAllowed;
  return RouteLookup{match, std::move(route)};
}

Route simple(RouteKind kind, std::optional<Protocol> protocol) {
  Route route;
  route.kind = kind;
  route.protocol = protocol;
  return route;
}

/// `tail` is what follows ".../models/": "{model}:{method}".
std::optional<Route> geminiGenerate(std::string_view tail) {
  auto colon = tail.rfind(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view verb = tail.substr(colon + 1);
  bool stream = false;
  RouteKind kind = RouteKind::GeminiGenerate;
  if (verb == kStreamGenerate) {
    stream = true;
  } else if (verb == kCountTokens) {
    kind = RouteKind::GeminiCountTokens;
  } else if (verb != kGenerate) {
    return std::nullopt;
  }
  auto model = percentDecode(tail.substr(0, colon));
  if (!model) return std::nullopt;
  constexpr std::string_view kPrefix = "models/";
  if (std::string_view(*model).starts_with(kPrefix)) model->erase(0, kPrefix.size());
  if (model->empty()) return std::nullopt;
  Route route = simple(kind, Protocol::Gemini);
  route.gemini_model = std::move(*model);
  route.gemini_stream = stream;
  return route;
}

/// `/admin/{kind}/{id}` with `rest` = "/{kind}/{id}": the route with the id, or none when the
/// id is empty or holds a '/'.
RouteLookup adminIdRoute(std::string_view method, std::string_view id, RouteKind kind) {
  if (id.empty() || id.find('/') != std::string_view::npos) return RouteLookup{};
  Route route = simple(kind, std::nullopt);
  route.admin_id = std::string(id);
  return byMethod(method, std::move(route));
}

/// The sections of the configuration the admin API manages (config/managed_object.h).
constexpr std::string_view kObjectSections[] = {"channels",     "gateway_keys", "proxies",
                                                "freeze_rules", "model_groups", "fallbacks",
                                                "prices"};

/// `/admin/{section}` and `/admin/{section}/{name}`, each with several methods.
RouteLookup objectRoute(std::string_view method, std::string_view rest) {
  std::string_view const path = rest.substr(1);
  auto slash = path.find('/');
  std::string_view const section = path.substr(0, slash);
  if (std::find(std::begin(kObjectSections), std::end(kObjectSections), section) ==
      std::end(kObjectSections)) {
    return RouteLookup{};
  }
  Route route = simple(RouteKind::AdminObjects, std::nullopt);
  route.admin_section = std::string(section);
  bool allowed = method == "GET" || method == "POST";
  // A channel's keys one by one: /admin/channels/{name}/keys[/{key}].
  if (section == "channels" && slash != std::string_view::npos) {
    std::string_view const rest_of = path.substr(slash + 1);
    auto keys = rest_of.find("/keys");
    if (keys != std::string_view::npos && keys > 0 && rest_of.substr(0, keys).find('/') == std::string_view::npos) {
      std::string_view const after = rest_of.substr(keys + 5);
      route.admin_id = std::string(rest_of.substr(0, keys));
      if (after.empty()) {
        route.kind = RouteKind::AdminChannelKeys;
        return {method == "POST" ? RouteMatch::Found : RouteMatch::MethodNotAllowed, std::move(route)};
      }
      if (after.size() > 1 && after.front() == '/' && after.find('/', 1) == std::string_view::npos) {
        route.kind = RouteKind::AdminChannelKey;
        route.admin_key = std::string(after.substr(1));
        return {method == "PUT" || method == "DELETE" ? RouteMatch::Found : RouteMatch::MethodNotAllowed,
                std::move(route)};
      }
      return RouteLookup{};
    }
  }
  if (slash != std::string_view::npos) {
    std::string_view const name = path.substr(slash + 1);
    if (name.empty() || name.find('/') != std::string_view::npos) return RouteLookup{};
    route.kind = RouteKind::AdminObject;
    route.admin_id = std::string(name);
    allowed = method == "GET" || method == "PUT" || method == "DELETE";
  }
  return {allowed ? RouteMatch::Found : RouteMatch::MethodNotAllowed, std::move(route)};
}

/// `rest` is what follows "/admin".
RouteLookup adminRoute(std::string_view method, std::string_view rest) {
  if (rest == "/audit") return byMethod(method, simple(RouteKind::AdminAudit, std::nullopt));
  if (auto object = objectRoute(method, rest); object.match != RouteMatch::NotFound) return object;
  if (rest == "/freezes") {
    if (method == "GET") return {RouteMatch::Found, simple(RouteKind::AdminFreezes, std::nullopt)};
    if (method == "POST") return {RouteMatch::Found, simple(RouteKind::AdminFreezeCreate, std::nullopt)};
    return {RouteMatch::MethodNotAllowed, simple(RouteKind::AdminFreezes, std::nullopt)};
  }
  if (rest == "/pauses") return byMethod(method, simple(RouteKind::AdminPauses, std::nullopt));
  if (rest == "/limits") return byMethod(method, simple(RouteKind::AdminLimits, std::nullopt));
  if (rest == "/requests/live") {
    return byMethod(method, simple(RouteKind::AdminRequestsLive, std::nullopt));
  }
  if (rest == "/config/export") {
    return byMethod(method, simple(RouteKind::AdminConfigExport, std::nullopt));
  }
  if (rest == "/config/import") {
    return byMethod(method, simple(RouteKind::AdminConfigImport, std::nullopt));
  }
  if (rest == "/openapi.json") return byMethod(method, simple(RouteKind::AdminOpenApi, std::nullopt));
  if (rest == "/racing") {
    // Read and change on one path: the kind tells which; a 405 allows both.
    if (method == "GET") return {RouteMatch::Found, simple(RouteKind::AdminRacing, std::nullopt)};
    if (method == "PUT") return {RouteMatch::Found, simple(RouteKind::AdminRacingSet, std::nullopt)};
    return {RouteMatch::MethodNotAllowed, simple(RouteKind::AdminRacing, std::nullopt)};
  }
  if (rest == "/latency-penalties") {
    return byMethod(method, simple(RouteKind::AdminLatencyPenalties, std::nullopt));
  }
  if (rest == "/route-preview") {
    return byMethod(method, simple(RouteKind::AdminRoutePreview, std::nullopt));
  }
  if (rest == "/breakers") return byMethod(method, simple(RouteKind::AdminBreakers, std::nullopt));
  if (rest == "/inspection") {
    return byMethod(method, simple(RouteKind::AdminInspection, std::nullopt));
  }
  if (rest == "/inspection/run") {
    return byMethod(method, simple(RouteKind::AdminInspectionRun, std::nullopt));
  }
  if (rest == "/requests") return byMethod(method, simple(RouteKind::AdminRequests, std::nullopt));
  if (rest == "/usage") return byMethod(method, simple(RouteKind::AdminUsage, std::nullopt));
  if (rest == "/probes") return byMethod(method, simple(RouteKind::AdminProbes, std::nullopt));
  if (rest == "/probes/run") return byMethod(method, simple(RouteKind::AdminProbeRun, std::nullopt));
  constexpr std::string_view kBreakers = "/breakers/";
  if (rest.starts_with(kBreakers)) {
    std::string_view pair = rest.substr(kBreakers.size());
    auto slash = pair.find('/');
    if (slash == 0 || slash == std::string_view::npos || slash + 1 == pair.size()) return RouteLookup{};
    Route route = simple(RouteKind::AdminBreaker, std::nullopt);
    route.admin_id = std::string(pair);
    return byMethod(method, std::move(route));
  }
  constexpr std::string_view kFreezes = "/freezes/";
  if (rest.starts_with(kFreezes)) {
    return adminIdRoute(method, rest.substr(kFreezes.size()), RouteKind::AdminFreeze);
  }
  constexpr std::string_view kPenalties = "/latency-penalties/";
  if (rest.starts_with(kPenalties)) {
    return adminIdRoute(method, rest.substr(kPenalties.size()), RouteKind::AdminLatencyPenalty);
  }
  constexpr std::string_view kRequests = "/requests/";
  constexpr std::string_view kPayloads = "/payloads";
  if (rest.size() > kRequests.size() + kPayloads.size() && rest.starts_with(kRequests) &&
      rest.ends_with(kPayloads)) {
    std::string_view id = rest.substr(kRequests.size(), rest.size() - kRequests.size() - kPayloads.size());
    return adminIdRoute(method, id, RouteKind::AdminRequestPayloads);
  }
  if (rest.starts_with(kRequests)) {
    return adminIdRoute(method, rest.substr(kRequests.size()), RouteKind::AdminRequest);
  }
  return RouteLookup{};
}

/// `/console`, `/console/session` and `/console/{file}` ("" for the page itself).
RouteLookup consoleRoute(std::string_view method, std::string_view path) {
  if (path == "/console/session") {
    Route route = simple(RouteKind::ConsoleSession, std::nullopt);
    bool allowed = method == "GET" || method == "POST" || method == "DELETE";
    return {allowed ? RouteMatch::Found : RouteMatch::MethodNotAllowed, std::move(route)};
  }
  Route route = simple(RouteKind::ConsolePage, std::nullopt);
  if (path.size() > 9) route.admin_id = std::string(path.substr(9));  // after "/console/"
  return byMethod(method, std::move(route));
}

/// A video job id as a path segment: OpenAI's are "video_" and hex; anything else is refused.
bool isVideoId(std::string_view id) {
  if (id.empty() || id.size() > 128) return false;
  for (char c : id) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

/// `rest` is what follows "/videos/": "{id}" or "{id}/content".
RouteLookup videoRoute(std::string_view method, std::string_view rest) {
  constexpr std::string_view kContent = "/content";
  RouteKind kind = RouteKind::VideoRetrieve;
  if (rest.ends_with(kContent)) {
    rest.remove_suffix(kContent.size());
    kind = RouteKind::VideoContent;
  }
  if (!isVideoId(rest)) return RouteLookup{};
  Route route = simple(kind, Protocol::OpenAiChat);
  route.video_id = std::string(rest);
  return byMethod(method, std::move(route));
}

/// The media routes by their path after the version segment.
std::optional<RouteKind> mediaRoute(std::string_view rest) {
  if (rest == "/images/generations") return RouteKind::ImageGenerations;
  if (rest == "/images/edits") return RouteKind::ImageEdits;
  if (rest == "/embeddings") return RouteKind::Embeddings;
  if (rest == "/audio/speech") return RouteKind::Speech;
  if (rest == "/audio/transcriptions") return RouteKind::Transcriptions;
  if (rest == "/videos") return RouteKind::VideoCreate;
  return std::nullopt;
}

}  // namespace

bool isMediaRoute(RouteKind kind) {
  switch (kind) {
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits:
    case RouteKind::Embeddings:
    case RouteKind::Speech:
    case RouteKind::Transcriptions:
    case RouteKind::VideoCreate:
    case RouteKind::VideoRetrieve:
    case RouteKind::VideoContent:
      return true;
    default:
      return false;
  }
}

bool isUploadRoute(RouteKind kind) {
  return kind == RouteKind::ImageEdits || kind == RouteKind::Transcriptions ||
         kind == RouteKind::VideoCreate;
}

bool isAdminRoute(RouteKind kind) {
  return kind == RouteKind::AdminFreezes || kind == RouteKind::AdminFreeze ||
         kind == RouteKind::AdminRoutePreview || kind == RouteKind::AdminBreakers ||
         kind == RouteKind::AdminBreaker || kind == RouteKind::AdminRacing ||
         kind == RouteKind::AdminRacingSet || kind == RouteKind::AdminLatencyPenalties ||
         kind == RouteKind::AdminLatencyPenalty || kind == RouteKind::AdminInspection ||
         kind == RouteKind::AdminInspectionRun || kind == RouteKind::AdminRequestPayloads ||
         kind == RouteKind::AdminRequests || kind == RouteKind::AdminRequest ||
         kind == RouteKind::AdminUsage || kind == RouteKind::AdminProbes ||
         kind == RouteKind::AdminProbeRun || kind == RouteKind::AdminObjects ||
         kind == RouteKind::AdminObject || kind == RouteKind::AdminAudit ||
         kind == RouteKind::AdminFreezeCreate || kind == RouteKind::AdminPauses ||
         kind == RouteKind::AdminLimits || kind == RouteKind::AdminRequestsLive ||
         kind == RouteKind::AdminConfigExport || kind == RouteKind::AdminConfigImport ||
         kind == RouteKind::AdminOpenApi || kind == RouteKind::AdminChannelKeys ||
         kind == RouteKind::AdminChannelKey;
}

bool isConsoleRoute(RouteKind kind) {
  return kind == RouteKind::ConsolePage || kind == RouteKind::ConsoleSession;
}

RouteLookup matchRoute(std::string_view method, std::string_view path) {
  if (path == "/healthz") return byMethod(method, simple(RouteKind::Healthz, std::nullopt));
  if (path == "/readyz") return byMethod(method, simple(RouteKind::Readyz, std::nullopt));
  if (path == "/metrics") return byMethod(method, simple(RouteKind::Metrics, std::nullopt));
  if (path.starts_with("/admin/")) return adminRoute(method, path.substr(6));
  if (path == "/console" || path.starts_with("/console/")) return consoleRoute(method, path);

  // Strip the version segment: "/v1beta" is Gemini-only, "/v1" is optional for everyone.
  std::string_view rest = path;
  bool beta = false;
  if (rest.starts_with("/v1beta/")) {
    rest.remove_prefix(7);
    beta = true;
  } else if (rest.starts_with("/v1/")) {
    rest.remove_prefix(3);
  }

  if (rest == "/models") {
    return beta ? byMethod(method, simple(RouteKind::GeminiListModels, Protocol::Gemini))
                : byMethod(method, simple(RouteKind::ListModels, std::nullopt));
  }
  if (rest.starts_with("/models/")) {
    if (auto route = geminiGenerate(rest.substr(8))) return byMethod(method, std::move(*route));
    return RouteLookup{};
  }
  if (beta) return RouteLookup{};
  if (rest == "/chat/completions") {
    return byMethod(method, simple(RouteKind::ChatCompletions, Protocol::OpenAiChat));
  }
  if (rest == "/responses") {
    return byMethod(method, simple(RouteKind::Responses, Protocol::OpenAiResponses));
  }
  if (rest == "/messages")
    return byMethod(method, simple(RouteKind::Messages, Protocol::Anthropic));
  if (rest == "/messages/count_tokens") {
    return byMethod(method, simple(RouteKind::CountTokens, Protocol::Anthropic));
  }
  if (auto media = mediaRoute(rest)) return byMethod(method, simple(*media, Protocol::OpenAiChat));
  if (rest.starts_with("/videos/")) return videoRoute(method, rest.substr(8));
  return RouteLookup{};
}

std::string_view routeMethod(RouteKind kind) {
  switch (kind) {
    case RouteKind::ChatCompletions:
    case RouteKind::Responses:
    case RouteKind::Messages:
    case RouteKind::CountTokens:
    case RouteKind::GeminiGenerate:
    case RouteKind::GeminiCountTokens:
    case RouteKind::AdminRoutePreview:
    case RouteKind::AdminInspectionRun:
    case RouteKind::AdminProbeRun:
    case RouteKind::AdminConfigImport:
    case RouteKind::AdminChannelKeys:
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits:
    case RouteKind::Embeddings:
    case RouteKind::Speech:
    case RouteKind::Transcriptions:
    case RouteKind::VideoCreate:
      return "POST";
    case RouteKind::AdminFreeze:
    case RouteKind::AdminBreaker:
    case RouteKind::AdminLatencyPenalty:
      return "DELETE";
    case RouteKind::AdminRacing:
    case RouteKind::AdminRacingSet:
      return "GET, PUT";
    case RouteKind::AdminObjects:
      return "GET, POST";
    case RouteKind::AdminObject:
      return "GET, PUT, DELETE";
    case RouteKind::AdminFreezes:
    case RouteKind::AdminFreezeCreate:
      return "GET, POST";
    case RouteKind::ConsoleSession:
      return "GET, POST, DELETE";
    case RouteKind::AdminChannelKey:
      return "PUT, DELETE";
    case RouteKind::AdminPauses:
    case RouteKind::AdminLimits:
    case RouteKind::AdminRequestsLive:
    case RouteKind::AdminConfigExport:
    case RouteKind::AdminOpenApi:
    case RouteKind::ConsolePage:
      return "GET";
    case RouteKind::AdminAudit:
    case RouteKind::ListModels:
    case RouteKind::GeminiListModels:
    case RouteKind::Healthz:
    case RouteKind::Readyz:
    case RouteKind::Metrics:
    case RouteKind::AdminBreakers:
    case RouteKind::AdminLatencyPenalties:
    case RouteKind::AdminInspection:
    case RouteKind::AdminRequestPayloads:
    case RouteKind::AdminRequests:
    case RouteKind::AdminRequest:
    case RouteKind::AdminUsage:
    case RouteKind::AdminProbes:
    case RouteKind::VideoRetrieve:
    case RouteKind::VideoContent:
      return "GET";
  }
  return "GET";
}

std::string_view routeLabel(Route const& route) {
  switch (route.kind) {
    case RouteKind::ChatCompletions:
      return "/v1/chat/completions";
    case RouteKind::Responses:
      return "/v1/responses";
    case RouteKind::Messages:
      return "/v1/messages";
    case RouteKind::CountTokens:
      return "/v1/messages/count_tokens";
    case RouteKind::GeminiGenerate:
      return route.gemini_stream ? "/v1beta/models/{model}:streamGenerateContent"
                                 : "/v1beta/models/{model}:generateContent";
    case RouteKind::GeminiCountTokens:
      return "/v1beta/models/{model}:countTokens";
    case RouteKind::ListModels:
      return "/v1/models";
    case RouteKind::GeminiListModels:
      return "/v1beta/models";
    case RouteKind::Healthz:
      return "/healthz";
    case RouteKind::Readyz:
      return "/readyz";
    case RouteKind::Metrics:
      return "/metrics";
    case RouteKind::AdminFreezes:
      return "/admin/freezes";
    case RouteKind::AdminFreeze:
      return "/admin/freezes/{id}";
    case RouteKind::AdminRoutePreview:
      return "/admin/route-preview";
    case RouteKind::AdminBreakers:
      return "/admin/breakers";
    case RouteKind::AdminBreaker:
      return "/admin/breakers/{channel}/{model}";
    case RouteKind::AdminRacing:
    case RouteKind::AdminRacingSet:
      return "/admin/racing";
    case RouteKind::AdminLatencyPenalties:
      return "/admin/latency-penalties";
    case RouteKind::AdminLatencyPenalty:
      return "/admin/latency-penalties/{id}";
    case RouteKind::AdminInspection:
      return "/admin/inspection";
    case RouteKind::AdminInspectionRun:
      return "/admin/inspection/run";
    case RouteKind::AdminRequestPayloads:
      return "/admin/requests/{id}/payloads";
    case RouteKind::AdminRequests:
      return "/admin/requests";
    case RouteKind::AdminRequest:
      return "/admin/requests/{id}";
    case RouteKind::AdminUsage:
      return "/admin/usage";
    case RouteKind::AdminProbes:
      return "/admin/probes";
    case RouteKind::AdminProbeRun:
      return "/admin/probes/run";
    case RouteKind::AdminObjects:
      return "/admin/{section}";
    case RouteKind::AdminObject:
      return "/admin/{section}/{name}";
    case RouteKind::AdminAudit:
      return "/admin/audit";
    case RouteKind::AdminFreezeCreate:
      return "/admin/freezes";
    case RouteKind::AdminPauses:
      return "/admin/pauses";
    case RouteKind::AdminLimits:
      return "/admin/limits";
    case RouteKind::AdminRequestsLive:
      return "/admin/requests/live";
    case RouteKind::AdminConfigExport:
      return "/admin/config/export";
    case RouteKind::AdminConfigImport:
      return "/admin/config/import";
    case RouteKind::AdminOpenApi:
      return "/admin/openapi.json";
    case RouteKind::AdminChannelKeys:
      return "/admin/channels/{name}/keys";
    case RouteKind::AdminChannelKey:
      return "/admin/channels/{name}/keys/{key}";
    case RouteKind::ConsolePage:
      return "/console/{file}";
    case RouteKind::ConsoleSession:
      return "/console/session";
    case RouteKind::ImageGenerations:
      return "/v1/images/generations";
    case RouteKind::ImageEdits:
      return "/v1/images/edits";
    case RouteKind::Embeddings:
      return "/v1/embeddings";
    case RouteKind::Speech:
      return "/v1/audio/speech";
    case RouteKind::Transcriptions:
      return "/v1/audio/transcriptions";
    case RouteKind::VideoCreate:
      return "/v1/videos";
    case RouteKind::VideoRetrieve:
      return "/v1/videos/{id}";
    case RouteKind::VideoContent:
      return "/v1/videos/{id}/content";
  }
  return "";
}

}  // namespace llmux::protocol

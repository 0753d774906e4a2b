#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux::protocol {

/// Every endpoint llmux serves to clients.
enum class RouteKind {
  ChatCompletions,   ///< POST /v1/chat/completions (OpenAI Chat)
  Responses,         ///< POST /v1/responses (OpenAI Responses)
  Messages,          ///< POST /v1/messages (Anthropic)
  CountTokens,       ///< POST /v1/messages/count_tokens (Anthropic)
  GeminiGenerate,    ///< POST /v1beta/models/{model}:generateContent | :streamGenerateContent
  GeminiCountTokens, ///< POST /v1beta/models/{model}:countTokens
  ListModels,        ///< GET /v1/models (OpenAI or Anthropic shape, decided by the headers)
  GeminiListModels,  ///< GET /v1beta/models
  Healthz,           ///< GET /healthz
  Readyz,            ///< GET /readyz
  Metrics,           ///< GET /metrics
  // Media (OpenAI's API; docs/media.md): routed to the channels whose `media:` enables them.
  ImageGenerations,     ///< POST /v1/images/generations
  ImageEdits,           ///< POST /v1/images/edits (multipart)
  Embeddings,           ///< POST /v1/embeddings
  Speech,               ///< POST /v1/audio/speech (answers binary audio)
  Transcriptions,       ///< POST /v1/audio/transcriptions (multipart)
  VideoCreate,          ///< POST /v1/videos (JSON or multipart): starts a job
  VideoRetrieve,        ///< GET /v1/videos/{id}: the job, from whoever created it
  VideoContent,         ///< GET /v1/videos/{id}/content: the job's bytes
  // The admin API (admin token, never a gateway key; off when no admin token is set).
  AdminFreezes,       ///< GET /admin/freezes
  AdminFreeze,        ///< DELETE /admin/freezes/{id}
  AdminRoutePreview,  ///< POST /admin/route-preview
  AdminBreakers,      ///< GET /admin/breakers
  AdminBreaker,       ///< DELETE /admin/breakers/{channel}/{model}: reset to closed
  AdminRacing,            ///< GET /admin/racing
  AdminRacingSet,         ///< PUT /admin/racing: the global switch and cost preference
  AdminLatencyPenalties,  ///< GET /admin/latency-penalties
  AdminLatencyPenalty,    ///< DELETE /admin/latency-penalties/{id}
  AdminInspection,        ///< GET /admin/inspection: model lists and balances last seen
  AdminInspectionRun,     ///< POST /admin/inspection/run: inspect a channel now
  AdminRequestPayloads,   ///< GET /admin/requests/{id}/payloads: the captured bodies (ClickHouse)
  AdminRequests,          ///< GET /admin/requests: the request log searched
  AdminRequest,           ///< GET /admin/requests/{id}: one request with its attempts
  AdminUsage,             ///< GET /admin/usage: usage and cost aggregates
  AdminProbes,            ///< GET /admin/probes: the latest health probe results
  AdminProbeRun,          ///< POST /admin/probes/run: one health probe now
  // The configuration's objects (docs/admin-api.md): `admin_section` names the kind.
  AdminObjects,      ///< GET (list) and POST (create) /admin/{section}
  AdminObject,       ///< GET, PUT, DELETE /admin/{section}/{name}
  AdminAudit,        ///< GET /admin/audit: the changes made through the admin API
  AdminFreezeCreate,   ///< POST /admin/freezes: an operator freezes a key (or key + model)
  AdminPauses,         ///< GET /admin/pauses: keys out of rotation for a while (429, 401/403)
  AdminLimits,         ///< GET /admin/limits: each gateway key's limits and what it uses of them
  AdminRequestsLive,   ///< GET /admin/requests/live: finished requests as Server-Sent Events
  AdminConfigExport,   ///< GET /admin/config/export: the configuration in force as one YAML
  AdminConfigImport,   ///< POST /admin/config/import: a YAML whose objects replace the managed ones
  AdminOpenApi,        ///< GET /admin/openapi.json: the admin API described in OpenAPI 3.1
  AdminChannelKeys,    ///< POST /admin/channels/{name}/keys: a key added to a channel
  AdminChannelKey,     ///< PUT, DELETE /admin/channels/{name}/keys/{key}: one key changed, removed
  // The web console (docs/console.md): served where the admin API is.
  ConsolePage,     ///< GET /console, /console/{file}: the console's files (`admin_id`: the file)
  ConsoleSession,  ///< GET, POST, DELETE /console/session: sign in and out with an admin token
  // Keep ConsoleSession last: tests walk every kind up to it.
};

/// Whether the route belongs to the admin API (/admin/*): authorised by the admin token, before
/// and instead of gateway-key admission.
bool isAdminRoute(RouteKind kind);

/// Whether the route belongs to the web console (/console/*): served on the admin API's address,
/// its files to anyone, its session to the holder of an admin token.
bool isConsoleRoute(RouteKind kind);

/// Whether the route is one of the media endpoints (ImageGenerations … VideoContent).
bool isMediaRoute(RouteKind kind);

/// Whether the route takes multipart uploads (image edits, transcriptions, video jobs): its body
/// limit is the upload one (ServerSettings::bodyLimitFor).
bool isUploadRoute(RouteKind kind);

/// A matched route. `protocol` is the client protocol whose request and error shapes apply; it is
/// empty for routes that serve no single protocol (health, metrics, the shared /v1/models).
struct Route {
  RouteKind kind = RouteKind::Healthz;
  std::optional<Protocol> protocol;
  std::string gemini_model;    ///< Gemini routes: the model id, percent-decoded, no "models/"
  bool gemini_stream = false;  ///< GeminiGenerate: the method was streamGenerateContent
  std::string admin_id;        ///< AdminFreeze, AdminLatencyPenalty, AdminRequest(Payloads): the id from the path, as
                               ///< sent; AdminBreaker: "{channel}/{model}" (the model may hold '/');
                               ///< AdminObject, AdminChannelKey(s): the object's (channel's)
                               ///< name, percent-encoded as sent
  std::string video_id;        ///< VideoRetrieve, VideoContent: the job id (1-128 of [A-Za-z0-9_-])
  std::string admin_section;   ///< AdminObjects, AdminObject: "channels", "gateway_keys", ...
  std::string admin_key;       ///< AdminChannelKey: the key's name, position or label, as sent
};

/// Outcome of a lookup.
enum class RouteMatch {
  Found,             ///< method and path match
  NotFound,          ///< no route has this path
  MethodNotAllowed,  ///< the path is known but not with this method (`route` tells which)
};

struct RouteLookup {
  RouteMatch match = RouteMatch::NotFound;
  Route route;  ///< meaningful for Found and MethodNotAllowed
};

/// Matches a request line. `path` excludes the query string. The `/v1` prefix is optional on
/// every versioned route; Gemini generation also answers under `/v1beta`, `/v1` and bare
/// `/models/...`, with a percent-encoded model id that may carry a redundant `models/` prefix.
RouteLookup matchRoute(std::string_view method, std::string_view path);

/// The HTTP method the route answers, or for a path with several, all of them ("GET, PUT" on
/// /admin/racing): the `Allow` header of a 405.
std::string_view routeMethod(RouteKind kind);

/// Canonical path of the route, with `{model}` and `{id}` unexpanded: a bounded label for logs and metrics.
std::string_view routeLabel(Route const& route);

}  // namespace llmux::protocol

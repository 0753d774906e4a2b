#include "protocol/routes.h"

#include <gtest/gtest.h>

namespace llmux::protocol {
namespace {

struct RouteCase {
  std::string_view method;
  std::string_view path;
  RouteMatch match;
  RouteKind kind;
  std::optional<Protocol> protocol;
};

TEST(Routes, MatchesEveryRouteWithAndWithoutTheV1Prefix) {
  RouteCase const cases[] = {
      {"POST", "/v1/chat/completions", RouteMatch::Found, RouteKind::ChatCompletions,
       Protocol::OpenAiChat},
      {"POST", "/chat/completions", RouteMatch::Found, RouteKind::ChatCompletions,
       Protocol::OpenAiChat},
      {"POST", "/v1/responses", RouteMatch::Found, RouteKind::Responses, Protocol::OpenAiResponses},
      {"POST", "/responses", RouteMatch::Found, RouteKind::Responses, Protocol::OpenAiResponses},
      {"POST", "/v1/messages", RouteMatch::Found, RouteKind::Messages, Protocol::Anthropic},
      {"POST", "/messages", RouteMatch::Found, RouteKind::Messages, Protocol::Anthropic},
      {"POST", "/v1/messages/count_tokens", RouteMatch::Found, RouteKind::CountTokens,
       Protocol::Anthropic},
      {"POST", "/messages/count_tokens", RouteMatch::Found, RouteKind::CountTokens,
       Protocol::Anthropic},
      {"GET", "/v1/models", RouteMatch::Found, RouteKind::ListModels, std::nullopt},
      {"GET", "/models", RouteMatch::Found, RouteKind::ListModels, std::nullopt},
      {"GET", "/v1beta/models", RouteMatch::Found, RouteKind::GeminiListModels, Protocol::Gemini},
      {"GET", "/healthz", RouteMatch::Found, RouteKind::Healthz, std::nullopt},
      {"GET", "/readyz", RouteMatch::Found, RouteKind::Readyz, std::nullopt},
      {"GET", "/metrics", RouteMatch::Found, RouteKind::Metrics, std::nullopt},
      {"GET", "/admin/freezes", RouteMatch::Found, RouteKind::AdminFreezes, std::nullopt},
      {"DELETE", "/admin/freezes/frz_0123456789abcdef", RouteMatch::Found, RouteKind::AdminFreeze,
       std::nullopt},
      {"POST", "/admin/route-preview", RouteMatch::Found, RouteKind::AdminRoutePreview,
       std::nullopt},
      {"GET", "/admin/racing", RouteMatch::Found, RouteKind::AdminRacing, std::nullopt},
      {"PUT", "/admin/racing", RouteMatch::Found, RouteKind::AdminRacingSet, std::nullopt},
      {"GET", "/admin/latency-penalties", RouteMatch::Found, RouteKind::AdminLatencyPenalties,
       std::nullopt},
      {"DELETE", "/admin/latency-penalties/0123456789abcdef", RouteMatch::Found,
       RouteKind::AdminLatencyPenalty, std::nullopt},
      // Known paths, wrong method.
      {"GET", "/v1/chat/completions", RouteMatch::MethodNotAllowed, RouteKind::ChatCompletions,
       Protocol::OpenAiChat},
      {"PUT", "/v1/messages", RouteMatch::MethodNotAllowed, RouteKind::Messages,
       Protocol::Anthropic},
      {"POST", "/v1/models", RouteMatch::MethodNotAllowed, RouteKind::ListModels, std::nullopt},
      {"POST", "/healthz", RouteMatch::MethodNotAllowed, RouteKind::Healthz, std::nullopt},
      {"DELETE", "/admin/freezes", RouteMatch::MethodNotAllowed, RouteKind::AdminFreezes,
       std::nullopt},
      {"GET", "/admin/freezes/frz_1", RouteMatch::MethodNotAllowed, RouteKind::AdminFreeze,
       std::nullopt},
      {"GET", "/admin/route-preview", RouteMatch::MethodNotAllowed, RouteKind::AdminRoutePreview,
       std::nullopt},
      {"POST", "/admin/racing", RouteMatch::MethodNotAllowed, RouteKind::AdminRacing,
       std::nullopt},
      {"DELETE", "/admin/latency-penalties", RouteMatch::MethodNotAllowed,
       RouteKind::AdminLatencyPenalties, std::nullopt},
      {"GET", "/admin/latency-penalties/0123", RouteMatch::MethodNotAllowed,
       RouteKind::AdminLatencyPenalty, std::nullopt},
      {"post", "/v1/responses", RouteMatch::MethodNotAllowed, RouteKind::Responses,
       Protocol::OpenAiResponses},
  };
  for (auto const& c : cases) {
    RouteLookup lookup = matchRoute(c.method, c.path);
    EXPECT_EQ(lookup.match, c.match) << c.method << " " << c.path;
    EXPECT_EQ(lookup.route.kind, c.kind) << c.path;
    EXPECT_EQ(lookup.route.protocol, c.protocol) << c.path;
  }
}

TEST(Routes, UnknownPathsAreNotFound) {
  for (std::string_view path : {"/",
                                "",
                                "/v1",
                                "/v1/",
                                "/v2/chat/completions",
                                "/v1/chat/completions/",
                                "/v1//chat/completions",
                                "/v1/chat",
                                "/v1beta/chat/completions",
                                "/v1beta/messages",
                                "/v1/messages/batches",
                                "/v1/models/gpt-4o",
                                "/v1beta/models/gemini-pro",
                                "/v1beta/models/:generateContent",
                                "/v1beta/models/models/:generateContent",
                                "/v1beta/models/bad%zzname:generateContent",
                                "/v1/v1/chat/completions",
                                "/v1/healthz",
                                "/healthz/",
                                "/admin",
                                "/admin/",
                                "/admin/freezes/",
                                "/admin/freezes/frz_1/extra",
                                "/admin/keys",
                                "/v1/admin/freezes"}) {
    EXPECT_EQ(matchRoute("POST", path).match, RouteMatch::NotFound) << path;
    EXPECT_EQ(matchRoute("GET", path).match, RouteMatch::NotFound) << path;
  }
}

struct GeminiCase {
  std::string_view path;
  std::string_view model;
  bool stream;
};

TEST(Routes, GeminiModelComesFromThePathDecoded) {
  GeminiCase const cases[] = {
      {"/v1beta/models/gemini-2.5-flash:generateContent", "gemini-2.5-flash", false},
      {"/v1beta/models/gemini-2.5-flash:streamGenerateContent", "gemini-2.5-flash", true},
      {"/v1/models/gemini-2.5-pro:generateContent", "gemini-2.5-pro", false},
      {"/models/gemini-2.5-pro:streamGenerateContent", "gemini-2.5-pro", true},
      // The id may be percent-encoded, and may repeat the "models/" the path already has.
      {"/v1beta/models/models%2Fgemini-pro:generateContent", "gemini-pro", false},
      {"/v1beta/models/models/gemini-pro:generateContent", "gemini-pro", false},
      {"/v1beta/models/my%20tuned%3Amodel:generateContent", "my tuned:model", false},
      // Only the last colon separates the method.
      {"/v1beta/models/vendor:free:streamGenerateContent", "vendor:free", true},
  };
  for (auto const& c : cases) {
    RouteLookup lookup = matchRoute("POST", c.path);
    ASSERT_EQ(lookup.match, RouteMatch::Found) << c.path;
    EXPECT_EQ(lookup.route.kind, RouteKind::GeminiGenerate);
    EXPECT_EQ(lookup.route.protocol, Protocol::Gemini);
    EXPECT_EQ(lookup.route.gemini_model, c.model) << c.path;
    EXPECT_EQ(lookup.route.gemini_stream, c.stream) << c.path;
  }
  RouteLookup get = matchRoute("GET", "/v1beta/models/gemini-pro:generateContent");
  EXPECT_EQ(get.match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(get.route.gemini_model, "gemini-pro");
}

TEST(Routes, MethodsAndLabels) {
  EXPECT_EQ(routeMethod(RouteKind::Messages), "POST");
  EXPECT_EQ(routeMethod(RouteKind::GeminiListModels), "GET");
  auto lookup = matchRoute("POST", "/models/secret-project-model:streamGenerateContent");
  // The label never carries the model, so metrics stay bounded.
  EXPECT_EQ(routeLabel(lookup.route), "/v1beta/models/{model}:streamGenerateContent");
  EXPECT_EQ(routeLabel(matchRoute("POST", "/chat/completions").route), "/v1/chat/completions");
  EXPECT_EQ(routeLabel(matchRoute("GET", "/healthz").route), "/healthz");
}

TEST(Routes, AdminRoutes) {
  auto lookup = matchRoute("DELETE", "/admin/freezes/frz_00ff");
  ASSERT_EQ(lookup.match, RouteMatch::Found);
  EXPECT_EQ(lookup.route.admin_id, "frz_00ff");
  EXPECT_EQ(routeLabel(lookup.route), "/admin/freezes/{id}");  // the id stays out of metrics
  EXPECT_EQ(routeLabel(matchRoute("GET", "/admin/freezes").route), "/admin/freezes");
  EXPECT_EQ(routeLabel(matchRoute("POST", "/admin/route-preview").route), "/admin/route-preview");
  EXPECT_EQ(routeMethod(RouteKind::AdminFreeze), "DELETE");
  EXPECT_EQ(routeMethod(RouteKind::AdminFreezes), "GET, POST");  // list, and an operator's freeze
  EXPECT_EQ(routeMethod(RouteKind::AdminRoutePreview), "POST");
  EXPECT_TRUE(isAdminRoute(RouteKind::AdminFreezes));
  EXPECT_TRUE(isAdminRoute(RouteKind::AdminFreeze));
  EXPECT_TRUE(isAdminRoute(RouteKind::AdminRoutePreview));
  EXPECT_FALSE(isAdminRoute(RouteKind::Metrics));
  EXPECT_FALSE(isAdminRoute(RouteKind::ChatCompletions));
}

TEST(Routes, ObjectAdminRoutes) {
  for (std::string_view method : {"GET", "POST"}) {
    auto lookup = matchRoute(method, "/admin/gateway_keys");
    ASSERT_EQ(lookup.match, RouteMatch::Found) << method;
    EXPECT_EQ(lookup.route.kind, RouteKind::AdminObjects);
    EXPECT_EQ(lookup.route.admin_section, "gateway_keys");
  }
  for (std::string_view method : {"GET", "PUT", "DELETE"}) {
    auto lookup = matchRoute(method, "/admin/prices/openai%2Fgpt-4o");
    ASSERT_EQ(lookup.match, RouteMatch::Found) << method;
    EXPECT_EQ(lookup.route.kind, RouteKind::AdminObject);
    EXPECT_EQ(lookup.route.admin_section, "prices");
    EXPECT_EQ(lookup.route.admin_id, "openai%2Fgpt-4o") << "decoded by the handler";
    EXPECT_EQ(routeLabel(lookup.route), "/admin/{section}/{name}");  // no name in metrics
  }
  EXPECT_EQ(matchRoute("DELETE", "/admin/channels").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("POST", "/admin/channels/relay").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(routeMethod(RouteKind::AdminObject), "GET, PUT, DELETE");
  EXPECT_EQ(matchRoute("GET", "/admin/audit").route.kind, RouteKind::AdminAudit);
  EXPECT_EQ(matchRoute("POST", "/admin/audit").match, RouteMatch::MethodNotAllowed);
  for (char const* path : {"/admin/settings", "/admin/channels/", "/admin/channels/a/b"}) {
    EXPECT_EQ(matchRoute("GET", path).match, RouteMatch::NotFound) << path;
  }
  EXPECT_TRUE(isAdminRoute(RouteKind::AdminObjects));
  EXPECT_TRUE(isAdminRoute(RouteKind::AdminObject));
  EXPECT_TRUE(isAdminRoute(RouteKind::AdminAudit));
}

TEST(Routes, RequestPayloadsAdminRoute) {
  auto lookup = matchRoute("GET", "/admin/requests/req-42/payloads");
  ASSERT_EQ(lookup.match, RouteMatch::Found);
  EXPECT_EQ(lookup.route.kind, RouteKind::AdminRequestPayloads);
  EXPECT_EQ(lookup.route.admin_id, "req-42");
  EXPECT_TRUE(isAdminRoute(lookup.route.kind));
  EXPECT_EQ(routeLabel(lookup.route), "/admin/requests/{id}/payloads");
  EXPECT_EQ(matchRoute("DELETE", "/admin/requests/req-42/payloads").match,
            RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("GET", "/admin/requests//payloads").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("GET", "/admin/requests/a/b/payloads").match, RouteMatch::NotFound);
}

TEST(Routes, RequestLogAdminRoutes) {
  auto one = matchRoute("GET", "/admin/requests/req-42");
  ASSERT_EQ(one.match, RouteMatch::Found);
  EXPECT_EQ(one.route.kind, RouteKind::AdminRequest);
  EXPECT_EQ(one.route.admin_id, "req-42");
  EXPECT_EQ(routeLabel(one.route), "/admin/requests/{id}");
  // A request may be named "payloads": without an id before it, it is an id.
  EXPECT_EQ(matchRoute("GET", "/admin/requests/payloads").route.kind, RouteKind::AdminRequest);
  EXPECT_EQ(matchRoute("GET", "/admin/requests/a/b").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("GET", "/admin/requests/").match, RouteMatch::NotFound);
  auto search = matchRoute("GET", "/admin/requests");
  ASSERT_EQ(search.match, RouteMatch::Found);
  EXPECT_EQ(search.route.kind, RouteKind::AdminRequests);
  EXPECT_EQ(routeLabel(search.route), "/admin/requests");
  auto usage = matchRoute("GET", "/admin/usage");
  ASSERT_EQ(usage.match, RouteMatch::Found);
  EXPECT_EQ(usage.route.kind, RouteKind::AdminUsage);
  EXPECT_EQ(matchRoute("POST", "/admin/usage").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("DELETE", "/admin/requests/req-42").match, RouteMatch::MethodNotAllowed);
  for (auto kind : {RouteKind::AdminRequests, RouteKind::AdminRequest, RouteKind::AdminUsage}) {
    EXPECT_TRUE(isAdminRoute(kind));
  }
}

TEST(Routes, RacingAdminRoutes) {
  auto lookup = matchRoute("DELETE", "/admin/latency-penalties/00ff00ff00ff00ff");
  ASSERT_EQ(lookup.match, RouteMatch::Found);
  EXPECT_EQ(lookup.route.admin_id, "00ff00ff00ff00ff");
  EXPECT_EQ(routeLabel(lookup.route), "/admin/latency-penalties/{id}");
  EXPECT_EQ(matchRoute("DELETE", "/admin/latency-penalties/").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("DELETE", "/admin/latency-penalties/a/b").match, RouteMatch::NotFound);
  EXPECT_EQ(routeLabel(matchRoute("GET", "/admin/latency-penalties").route),
            "/admin/latency-penalties");
  EXPECT_EQ(routeLabel(matchRoute("GET", "/admin/racing").route), "/admin/racing");
  EXPECT_EQ(routeLabel(matchRoute("PUT", "/admin/racing").route), "/admin/racing");
  // One path, two methods: a 405 allows both.
  EXPECT_EQ(routeMethod(matchRoute("DELETE", "/admin/racing").route.kind), "GET, PUT");
  EXPECT_EQ(routeMethod(RouteKind::AdminLatencyPenalty), "DELETE");
  for (auto kind : {RouteKind::AdminRacing, RouteKind::AdminRacingSet,
                    RouteKind::AdminLatencyPenalties, RouteKind::AdminLatencyPenalty}) {
    EXPECT_TRUE(isAdminRoute(kind));
  }
}

TEST(Routes, ConsoleAndLiveStateRoutes) {
  struct Case {
    char const* method;
    char const* path;
    RouteKind kind;
    char const* label;
  };
  Case const cases[] = {
      {"GET", "/admin/freezes", RouteKind::AdminFreezes, "/admin/freezes"},
      {"POST", "/admin/freezes", RouteKind::AdminFreezeCreate, "/admin/freezes"},
      {"GET", "/admin/pauses", RouteKind::AdminPauses, "/admin/pauses"},
      {"GET", "/admin/limits", RouteKind::AdminLimits, "/admin/limits"},
      // "live" is no request id: the tail has a path of its own.
      {"GET", "/admin/requests/live", RouteKind::AdminRequestsLive, "/admin/requests/live"},
      {"GET", "/admin/config/export", RouteKind::AdminConfigExport, "/admin/config/export"},
      {"POST", "/admin/config/import", RouteKind::AdminConfigImport, "/admin/config/import"},
      {"GET", "/admin/openapi.json", RouteKind::AdminOpenApi, "/admin/openapi.json"},
      {"GET", "/console", RouteKind::ConsolePage, "/console/{file}"},
      {"GET", "/console/", RouteKind::ConsolePage, "/console/{file}"},
      {"GET", "/console/pages/overview.js", RouteKind::ConsolePage, "/console/{file}"},
      {"POST", "/console/session", RouteKind::ConsoleSession, "/console/session"},
      {"DELETE", "/console/session", RouteKind::ConsoleSession, "/console/session"},
  };
  for (auto const& c : cases) {
    auto lookup = matchRoute(c.method, c.path);
    ASSERT_EQ(lookup.match, RouteMatch::Found) << c.method << " " << c.path;
    EXPECT_EQ(lookup.route.kind, c.kind) << c.path;
    EXPECT_EQ(routeLabel(lookup.route), c.label) << c.path;
    bool const console = std::string_view(c.path).starts_with("/console");
    EXPECT_EQ(isConsoleRoute(c.kind), console) << c.path;
    EXPECT_EQ(isAdminRoute(c.kind), !console) << c.path;
  }
  EXPECT_EQ(matchRoute("GET", "/console/pages/overview.js").route.admin_id, "pages/overview.js");
  EXPECT_EQ(matchRoute("GET", "/console/").route.admin_id, "");
  EXPECT_EQ(matchRoute("GET", "/consoles").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("POST", "/console/app.js").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("PUT", "/console/session").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(routeMethod(RouteKind::ConsoleSession), "GET, POST, DELETE");
  auto del = matchRoute("DELETE", "/admin/freezes");
  EXPECT_EQ(del.match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(routeMethod(del.route.kind), "GET, POST");
  EXPECT_EQ(matchRoute("GET", "/admin/config/import").match, RouteMatch::MethodNotAllowed);
  // A channel's keys one by one.
  auto add = matchRoute("POST", "/admin/channels/relay/keys");
  ASSERT_EQ(add.match, RouteMatch::Found);
  EXPECT_EQ(add.route.kind, RouteKind::AdminChannelKeys);
  EXPECT_EQ(add.route.admin_id, "relay");
  EXPECT_EQ(routeLabel(add.route), "/admin/channels/{name}/keys");
  auto one = matchRoute("PUT", "/admin/channels/relay/keys/relay%230");
  ASSERT_EQ(one.match, RouteMatch::Found);
  EXPECT_EQ(one.route.kind, RouteKind::AdminChannelKey);
  EXPECT_EQ(one.route.admin_id, "relay");
  EXPECT_EQ(one.route.admin_key, "relay%230");
  EXPECT_EQ(routeLabel(one.route), "/admin/channels/{name}/keys/{key}");
  EXPECT_EQ(matchRoute("DELETE", "/admin/channels/relay/keys/second").match, RouteMatch::Found);
  EXPECT_EQ(matchRoute("GET", "/admin/channels/relay/keys/second").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("GET", "/admin/channels/relay/keys").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("PUT", "/admin/channels/relay/keys/a/b").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("PUT", "/admin/channels/relay/keysx").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("PUT", "/admin/gateway_keys/team/keys/0").match, RouteMatch::NotFound);
  EXPECT_EQ(matchRoute("GET", "/admin/channels/keys").route.kind, RouteKind::AdminObject)
      << "a channel may be named keys";
  EXPECT_EQ(matchRoute("POST", "/admin/requests/live").match, RouteMatch::MethodNotAllowed);
}

TEST(Routes, GeminiCountTokens) {
  auto lookup = matchRoute("POST", "/v1beta/models/gemini-2.5-pro:countTokens");
  ASSERT_EQ(lookup.match, RouteMatch::Found);
  EXPECT_EQ(lookup.route.kind, RouteKind::GeminiCountTokens);
  EXPECT_EQ(lookup.route.protocol, Protocol::Gemini);
  EXPECT_EQ(lookup.route.gemini_model, "gemini-2.5-pro");
  EXPECT_EQ(routeLabel(lookup.route), "/v1beta/models/{model}:countTokens");
  EXPECT_EQ(matchRoute("GET", "/v1beta/models/g:countTokens").match, RouteMatch::MethodNotAllowed);
}

}  // namespace
}  // namespace llmux::protocol

namespace llmux::protocol {
namespace {

TEST(Routes, MediaRoutesWithAndWithoutV1SpeakOpenAisErrorShape) {
  struct Case {
    std::string_view method, path;
    RouteKind kind;
    std::string_view label;
  };
  Case const cases[] = {
      {"POST", "/v1/images/generations", RouteKind::ImageGenerations, "/v1/images/generations"},
      {"POST", "/images/generations", RouteKind::ImageGenerations, "/v1/images/generations"},
      {"POST", "/v1/images/edits", RouteKind::ImageEdits, "/v1/images/edits"},
      {"POST", "/embeddings", RouteKind::Embeddings, "/v1/embeddings"},
      {"POST", "/v1/audio/speech", RouteKind::Speech, "/v1/audio/speech"},
      {"POST", "/audio/transcriptions", RouteKind::Transcriptions, "/v1/audio/transcriptions"},
      {"POST", "/v1/videos", RouteKind::VideoCreate, "/v1/videos"},
      {"GET", "/v1/videos/video_68d2a1", RouteKind::VideoRetrieve, "/v1/videos/{id}"},
      {"GET", "/videos/video_68d2a1/content", RouteKind::VideoContent, "/v1/videos/{id}/content"},
  };
  for (auto const& c : cases) {
    auto lookup = matchRoute(c.method, c.path);
    ASSERT_EQ(lookup.match, RouteMatch::Found) << c.path;
    EXPECT_EQ(lookup.route.kind, c.kind) << c.path;
    EXPECT_EQ(lookup.route.protocol, Protocol::OpenAiChat) << c.path;
    EXPECT_EQ(routeLabel(lookup.route), c.label) << c.path;
    EXPECT_TRUE(isMediaRoute(c.kind));
  }
  EXPECT_EQ(matchRoute("GET", "/v1/videos/video_1/content").route.video_id, "video_1");
  EXPECT_EQ(matchRoute("GET", "/v1/images/generations").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(matchRoute("POST", "/v1/videos/video_1").match, RouteMatch::MethodNotAllowed);
  EXPECT_EQ(routeMethod(RouteKind::VideoContent), "GET");
  // A job id is one safe path segment, or no route at all.
  for (std::string_view bad : {"/v1/videos/", "/v1/videos/a/b", "/v1/videos/a%2Fb", "/v1/videos/../x",
                               "/v1/videos/a.b/content", "/v1beta/images/generations"}) {
    EXPECT_EQ(matchRoute("GET", bad).match, RouteMatch::NotFound) << bad;
  }
  EXPECT_EQ(matchRoute("GET", "/v1/videos/" + std::string(129, 'a')).match, RouteMatch::NotFound);
  EXPECT_TRUE(isUploadRoute(RouteKind::ImageEdits));
  EXPECT_TRUE(isUploadRoute(RouteKind::Transcriptions));
  EXPECT_TRUE(isUploadRoute(RouteKind::VideoCreate));
  EXPECT_FALSE(isUploadRoute(RouteKind::ImageGenerations));
  EXPECT_FALSE(isMediaRoute(RouteKind::ChatCompletions));
}

}  // namespace
}  // namespace llmux::protocol

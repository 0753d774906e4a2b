#include "mock/mock_provider.h"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include "core/strings.h"
#include "mock/fault_effects.h"
#include "mock/json_access.h"
#include "mock/media_mock.h"
#include "mock/mock_errors.h"
#include "mock/mock_faults.h"
#include "mock/model_catalog.h"
#include "mock/protocol_mock.h"
#include "mock/query_param.h"
#include "mock/video_jobs.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;

enum class Operation {
  Generate,  ///< chat/completions, responses, messages, generateContent, streamGenerateContent
  AnthropicCount,  ///< messages/count_tokens
  GeminiCount,     ///< :countTokens
  ListModels,      ///< GET models
  Media,           ///< embeddings, images, speech, transcriptions, videos (media_mock.h)
  Unknown,
};

struct Route {
  Operation op = Operation::Unknown;
  Protocol protocol = Protocol::OpenAiChat;
  std::string_view gemini_model;
  gemini::Delivery delivery = gemini::Delivery::Whole;
  MediaRoute media;
};

bool looksAnthropic(HeaderList const& headers) {
  return headers.has("x-api-key") || headers.has("anthropic-version");
}

/// Matches on the path suffix so that any base path works (/relay/v1/chat/completions).
Route matchRoute(MockRequest const& request) {
  std::string_view path = request.path;
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  Route route;
  if (auto media = matchMediaRoute(request.method, path)) {
    route.op = Operation::Media;
    route.media = *media;
    return route;
  }
  if (request.method == "POST") {
    if (path.ends_with("/v1/chat/completions")) {
      route.op = Operation::Generate;
      route.protocol = Protocol::OpenAiChat;
    } else if (path.ends_with("/v1/responses")) {
      route.op = Operation::Generate;
      route.protocol = Protocol::OpenAiResponses;
    } else if (path.ends_with("/v1/messages")) {
      route.op = Operation::Generate;
      route.protocol = Protocol::Anthropic;
    } else if (path.ends_with("/v1/messages/count_tokens")) {
      route.op = Operation::AnthropicCount;
      route.protocol = Protocol::Anthropic;
    } else if (auto models = path.rfind("/models/"); models != std::string_view::npos) {
      std::string_view rest = path.substr(models + 8);
      auto colon = rest.find(':');
      if (colon != std::string_view::npos && colon > 0) {
        std::string_view action = rest.substr(colon + 1);
        route.gemini_model = rest.substr(0, colon);
        route.protocol = Protocol::Gemini;
        if (action == "generateContent") {
          route.op = Operation::Generate;
        } else if (action == "streamGenerateContent") {
          route.op = Operation::Generate;
          route.delivery = queryParam(request.query, "alt") == "sse" ? gemini::Delivery::Sse
                                                                     : gemini::Delivery::JsonArray;
        } else if (action == "countTokens") {
          route.op = Operation::GeminiCount;
        }
      }
    }
  } else if (request.method == "GET") {
    if (path.ends_with("/v1beta/models")) {
      route.op = Operation::ListModels;
      route.protocol = Protocol::Gemini;
    } else if (path.ends_with("/v1/models")) {
      route.op = Operation::ListModels;
      route.protocol = looksAnthropic(request.headers) ? Protocol::Anthropic : Protocol::OpenAiChat;
    }
  }
  if (route.op == Operation::Unknown) {
    // Answer in the shape of whoever the client seems to be talking to.
    route.protocol = path.find("/v1beta") != std::string_view::npos ||
                             path.find(":generateContent") != std::string_view::npos
                         ? Protocol::Gemini
                     : looksAnthropic(request.headers) ? Protocol::Anthropic
                                                       : Protocol::OpenAiChat;
  }
  return route;
}

std::string_view bearerToken(HeaderList const& headers) {
  std::string_view value = headers.get("authorization");
  if (value.size() > 7 && equalsIgnoreCase(value.substr(0, 7), "Bearer ")) {
    return trimSpaces(value.substr(7));
  }
  return {};
}

std::string_view apiKey(MockRequest const& request, Vendor vendor) {
  switch (vendor) {
    case Vendor::OpenAi:
      return bearerToken(request.headers);
    case Vendor::Anthropic: {
      std::string_view key = request.headers.get("x-api-key");
      return key.empty() ? bearerToken(request.headers) : key;
    }
    case Vendor::Google: {
      // x-goog-api-key, ?key=, or a Vertex-style OAuth bearer token.
      std::string_view key = request.headers.get("x-goog-api-key");
      if (key.empty()) key = queryParam(request.query, "key");
      return key.empty() ? bearerToken(request.headers) : key;
    }
  }
  return {};
}

/// The key checks of every route: missing, fault keys, unknown keys.
std::optional<MockReply> checkAuth(MockRequest const& request, Vendor vendor,
                                   MockOptions const& options, IdSource& ids) {
  std::string_view key = apiKey(request, vendor);
  if (key.empty()) return missingKeyError(vendor, ids);
  if (key.find("invalid") != std::string_view::npos) return invalidKeyError(vendor, ids);
  if (key.find("forbidden") != std::string_view::npos) return forbiddenKeyError(vendor, ids);
  if (key.find("ratelimited") != std::string_view::npos) {
    return rateLimitedError(vendor, ids, 1, {});
  }
  if (!options.accepted_keys.empty()) {
    bool known = false;
    for (auto const& accepted : options.accepted_keys) known |= secretEquals(accepted, key);
    if (!known) return invalidKeyError(vendor, ids);
  }
  if (vendor == Vendor::Anthropic && !request.headers.has("anthropic-version")) {
    return invalidRequestError(vendor, ids, "anthropic-version: header is required");
  }
  return std::nullopt;
}

/// The bytes a provider sends to keep a quiet stream open: Anthropic's ping event, an SSE comment
/// elsewhere (what OpenAI-compatible servers and proxies send); nothing fits a JSON-array stream.
std::optional<std::string> keepAliveBytes(Protocol protocol, gemini::Delivery delivery) {
  switch (protocol) {
    case Protocol::Anthropic:
      return std::string("event: ping\ndata: {\"type\": \"ping\"}\n\n");
    case Protocol::Gemini:
      if (delivery != gemini::Delivery::Sse) return std::nullopt;
      return std::string(": keep-alive\r\n\r\n");
    default:
      return std::string(": keep-alive\n\n");
  }
}

}  // namespace

MockProvider::MockProvider(MockOptions options)
    : options_(std::move(options)),
      counters_(std::make_unique<FaultCounters>()),
      videos_(std::make_unique<VideoJobs>()),
      catalog_(std::make_unique<ModelCatalog>()) {}

MockProvider::~MockProvider() = default;

MockReply MockProvider::handle(MockRequest const& request) {
  IdSource ids(hashBytes(request.body, hashBytes(request.path)));
  // The test's controls (no key): the model lists and balances the mock reports.
  if (request.path.starts_with("/mock/")) {
    if (auto reply = catalog_->control(request)) return std::move(*reply);
  }
  Route route = matchRoute(request);
  Vendor vendor = vendorOf(route.protocol);
  if (route.op == Operation::Unknown && isBillingPath(request.path)) {
    // A relay takes its key however the channel's protocol sends it.
    Vendor const by_key = request.headers.has("x-goog-api-key") ||
                                  !queryParam(request.query, "key").empty()
                              ? Vendor::Google
                              : vendor;
    if (auto error = checkAuth(request, by_key, options_, ids)) return std::move(*error);
    return std::move(*catalog_->billing(request, ids));
  }
  if (route.op == Operation::Unknown) {
    return routeNotFoundError(vendor, ids, request.method, request.path);
  }
  if (auto error = checkAuth(request, vendor, options_, ids)) return std::move(*error);

  FaultPlan faults;
  if (auto header = request.headers.find(kFaultHeader)) {
    if (auto ok = addHeaderFaults(*header, faults); !ok) {
      return invalidRequestError(vendor, ids, ok.error().message);
    }
  }
  if (auto header = request.headers.find(kChunkDelayHeader)) {
    if (auto ok = setChunkDelay(*header, faults); !ok) {
      return invalidRequestError(vendor, ids, ok.error().message);
    }
  }
  auto withHeadDelay = [&](MockReply reply) {
    if (Fault const* slow = faults.find(FaultKind::SlowFirstByte))
      reply.head_delay = slow->duration;
    return reply;
  };

  if (route.op == Operation::Media) {
    return withHeadDelay(
        answerMedia(route.media, request, faults, MediaState{*counters_, *videos_}, ids));
  }
  if (route.op == Operation::ListModels) {
    if (auto error = statusFault(faults, *counters_, vendor, ids, {})) {
      return withHeadDelay(std::move(*error));
    }
    return withHeadDelay(catalog_->list(request, route.protocol, ids));
  }

  // Request bodies are parsed once, into a buffer that lives as long as this call.
  unsigned char scratch[8192];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  json::parse_options parse_options;
  parse_options.max_depth = 256;
  boost::system::error_code ec;
  json::value document = json::parse(request.body, ec, &resource, parse_options);
  if (ec || !document.is_object()) return withHeadDelay(invalidJsonError(vendor, ids));
  json::object const& body = document.get_object();

  std::string_view model =
      route.protocol == Protocol::Gemini ? route.gemini_model : stringField(&body, "model");
  if (route.op == Operation::Generate) {
    if (auto ok = addModelFault(model, faults); !ok) {
      return withHeadDelay(invalidRequestError(vendor, ids, ok.error().message));
    }
  }
  if (auto error = statusFault(faults, *counters_, vendor, ids, model)) {
    return withHeadDelay(std::move(*error));
  }

  std::int64_t prompt_tokens = estimateTokens(request.body.size());
  if (route.op == Operation::AnthropicCount) {
    if (!hasString(&body, "model")) return withHeadDelay(missingFieldError(vendor, ids, "model"));
    if (arrayField(&body, "messages") == nullptr) {
      return withHeadDelay(missingFieldError(vendor, ids, "messages"));
    }
    return withHeadDelay(catalog::anthropicCountTokens(prompt_tokens, ids));
  }
  if (route.op == Operation::GeminiCount) {
    if (arrayField(&body, "contents") == nullptr &&
        objectField(&body, "generateContentRequest") == nullptr) {
      return withHeadDelay(missingFieldError(vendor, ids, "contents"));
    }
    return withHeadDelay(catalog::geminiCountTokens(prompt_tokens));
  }

  MockCall call{request, body, model, ids};
  RequestFacts facts;
  facts.body_bytes = request.body.size();
  std::optional<MockReply> invalid;
  switch (route.protocol) {
    case Protocol::OpenAiChat:
      invalid = chat::inspect(call, facts);
      break;
    case Protocol::OpenAiResponses:
      invalid = responses::inspect(call, facts);
      break;
    case Protocol::Anthropic:
      invalid = anthropic::inspect(call, facts);
      break;
    case Protocol::Gemini:
      invalid = gemini::inspect(call, route.delivery, facts);
      break;
  }
  if (invalid) return withHeadDelay(std::move(*invalid));

  Rendered rendered;
  if (faults.find(FaultKind::ContextOverflow) != nullptr) {
    if (route.protocol == Protocol::OpenAiResponses && facts.stream) {
      // The Responses API reports it inside the stream (response.failed).
      rendered = responses::renderStreamFailure(
          call, facts, "context_length_exceeded",
          "Your input exceeds the context window of this model. Please adjust your input and try "
          "again.");
    } else {
      return withHeadDelay(contextOverflowError(route.protocol, ids, prompt_tokens));
    }
  } else {
    AnswerPlan plan = planAnswer(facts, route.protocol == Protocol::Anthropic);
    switch (route.protocol) {
      case Protocol::OpenAiChat:
        rendered = chat::render(call, facts, plan);
        break;
      case Protocol::OpenAiResponses:
        rendered = responses::render(call, facts, plan);
        break;
      case Protocol::Anthropic:
        rendered = anthropic::render(call, facts, plan);
        break;
      case Protocol::Gemini:
        rendered = gemini::render(call, route.delivery, facts, plan);
        break;
    }
  }
  applyBodyFaults(rendered, faults, keepAliveBytes(route.protocol, route.delivery));
  return withHeadDelay(std::move(rendered.reply));
}

}  // namespace llmux::mock

#include "protocol/inspect.h"

#include "protocol/json_scan.h"

namespace llmux::protocol {
namespace {

Error invalid(std::string message) {
  return makeError(ErrorKind::InvalidRequest, std::move(message));
}

bool carriesModelInBody(RouteKind kind) {
  return kind == RouteKind::ChatCompletions || kind == RouteKind::Responses ||
         kind == RouteKind::Messages || kind == RouteKind::CountTokens;
}

}  // namespace

Result<RequestProfile> inspectRequest(Route const& route, std::string_view body) {
  bool gemini = route.kind == RouteKind::GeminiGenerate || route.kind == RouteKind::GeminiCountTokens;
  if (!gemini && !carriesModelInBody(route.kind)) {
    return makeError(ErrorKind::Internal, "this route takes no request body to inspect");
  }
  if (body.empty()) return invalid("request body is empty; expected a JSON object");

  JsonScan scan = scanJson(body);
  if (!scan.ok()) {
    return invalid("request body is not valid JSON: " + std::string(scan.error->reason) +
                   " at byte " + std::to_string(scan.error->offset));
  }
  if (scan.root != JsonType::Object) return invalid("request body must be a JSON object");

  RequestProfile profile;
  Protocol protocol = gemini ? Protocol::Gemini : route.protocol.value_or(Protocol::OpenAiChat);
  for (JsonMember const& member : scan.members) {
    if ((member.keyIs("client_type") || member.keyIs("client_preset")) &&
        member.type == JsonType::String) {
      std::string_view token = body.substr(member.value_begin, member.value_end - member.value_begin);
      profile.client_hint = decodeJsonString(token.substr(1, token.size() - 2));
    } else {
      noteReasoningMember(protocol, body, member, profile.reasoning);
    }
  }
  if (gemini) {
    profile.model = route.gemini_model;
    profile.stream = route.gemini_stream;
    return profile;
  }

  JsonMember const* model = nullptr;
  JsonMember const* stream = nullptr;
  for (JsonMember const& member : scan.members) {
    // Keys are compared decoded, so "mod\u0065l" cannot smuggle a second model past the check.
    if (member.keyIs("model")) {
      if (model) return invalid("request body has more than one \"model\" field");
      model = &member;
    } else if (member.keyIs("stream")) {
      if (stream) return invalid("request body has more than one \"stream\" field");
      stream = &member;
    }
  }

  if (!model) return invalid("request body is missing the required string field \"model\"");
  if (model->type != JsonType::String) return invalid("field \"model\" must be a string");
  std::string_view token = body.substr(model->value_begin, model->value_end - model->value_begin);
  profile.model = decodeJsonString(token.substr(1, token.size() - 2));
  if (profile.model.empty()) return invalid("field \"model\" must not be empty");
  profile.model_begin = model->value_begin;
  profile.model_end = model->value_end;

  if (stream) {
    if (stream->type == JsonType::True) {
      profile.stream = true;
    } else if (stream->type != JsonType::False && stream->type != JsonType::Null) {
      return invalid("field \"stream\" must be a boolean");
    }
  }
  return profile;
}

}  // namespace llmux::protocol

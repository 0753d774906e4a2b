#include "protocol/media_request.h"

#include <charconv>
#include <cmath>
#include <optional>

#include "core/strings.h"
#include "protocol/json_scan.h"
#include "protocol/multipart.h"

namespace llmux::protocol {
namespace {

constexpr double kDefaultVideoSeconds = 4;  // OpenAI's default for `seconds`

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

/// A number written as JSON or as a form field's text ("4", "8.5"); nullopt when it is not one.
std::optional<double> readNumber(std::string_view text) {
  text = trimSpaces(text);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

/// One field as inspection needs it: its text (a JSON string decoded, other JSON tokens and form
/// fields as written) and where its raw bytes sit in the body.
struct Field {
  std::string text;
  std::size_t begin = 0, end = 0;
  bool json_string = false;  ///< a JSON string token (quotes included in the span)
  bool present = false;
};

/// The fields a media request is read by, from either body format.
struct MediaFields {
  Field model, n, seconds, input;
};

Result<void> noteField(Field& field, std::string_view name, std::string text, std::size_t begin,
                       std::size_t end, bool json_string) {
  if (field.present) return invalid("request body has more than one \"" + std::string(name) + "\" field");
  field = Field{std::move(text), begin, end, json_string, true};
  return {};
}

Result<MediaFields> jsonFields(std::string_view body) {
  if (body.empty()) return invalid("request body is empty; expected a JSON object");
  JsonScan scan = scanJson(body);
  if (!scan.ok()) {
    return invalid("request body is not valid JSON: " + std::string(scan.error->reason) + " at byte " +
                   std::to_string(scan.error->offset));
  }
  if (scan.root != JsonType::Object) return invalid("request body must be a JSON object");
  MediaFields fields;
  for (JsonMember const& member : scan.members) {
    Field* field = member.keyIs("model")     ? &fields.model
                   : member.keyIs("n")       ? &fields.n
                   : member.keyIs("seconds") ? &fields.seconds
                   : member.keyIs("input")   ? &fields.input
                                             : nullptr;
    if (field == nullptr || member.type == JsonType::Null) continue;
    std::string_view token = body.substr(member.value_begin, member.value_end - member.value_begin);
    bool is_string = member.type == JsonType::String;
    std::string text = is_string ? decodeJsonString(token.substr(1, token.size() - 2)) : std::string(token);
    auto noted = noteField(*field, field == &fields.model ? "model" : member.key, std::move(text),
                           member.value_begin, member.value_end, is_string);
    if (!noted) return noted.error();
    if (field == &fields.model && !is_string) return invalid("field \"model\" must be a string");
  }
  return fields;
}

Result<MediaFields> formFields(std::string_view content_type, std::string_view body) {
  auto boundary = multipartBoundary(content_type);
  if (!boundary) return boundary.error();
  auto parts = parseMultipart(body, *boundary);
  if (!parts) return parts.error();
  MediaFields fields;
  for (MultipartPart const& part : *parts) {
    if (part.is_file) continue;
    Field* field = part.name == "model"     ? &fields.model
                   : part.name == "n"       ? &fields.n
                   : part.name == "seconds" ? &fields.seconds
                                            : nullptr;
    if (field == nullptr) continue;
    // The part's body views `body`: its offset is where the field's bytes are.
    auto begin = static_cast<std::size_t>(part.body.data() - body.data());
    auto noted = noteField(*field, part.name, std::string(part.body), begin, begin + part.body.size(), false);
    if (!noted) return noted.error();
  }
  return fields;
}

/// Whether the route's body must be a form (uploads), may be one (video jobs) or must be JSON.
enum class BodyFormat { Json, Form, Either };

BodyFormat formatOf(RouteKind kind) {
  switch (kind) {
    case RouteKind::ImageEdits:
    case RouteKind::Transcriptions: return BodyFormat::Form;
    case RouteKind::VideoCreate: return BodyFormat::Either;
    default: return BodyFormat::Json;
  }
}

}  // namespace

bool isMultipartFormData(std::string_view content_type) {
  auto semicolon = content_type.find(';');
  return equalsIgnoreCase(trimSpaces(content_type.substr(0, semicolon)), "multipart/form-data");
}

bool isJsonContentType(std::string_view content_type) {
  std::string_view type = trimSpaces(content_type.substr(0, content_type.find(';')));
  constexpr std::string_view kSuffix = "+json";
  return equalsIgnoreCase(type, "application/json") ||
         (type.size() > kSuffix.size() && equalsIgnoreCase(type.substr(type.size() - kSuffix.size()), kSuffix));
}

Result<MediaRequest> inspectMediaRequest(Route const& route, std::string_view content_type,
                                         std::string_view body) {
  if (!isMediaRoute(route.kind) || route.kind == RouteKind::VideoRetrieve ||
      route.kind == RouteKind::VideoContent) {
    return makeError(ErrorKind::Internal, "this route takes no media request body to inspect");
  }
  BodyFormat format = formatOf(route.kind);
  bool form = isMultipartFormData(content_type);
  if (format == BodyFormat::Form && !form) {
    return invalid("this endpoint takes a multipart/form-data upload (Content-Type: multipart/form-data; "
                   "boundary=...)");
  }
  if (format == BodyFormat::Json && form) return invalid("this endpoint takes a JSON body, not a form");
  auto read = form ? formFields(content_type, body) : jsonFields(body);
  if (!read) return read.error();
  MediaFields& fields = *read;

  MediaRequest out;
  RequestProfile& profile = out.profile;
  if (!fields.model.present) return invalid("request body is missing the required field \"model\"");
  profile.model = std::move(fields.model.text);
  if (profile.model.empty()) return invalid("field \"model\" must not be empty");
  profile.model_begin = fields.model.begin;
  profile.model_end = fields.model.end;
  profile.model_raw = form;

  switch (route.kind) {
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits: {
      out.ask.images = 1;
      if (fields.n.present) {
        auto n = readNumber(fields.n.text);
        if (!n || *n < 1 || *n != std::floor(*n) || *n > 1000) {
          return invalid("field \"n\" must be a positive integer");
        }
        out.ask.images = static_cast<std::int64_t>(*n);
      }
      break;
    }
    case RouteKind::VideoCreate: {
      out.ask.video_seconds = kDefaultVideoSeconds;
      if (fields.seconds.present) {
        auto seconds = readNumber(fields.seconds.text);
        if (!seconds || *seconds <= 0 || *seconds > 86'400) {
          return invalid("field \"seconds\" must be a positive number of seconds");
        }
        out.ask.video_seconds = *seconds;
      }
      break;
    }
    case RouteKind::Speech:
      if (!fields.input.present || !fields.input.json_string) {
        return invalid("request body is missing the required string field \"input\"");
      }
      out.ask.speech_characters = static_cast<std::int64_t>(utf8CodePoints(fields.input.text));
      break;
    default: break;
  }
  return out;
}

}  // namespace llmux::protocol

// Anthropic Messages complete answers <-> neutral Response (REFERENCE.md §3.3, §3.5, §7, §8).
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>

#include "translate/anthropic/blocks.h"
#include "translate/anthropic/codec.h"
#include "translate/anthropic/json_out.h"
#include "translate/anthropic/wire.h"
#include "translate/json_access.h"
#include "translate/usage.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;

Error upstreamError(std::string message) {
  return makeError(ErrorKind::UpstreamProtocol, std::move(message));
}

}  // namespace

Result<Response> decodeResponse(std::string_view body) {
  unsigned char scratch[4096];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  json::parse_options options;
  options.max_depth = 256;
  boost::system::error_code ec;
  json::value document = json::parse(body, ec, &resource, options);
  if (ec || !document.is_object()) {
    return upstreamError("the Anthropic response is not a JSON object");
  }
  json::object const& o = document.get_object();
  if (stringAt(o, "type") == std::optional<std::string_view>("error")) {
    json::object const* error = objectAt(o, "error");
    std::string_view type = error ? stringAt(*error, "type").value_or("api_error") : "api_error";
    std::string message(error ? stringAt(*error, "message").value_or("") : "");
    return makeError(ErrorKind::UpstreamStatus, message.empty() ? std::string(type) : message,
                     statusForErrorType(type));
  }
  json::array const* content = arrayAt(o, "content");
  if (content == nullptr) return upstreamError("the Anthropic response has no content list");

  Response response;
  response.id = stringAt(o, "id").value_or("");
  response.model = stringAt(o, "model").value_or("");
  std::vector<std::string> dropped;  // server tool blocks and citations: not carried
  std::size_t k = 0;
  for (auto const& item : *content) {
    std::string where = "content." + std::to_string(k++);
    if (!item.is_object()) return upstreamError(where + ": a content block must be an object");
    auto ok = decodeBlock(item.get_object(), where, response.content, dropped);
    if (!ok) return upstreamError(ok.error().message);
  }
  response.stop = parseStopReason(stringAt(o, "stop_reason").value_or("end_turn"));
  response.stop_sequence = stringAt(o, "stop_sequence").value_or("");
  if (json::object const* usage = objectAt(o, "usage")) {
    WireUsage wire;
    wire.merge(*usage);
    response.usage = wire.toNeutral();
  }
  fixZeroCompletion(response);
  return response;
}

std::string encodeResponse(Response const& response, EncodeOptions const& options) {
  std::string body;
  body.reserve(512);
  JsonOut out(body);
  std::string id = messageId(response.id, options.id);
  out.beginObject().str("id", id).str("type", "message").str("role", "assistant");
  out.str("model", options.model.empty() ? response.model : options.model);
  out.beginArray("content");
  bool any_call = false;
  for (std::size_t i = 0; i < response.content.size(); ++i) {
    Block const& b = response.content[i];
    Block const* next = i + 1 < response.content.size() ? &response.content[i + 1] : nullptr;
    if (writeAnswerBlock(out, b, next, id, i) && b.type == BlockType::ToolCall) any_call = true;
  }
  out.endArray();
  StopReason stop = clientStop(response.stop, any_call, !response.stop_sequence.empty());
  out.str("stop_reason", stopReasonName(stop));
  if (stop == StopReason::StopSequence) {
    out.str("stop_sequence", response.stop_sequence);
  } else {
    out.null("stop_sequence");
  }
  out.beginObject("usage");
  writeUsageFields(out, response.usage.value_or(Usage{}));
  out.endObject();
  out.endObject();
  return body;
}

}  // namespace llmux::translate::anthropic

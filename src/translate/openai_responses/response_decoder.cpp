// A Responses API response object (REFERENCE.md §2.3) in the neutral model.
#include <boost/json/array.hpp>

#include "translate/json_access.h"
#include "translate/openai_responses/codec.h"
#include "translate/openai_responses/wire.h"
#include "translate/usage.h"

namespace llmux::translate::openai_responses {
namespace {

namespace json = boost::json;

Error upstreamError(json::object const& error) {
  std::string_view code = stringAt(error, "code").value_or("");
  std::string message(stringAt(error, "message").value_or("the upstream response failed"));
  int status = statusForError(code, stringAt(error, "type").value_or(""), message);
  return makeError(ErrorKind::UpstreamStatus, std::move(message), status);
}

/// Summary parts, then raw reasoning text, joined with blank lines (as the stream decoder does).
std::string reasoningText(json::object const& item) {
  std::string text;
  for (std::string_view list : {"summary", "content"}) {
    auto const* parts = arrayAt(item, list);
    if (!parts) continue;
    for (auto const& p : *parts) {
      if (!p.is_object()) continue;
      auto t = stringAt(p.as_object(), "text");
      if (!t || t->empty()) continue;
      if (!text.empty()) text += "\n\n";
      text += *t;
    }
  }
  return text;
}

}  // namespace

Result<Response> decodeResponse(std::string_view body) {
  auto parsed = parseObject(body, "The upstream response");
  if (!parsed) {
    return makeError(ErrorKind::UpstreamProtocol, parsed.error().message);
  }
  json::object const& doc = *parsed;
  std::string_view status = stringAt(doc, "status").value_or("");
  if (auto const* error = objectAt(doc, "error")) {
    if (status.empty() || status == "failed") return upstreamError(*error);
  }
  if (status == "failed")
    return makeError(ErrorKind::UpstreamStatus, "the upstream response failed", 500);

  Response r;
  r.id = std::string(stringAt(doc, "id").value_or(""));
  r.model = std::string(stringAt(doc, "model").value_or(""));
  bool called = false;
  bool refused = false;
  if (auto const* output = arrayAt(doc, "output")) {
    for (auto const& v : *output) {
      if (!v.is_object()) continue;
      json::object const& item = v.as_object();
      std::string_view type = stringAt(item, "type").value_or("");
      std::string item_id(stringAt(item, "id").value_or(""));
      if (type == "message") {
        auto const* content = arrayAt(item, "content");
        if (!content) continue;
        for (auto const& pv : *content) {
          if (!pv.is_object()) continue;
          json::object const& part = pv.as_object();
          std::string_view ptype = stringAt(part, "type").value_or("");
          std::optional<std::string_view> text;
          if (ptype == "output_text") {
            text = stringAt(part, "text");
          } else if (ptype == "refusal") {
            text = stringAt(part, "refusal");
            refused = true;
          }
          if (!text) continue;
          r.content.push_back(
              Block{.type = BlockType::Text, .text = std::string(*text), .item_id = item_id});
        }
      } else if (type == "function_call") {
        called = true;
        Block b{.type = BlockType::ToolCall};
        b.id = std::string(stringAt(item, "call_id").value_or(""));
        b.name = std::string(stringAt(item, "name").value_or(""));
        std::string_view args = stringAt(item, "arguments").value_or("");
        b.arguments = args.empty() ? std::string("{}") : std::string(args);
        b.item_id = std::move(item_id);
        r.content.push_back(std::move(b));
      } else if (type == "reasoning") {
        Block b{.type = BlockType::Thinking, .text = reasoningText(item)};
        b.signature = std::string(stringAt(item, "encrypted_content").value_or(""));
        b.signature_origin = Protocol::OpenAiResponses;
        b.item_id = std::move(item_id);
        r.content.push_back(std::move(b));
      }
      // Built-in tool items (web_search_call, ...) have no neutral form.
    }
  }
  std::string_view reason;
  if (auto const* details = objectAt(doc, "incomplete_details")) {
    reason = stringAt(*details, "reason").value_or("");
  }
  r.stop = stopFor(status, reason, called, refused);
  if (auto const* usage = objectAt(doc, "usage")) r.usage = usageFrom(*usage);
  fixZeroCompletion(r);
  return r;
}

}  // namespace llmux::translate::openai_responses

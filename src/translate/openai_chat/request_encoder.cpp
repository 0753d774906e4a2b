// The neutral request as an OpenAI Chat Completions body (REFERENCE.md §1.2, §9.1, §9.3, §9.4).
// Written as JSON text directly: schemas the neutral model holds as JSON text are validated and
// copied, never re-serialised. What Chat cannot express is left out (docs/translation.md).

#include <boost/json/parse.hpp>

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "translate/media.h"
#include "translate/openai_chat/codec.h"
#include "translate/openai_chat/json_out.h"
#include "translate/openai_chat/wire.h"
#include "translate/reasoning.h"
#include "translate/tool_pairing.h"

namespace llmux::translate::openai_chat {
namespace {

/// OpenAI accepts at most four stop sequences.
constexpr std::size_t kMaxStopSequences = 4;
/// OpenAI rejects a longer `user`, as the Responses API does (Claude Code's metadata.user_id is
/// ~150 characters).
constexpr std::size_t kMaxUserLength = 64;
/// OpenAI has refused `tool_calls[].id` values over 40 characters ("string_above_max_length");
/// the ids only pair calls with results inside one request, so shortening them costs nothing.
constexpr std::size_t kMaxCallIdLength = 40;

void addDropped(std::vector<std::string>& dropped, std::string_view name) {
  if (std::find(dropped.begin(), dropped.end(), name) == dropped.end()) dropped.emplace_back(name);
}

bool isValidJson(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse(text, ec);
  return !ec;
}

std::string joinText(std::vector<Block> const& blocks, std::string_view separator) {
  std::string out;
  bool first = true;
  for (Block const& b : blocks) {
    if (b.type != BlockType::Text) continue;
    if (!first) out.append(separator);
    out.append(b.text);
    first = false;
  }
  return out;
}

std::size_t countText(std::vector<Block> const& blocks) {
  return static_cast<std::size_t>(std::count_if(
      blocks.begin(), blocks.end(), [](Block const& b) { return b.type == BlockType::Text; }));
}

/// `"content": "<text>"` for a single text, text parts for several.
void writeTextContent(JsonOut& out, std::vector<Block> const& blocks) {
  if (countText(blocks) <= 1) {
    out.str("content", joinText(blocks, ""));
    return;
  }
  out.beginArray("content");
  for (Block const& b : blocks) {
    if (b.type == BlockType::Text) out.beginObject().str("type", "text").str("text", b.text).endObject();
  }
  out.endArray();
}

/// Whether a user-side block has a Chat content part: images by data or URL, documents by data
/// or an OpenAI file id, audio as `input_audio` (base64 WAV or MP3 only). Anything else is named
/// in `dropped`: another provider's file id, video, other audio, documents by URL.
bool hasPart(Block const& b, std::vector<std::string>& dropped) {
  if (b.type == BlockType::Text) return true;
  if (b.type != BlockType::Image && b.type != BlockType::Document) return false;
  switch (mediaKind(b)) {
    case MediaKind::Video:
      addDropped(dropped, "video");
      return false;
    case MediaKind::Audio:
      if (!b.data.empty() && !chatAudioFormat(b.media_type).empty()) return true;
      addDropped(dropped, "audio");
      return false;
    case MediaKind::Image:
      if (!b.data.empty() || !b.url.empty()) return true;
      break;
    case MediaKind::Document:
      if (!b.data.empty() || !b.text.empty()) return true;
      if (b.url.empty() && fileIdUsable(b, Protocol::OpenAiChat)) return true;
      if (!b.url.empty()) {
        addDropped(dropped, "document.url");
        return false;
      }
      break;
  }
  addDropped(dropped, "file_id");
  return false;
}

void writeImagePart(JsonOut& out, Block const& b) {
  out.beginObject().str("type", "image_url").beginObject("image_url");
  if (!b.data.empty()) {
    std::string url = "data:";
    url.append(b.media_type.empty() ? "image/png" : b.media_type).append(";base64,").append(b.data);
    out.str("url", url);
  } else {
    out.str("url", b.url);
  }
  if (!b.detail.empty()) out.str("detail", b.detail);
  out.endObject().endObject();
}

/// A plain-text document's text: Chat takes documents as PDF files only, text goes as text.
std::optional<std::string> documentText(Block const& b) {
  if (b.data.empty()) return b.text;
  if (!b.media_type.starts_with("text/")) return std::nullopt;
  return decodeBase64(b.data);
}

void writeDocumentPart(JsonOut& out, Block const& b) {
  if (mediaKind(b) == MediaKind::Audio) {
    out.beginObject().str("type", "input_audio").beginObject("input_audio");
    out.str("data", b.data).str("format", chatAudioFormat(b.media_type)).endObject().endObject();
    return;
  }
  if (b.data.empty() && b.text.empty()) {  // an OpenAI file id (hasPart checked it)
    out.beginObject().str("type", "file").beginObject("file").str("file_id", b.file_id);
    out.endObject().endObject();
    return;
  }
  if (auto text = documentText(b)) {
    out.beginObject().str("type", "text").str("text", *text).endObject();
    return;
  }
  std::string media_type = b.media_type.empty() ? "application/pdf" : b.media_type;
  std::string url = "data:" + media_type + ";base64," + b.data;
  // OpenAI wants a file name with inline file data.
  std::string filename = media_type == "application/pdf" ? "document.pdf" : "document";
  out.beginObject().str("type", "file").beginObject("file");
  out.str("filename", filename).str("file_data", url).endObject().endObject();
}

void writePart(JsonOut& out, Block const& b) {
  switch (b.type) {
    case BlockType::Text: out.beginObject().str("type", "text").str("text", b.text).endObject(); break;
    case BlockType::Image: writeImagePart(out, b); break;
    case BlockType::Document: writeDocumentPart(out, b); break;
    default: break;
  }
}

/// A user message from the content blocks of a run of user turns (tool results excluded).
void writeUserMessage(JsonOut& out, std::vector<Block const*> const& parts) {
  if (parts.empty()) return;
  out.beginObject().str("role", "user");
  if (parts.size() == 1 && parts[0]->type == BlockType::Text) {
    out.str("content", parts[0]->text);
  } else {
    out.beginArray("content");
    for (Block const* b : parts) writePart(out, *b);
    out.endArray();
  }
  out.endObject();
}

/// A tool result as a `tool` message. Chat has no error flag: a failed result says so in its
/// text. Images cannot go in a tool message: they are returned for a user message that follows.
void writeToolMessage(JsonOut& out, Block const& result, std::vector<Block const*>& images,
                      std::vector<std::string>& dropped) {
  out.beginObject().str("role", "tool").str("tool_call_id", result.id);
  std::string text = joinText(result.content, "\n");
  if (result.is_error) text = text.empty() ? "Error" : "Error: " + text;
  out.str("content", text);
  out.endObject();
  for (Block const& b : result.content) {
    if (b.type == BlockType::Image && hasPart(b, dropped)) images.push_back(&b);
  }
}

/// One assistant message from a run of assistant turns: their text joined, every tool call of
/// the turn in `tool_calls`. Reasoning has no standard Chat request field and is left out (a
/// signature or encrypted reasoning is only meaningful to the provider that minted it).
void writeAssistantMessage(JsonOut& out, std::vector<Message const*> const& run) {
  std::string text;
  std::vector<Block const*> calls;
  for (Message const* m : run) {
    for (Block const& b : m->blocks) {
      if (b.type == BlockType::Text) text.append(b.text);
      if (b.type == BlockType::ToolCall) calls.push_back(&b);
    }
  }
  if (text.empty() && calls.empty()) return;
  out.beginObject().str("role", "assistant");
  if (text.empty()) {
    out.null("content");
  } else {
    out.str("content", text);
  }
  if (!calls.empty()) {
    out.beginArray("tool_calls");
    for (Block const* c : calls) {
      out.beginObject().str("id", c->id).str("type", "function").beginObject("function");
      out.str("name", c->name).str("arguments", c->arguments.empty() ? "{}" : c->arguments);
      out.endObject().endObject();
    }
    out.endArray();
  }
  out.endObject();
}

/// A run of user turns: first every tool result as its own `tool` message (they must follow the
/// assistant's tool calls directly), then one user message with the rest of the content.
void writeUserRun(JsonOut& out, std::vector<Message const*> const& run,
                  std::vector<std::string>& dropped) {
  std::vector<Block const*> parts;
  std::vector<Block const*> images;
  for (Message const* m : run) {
    for (Block const& b : m->blocks) {
      if (b.type == BlockType::ToolResult) {
        writeToolMessage(out, b, images, dropped);
      } else if (hasPart(b, dropped)) {
        parts.push_back(&b);
      }
    }
  }
  parts.insert(parts.begin(), images.begin(), images.end());
  writeUserMessage(out, parts);
}

/// The system prompt and the conversation; false when not one message could be written.
bool writeMessages(JsonOut& out, Request const& request, std::vector<std::string>& dropped) {
  out.beginArray("messages");
  std::size_t empty = out.size();
  if (countText(request.system) > 0) {
    out.beginObject().str("role", "system");
    writeTextContent(out, request.system);
    out.endObject();
  }
  auto const& messages = request.messages;
  for (std::size_t i = 0; i < messages.size();) {
    Role role = messages[i].role;
    std::vector<Message const*> run;
    for (; i < messages.size() && messages[i].role == role; ++i) run.push_back(&messages[i]);
    if (role == Role::Assistant) {
      writeAssistantMessage(out, run);
    } else if (role == Role::User) {
      writeUserRun(out, run, dropped);
    } else {
      for (Message const* m : run) {
        if (countText(m->blocks) == 0) continue;
        out.beginObject().str("role", "system");
        writeTextContent(out, m->blocks);
        out.endObject();
      }
    }
  }
  bool wrote = out.size() != empty;
  out.endArray();
  return wrote;
}

Result<void> writeTools(JsonOut& out, Request const& request) {
  if (request.tools.empty()) return {};
  out.beginArray("tools");
  for (ToolSpec const& tool : request.tools) {
    out.beginObject().str("type", "function").beginObject("function").str("name", tool.name);
    if (!tool.description.empty()) out.str("description", tool.description);
    if (!tool.parameters.empty()) {
      if (!isValidJson(tool.parameters)) {
        return makeError(ErrorKind::InvalidRequest,
                         "the parameters of tool '" + tool.name + "' are not valid JSON");
      }
      out.raw("parameters", tool.parameters);
    }
    if (tool.strict) out.boolean("strict", true);
    out.endObject().endObject();
  }
  out.endArray();
  // Both are refused by OpenAI without tools, so they only go with them.
  if (request.tool_choice) {
    switch (request.tool_choice->mode) {
      case ToolChoiceMode::Auto: out.str("tool_choice", "auto"); break;
      case ToolChoiceMode::None: out.str("tool_choice", "none"); break;
      case ToolChoiceMode::Required: out.str("tool_choice", "required"); break;
      case ToolChoiceMode::Named:
        out.beginObject("tool_choice").str("type", "function").beginObject("function");
        out.str("name", request.tool_choice->name).endObject().endObject();
        break;
    }
  }
  if (request.parallel_tool_calls) out.boolean("parallel_tool_calls", *request.parallel_tool_calls);
  return {};
}

/// A json_schema name as OpenAI accepts it: [a-zA-Z0-9_-]{1,64}.
std::string schemaName(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    out.push_back(ok ? c : '_');
    if (out.size() == 64) break;
  }
  return out.empty() ? "response" : out;
}

Result<void> writeResponseFormat(JsonOut& out, ResponseFormat const& format) {
  switch (format.type) {
    case ResponseFormatType::Text: break;  // the default: nothing to say
    case ResponseFormatType::JsonObject:
      out.beginObject("response_format").str("type", "json_object").endObject();
      break;
    case ResponseFormatType::JsonSchema:
      if (format.schema.empty() || !isValidJson(format.schema)) {
        return makeError(ErrorKind::InvalidRequest, "the response JSON schema is not valid JSON");
      }
      out.beginObject("response_format").str("type", "json_schema").beginObject("json_schema");
      out.str("name", schemaName(format.name)).raw("schema", format.schema);
      if (format.strict) out.boolean("strict", true);
      out.endObject().endObject();
      break;
  }
  return {};
}

/// reasoning_effort from the neutral reasoning: the effort as given, or the budget through the
/// shared table; off (or on without an effort or budget) says nothing.
std::string reasoningEffort(Reasoning const& reasoning) {
  if (!reasoning.enabled) return {};
  static constexpr std::array<std::string_view, 6> kEfforts = {"minimal", "low",   "medium",
                                                               "high",    "xhigh", "max"};
  if (!reasoning.effort.empty()) {
    bool known = std::find(kEfforts.begin(), kEfforts.end(), reasoning.effort) != kEfforts.end();
    return known ? reasoning.effort : "medium";
  }
  if (reasoning.budget_tokens) return effortForBudget(*reasoning.budget_tokens);
  return {};
}

}  // namespace

Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model) {
  std::vector<std::string> dropped;
  return encodeRequestReporting(request, upstream_model, dropped);
}

Result<std::string> encodeRequestReporting(Request const& original, std::string_view upstream_model,
                                           std::vector<std::string>& dropped) {
  // Every tool_calls[].id must be answered by a tool message right after its assistant message.
  std::optional<Request> paired = pairToolCalls(original, kMaxCallIdLength, dropped);
  Request const& request = paired ? *paired : original;
  std::string body;
  body.reserve(4096);
  JsonOut out(body);
  out.beginObject();
  out.str("model", upstream_model.empty() ? std::string_view(request.model) : upstream_model);
  if (!writeMessages(out, request, dropped)) {
    // Everything was something Chat cannot take (a conversation of reasoning only, say).
    return makeError(ErrorKind::InvalidRequest,
                     "the conversation has no content that OpenAI Chat Completions accepts");
  }
  if (auto written = writeTools(out, request); !written) return written.error();

  if (request.max_output_tokens) out.num("max_completion_tokens", *request.max_output_tokens);
  if (request.temperature) out.num("temperature", *request.temperature);
  if (request.top_p) out.num("top_p", *request.top_p);
  if (!request.stop.empty()) {
    out.beginArray("stop");
    for (std::size_t i = 0; i < request.stop.size() && i < kMaxStopSequences; ++i) {
      out.str(request.stop[i]);
    }
    out.endArray();
  }
  if (request.response_format) {
    if (auto written = writeResponseFormat(out, *request.response_format); !written) {
      return written.error();
    }
  }
  if (request.reasoning) {
    std::string effort = reasoningEffort(*request.reasoning);
    if (!effort.empty()) out.str("reasoning_effort", effort);
  }
  if (request.user.size() > kMaxUserLength) {
    addDropped(dropped, "user");
  } else if (!request.user.empty()) {
    out.str("user", request.user);
  }
  if (!request.prompt_cache_key.empty()) out.str("prompt_cache_key", request.prompt_cache_key);
  if (request.stream) {
    // Usage is always asked for: the gateway needs it whatever the client asked.
    out.boolean("stream", true);
    out.beginObject("stream_options").boolean("include_usage", true).endObject();
  }
  out.endObject();
  return body;
}

}  // namespace llmux::translate::openai_chat

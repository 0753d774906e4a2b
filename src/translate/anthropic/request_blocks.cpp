#include "translate/anthropic/request_blocks.h"

#include "translate/anthropic/blocks.h"
#include "translate/anthropic/wire.h"
#include "translate/media.h"

namespace llmux::translate::anthropic {
namespace {

/// media type of base64 data from its first bytes, for images that arrive without one.
std::string_view sniffMediaType(std::string_view data) {
  if (data.starts_with("/9j/")) return "image/jpeg";
  if (data.starts_with("iVBORw0KGgo")) return "image/png";
  if (data.starts_with("R0lGOD")) return "image/gif";
  if (data.starts_with("UklGR")) return "image/webp";
  if (data.starts_with("JVBERi0")) return "application/pdf";
  return "image/png";
}

}  // namespace

std::optional<Inline> inlineData(Block const& b) {
  if (!b.data.empty()) {
    return Inline{b.media_type.empty() ? sniffMediaType(b.data) : std::string_view(b.media_type),
                  b.data};
  }
  std::string_view url = b.url;
  if (!url.starts_with("data:")) return std::nullopt;
  auto comma = url.find(',');
  auto marker = url.find(";base64");
  if (comma == std::string_view::npos || marker == std::string_view::npos || marker > comma) {
    return std::nullopt;
  }
  std::string_view media = url.substr(5, marker - 5);
  std::string_view data = url.substr(comma + 1);
  return Inline{media.empty() ? sniffMediaType(data) : media, data};
}

bool sendableDocument(Block const& b) {
  if (b.type != BlockType::Document) return true;
  // Anthropic documents are PDF and text; audio and video have no block at all.
  if (MediaKind kind = mediaKind(b); kind == MediaKind::Audio || kind == MediaKind::Video) {
    return false;
  }
  if (auto in = inlineData(b)) {
    return in->media_type == "application/pdf" || in->media_type.starts_with("text/");
  }
  return !b.url.empty();
}

void BodyWriter::cacheControl(Block const& b) {
  if (!b.cache_marker) return;
  if (cache_skip_ > 0) {
    --cache_skip_;
    addDropped(dropped_, "cache_control");
    return;
  }
  out_.beginObject("cache_control").str("type", "ephemeral").endObject();
}

void BodyWriter::text(Block const& b) {
  out_.beginObject().str("type", "text").str("text", b.text);
  cacheControl(b);
  out_.endObject();
}

bool BodyWriter::image(Block const& b) {
  if (!b.detail.empty()) addDropped(dropped_, "image.detail");
  if (auto in = inlineData(b)) {
    out_.beginObject().str("type", "image").beginObject("source").str("type", "base64");
    out_.str("media_type", in->media_type).str("data", in->data).endObject();
  } else if (!b.url.empty()) {
    out_.beginObject().str("type", "image").beginObject("source").str("type", "url");
    out_.str("url", b.url).endObject();
  } else {
    return false;
  }
  cacheControl(b);
  out_.endObject();
  return true;
}

bool BodyWriter::document(Block const& b) {
  if (auto in = inlineData(b)) {
    if (in->media_type.starts_with("text/")) {
      auto decoded = base64Decode(in->data);
      if (!decoded) return false;
      out_.beginObject().str("type", "document").beginObject("source").str("type", "text");
      out_.str("media_type", "text/plain").str("data", *decoded).endObject();
    } else {
      out_.beginObject().str("type", "document").beginObject("source").str("type", "base64");
      out_.str("media_type", in->media_type).str("data", in->data).endObject();
    }
  } else if (!b.url.empty()) {
    out_.beginObject().str("type", "document").beginObject("source").str("type", "url");
    out_.str("url", b.url).endObject();
  } else {
    return false;
  }
  cacheControl(b);
  out_.endObject();
  return true;
}

void BodyWriter::toolResult(Block const& b) {
  out_.beginObject().str("type", "tool_result").str("tool_use_id", b.id);
  std::vector<Block const*> parts;
  bool only_text = true;
  for (Block const& piece : b.content) {
    if (piece.type == BlockType::Text && piece.text.empty()) continue;
    if (piece.type == BlockType::Image && piece.data.empty() && piece.url.empty()) continue;
    if (!sendableDocument(piece)) {
      addDropped(dropped_, "tool_result.content");
      continue;
    }
    if (piece.type != BlockType::Text) only_text = false;
    parts.push_back(&piece);
  }
  if (only_text && parts.size() == 1) {
    out_.str("content", parts.front()->text);
  } else if (!parts.empty()) {
    out_.beginArray("content");
    for (Block const* piece : parts) {
      if (piece->type == BlockType::Text) {
        out_.beginObject().str("type", "text").str("text", piece->text).endObject();
      } else if (piece->type == BlockType::Image) {
        Block copy = *piece;
        copy.cache_marker = false;
        if (!image(copy)) addDropped(dropped_, "tool_result.content");
      } else if (piece->type == BlockType::Document) {
        Block copy = *piece;
        copy.cache_marker = false;
        if (!document(copy)) addDropped(dropped_, "tool_result.content");
      }
    }
    out_.endArray();
  }
  if (b.is_error) out_.boolean("is_error", true);
  cacheControl(b);
  out_.endObject();
}

void BodyWriter::block(Block const& b) {
  switch (b.type) {
    case BlockType::Text:
      text(b);
      break;
    case BlockType::Image:
      if (!image(b)) addDropped(dropped_, "image");
      break;
    case BlockType::Document:
      if (!document(b)) addDropped(dropped_, "document");
      break;
    case BlockType::ToolCall:
      out_.beginObject().str("type", "tool_use").str("id", b.id).str("name", b.name);
      out_.raw("input", argumentsObject(b.arguments));
      cacheControl(b);
      out_.endObject();
      break;
    case BlockType::ToolResult:
      toolResult(b);
      break;
    case BlockType::Thinking:
      out_.beginObject().str("type", "thinking").str("thinking", b.text);
      out_.str("signature", b.signature).endObject();
      break;
    case BlockType::RedactedThinking:
      out_.beginObject().str("type", "redacted_thinking").str("data", b.signature).endObject();
      break;
  }
}

}  // namespace llmux::translate::anthropic

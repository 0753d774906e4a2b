#pragma once

#include <string>
#include <string_view>

#include "core/wire_protocol.h"
#include "mock/mock_ids.h"
#include "mock/mock_provider.h"

namespace llmux::mock {

/// Who runs the API: decides error shapes and headers (Chat and Responses share OpenAI's).
enum class Vendor { OpenAi, Anthropic, Google };

inline Vendor vendorOf(Protocol protocol) {
  switch (protocol) {
    case Protocol::Anthropic:
      return Vendor::Anthropic;
    case Protocol::Gemini:
      return Vendor::Google;
    default:
      return Vendor::OpenAi;
  }
}

/// A rendered answer and the index of its first content-bearing chunk, where the stream faults
/// (slow first token, stall, cut) take effect.
struct Rendered {
  MockReply reply;
  std::size_t first_content = 0;
};

/// Adds the vendor's request id header (x-request-id / request-id; Google sends none) and returns
/// the id so that bodies can repeat it (Anthropic error bodies carry request_id).
std::string addRequestId(MockReply& reply, Vendor vendor, IdSource& ids);

/// Adds the rate-limit headers the vendor sends on every answer (remaining 0 when `exhausted`).
void addRateLimitHeaders(MockReply& reply, Vendor vendor, bool exhausted, int reset_seconds);

/// The headers OpenAI puts on every successful answer: request id, processing time, rate limits.
void addOpenAiAnswerHeaders(MockReply& reply, IdSource& ids);

/// A complete body (JSON or text) of `content_type`, sent with a content-length.
void setJsonBody(MockReply& reply, int status, std::string body, std::string_view content_type);

/// A chunked binary body of `content_type`: `bytes` in pieces of `piece_bytes`, each flushed on
/// its own (how the API streams speech and video downloads).
void setChunkedBytes(MockReply& reply, std::string_view content_type, std::string_view bytes,
                     std::size_t piece_bytes);

/// Switches the reply to an SSE stream (content-type, cache-control, chunked).
void beginSse(MockReply& reply, std::string_view content_type);

/// Appends one SSE event as its own chunk: "event: <name>\ndata: <data>\n\n" ("data:" only when
/// `event` is empty). `data` is moved from.
void pushSse(MockReply& reply, std::string_view event, std::string& data);

/// Appends one Gemini SSE event: "data: <data>\r\n\r\n".
void pushSseCrlf(MockReply& reply, std::string& data);

}  // namespace llmux::mock

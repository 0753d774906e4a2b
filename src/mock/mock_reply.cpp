#include "mock/mock_reply.h"

#include <utility>

namespace llmux::mock {

std::string MockReply::body() const {
  std::string out;
  for (auto const& chunk : chunks) out += chunk.bytes;
  return out;
}

std::string addRequestId(MockReply& reply, Vendor vendor, IdSource& ids) {
  switch (vendor) {
    case Vendor::OpenAi: {
      std::string id = "req_" + ids.hex(32);
      reply.headers.add("x-request-id", id);
      return id;
    }
    case Vendor::Anthropic: {
      std::string id = "req_011C" + ids.alnum(20);
      reply.headers.add("request-id", id);
      return id;
    }
    case Vendor::Google:
      break;
  }
  return {};
}

void addRateLimitHeaders(MockReply& reply, Vendor vendor, bool exhausted, int reset_seconds) {
  std::string reset = std::to_string(reset_seconds) + "s";
  switch (vendor) {
    case Vendor::OpenAi:
      reply.headers.add("x-ratelimit-limit-requests", "500");
      reply.headers.add("x-ratelimit-limit-tokens", "200000");
      reply.headers.add("x-ratelimit-remaining-requests", exhausted ? "0" : "499");
      reply.headers.add("x-ratelimit-remaining-tokens", exhausted ? "0" : "199000");
      reply.headers.add("x-ratelimit-reset-requests", exhausted ? reset : "120ms");
      reply.headers.add("x-ratelimit-reset-tokens", exhausted ? reset : "1ms");
      break;
    case Vendor::Anthropic:
      reply.headers.add("anthropic-ratelimit-requests-limit", "4000");
      reply.headers.add("anthropic-ratelimit-requests-remaining", exhausted ? "0" : "3999");
      reply.headers.add("anthropic-ratelimit-tokens-limit", "2400000");
      reply.headers.add("anthropic-ratelimit-tokens-remaining", exhausted ? "0" : "2400000");
      reply.headers.add("anthropic-ratelimit-input-tokens-remaining", exhausted ? "0" : "2000000");
      reply.headers.add("anthropic-ratelimit-output-tokens-remaining", exhausted ? "0" : "400000");
      break;
    case Vendor::Google:
      break;  // Gemini sends no rate-limit headers
  }
}

void addOpenAiAnswerHeaders(MockReply& reply, IdSource& ids) {
  addRequestId(reply, Vendor::OpenAi, ids);
  reply.headers.add("openai-processing-ms", std::to_string(50 + ids.next() % 400));
  addRateLimitHeaders(reply, Vendor::OpenAi, false, 0);
}

void setJsonBody(MockReply& reply, int status, std::string body, std::string_view content_type) {
  reply.status = status;
  reply.streaming = false;
  reply.headers.set("content-type", content_type);
  reply.chunks.clear();
  reply.chunks.push_back(MockChunk{{}, std::move(body)});
}

void setChunkedBytes(MockReply& reply, std::string_view content_type, std::string_view bytes,
                     std::size_t piece_bytes) {
  reply.status = 200;
  reply.streaming = true;
  reply.headers.set("content-type", content_type);
  reply.chunks.clear();
  for (std::size_t at = 0; at < bytes.size(); at += piece_bytes) {
    reply.chunks.push_back(MockChunk{{}, std::string(bytes.substr(at, piece_bytes))});
  }
}

void beginSse(MockReply& reply, std::string_view content_type) {
  reply.status = 200;
  reply.streaming = true;
  reply.headers.set("content-type", content_type);
  reply.headers.set("cache-control", "no-cache");
}

void pushSse(MockReply& reply, std::string_view event, std::string& data) {
  std::string bytes;
  bytes.reserve(data.size() + event.size() + 16);
  if (!event.empty()) {
    bytes += "event: ";
    bytes.append(event);
    bytes.push_back('\n');
  }
  bytes += "data: ";
  bytes += data;
  bytes += "\n\n";
  data.clear();
  reply.chunks.push_back(MockChunk{{}, std::move(bytes)});
}

void pushSseCrlf(MockReply& reply, std::string& data) {
  std::string bytes;
  bytes.reserve(data.size() + 10);
  bytes += "data: ";
  bytes += data;
  bytes += "\r\n\r\n";
  data.clear();
  reply.chunks.push_back(MockChunk{{}, std::move(bytes)});
}

}  // namespace llmux::mock

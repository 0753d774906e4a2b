#include "gemini/gemini_test_support.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

namespace llmux::translate::gemini::testing {

std::string readGeminiFixture(std::string_view name) {
  std::string path = std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/gemini/" + std::string(name);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing fixture " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string sseFromChunkLines(std::string_view lines) {
  std::string out;
  while (!lines.empty()) {
    std::size_t end = lines.find('\n');
    std::string_view line = lines.substr(0, end);
    lines = end == std::string_view::npos ? std::string_view() : lines.substr(end + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    out += "data: ";
    out += line;
    out += "\r\n\r\n";
  }
  return out;
}

std::vector<std::string_view> wholeBody(std::string_view bytes) { return {bytes}; }

std::vector<std::string_view> everyByte(std::string_view bytes) {
  std::vector<std::string_view> pieces;
  for (std::size_t i = 0; i < bytes.size(); ++i) pieces.push_back(bytes.substr(i, 1));
  return pieces;
}

Splitter randomSplits(unsigned seed, std::size_t max) {
  return [seed, max](std::string_view bytes) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> size(1, max);
    std::vector<std::string_view> pieces;
    std::size_t at = 0;
    while (at < bytes.size()) {
      std::size_t n = std::min(size(rng), bytes.size() - at);
      pieces.push_back(bytes.substr(at, n));
      at += n;
    }
    return pieces;
  };
}

std::vector<Event> decodeGeminiStream(std::string_view bytes, Splitter const& split) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  for (std::string_view piece : split(bytes)) decoder->feed(piece, events);
  decoder->finish(events);
  return events;
}

namespace {

std::string_view typeName(EventType type) {
  switch (type) {
    case EventType::MessageStart: return "MessageStart";
    case EventType::BlockStart: return "BlockStart";
    case EventType::TextDelta: return "TextDelta";
    case EventType::ThinkingDelta: return "ThinkingDelta";
    case EventType::SignatureDelta: return "SignatureDelta";
    case EventType::ArgumentsDelta: return "ArgumentsDelta";
    case EventType::BlockStop: return "BlockStop";
    case EventType::UsageUpdate: return "UsageUpdate";
    case EventType::MessageStop: return "MessageStop";
    case EventType::Error: return "Error";
  }
  return "?";
}

std::string_view blockTypeName(BlockType type) {
  switch (type) {
    case BlockType::Text: return "text";
    case BlockType::Image: return "image";
    case BlockType::Document: return "document";
    case BlockType::ToolCall: return "tool_call";
    case BlockType::ToolResult: return "tool_result";
    case BlockType::Thinking: return "thinking";
    case BlockType::RedactedThinking: return "redacted_thinking";
  }
  return "?";
}

}  // namespace

std::string dumpEvents(std::vector<Event> const& events) {
  std::ostringstream out;
  for (Event const& e : events) {
    out << typeName(e.type);
    switch (e.type) {
      case EventType::MessageStart:
        out << " id=" << e.id << " model=" << e.model;
        break;
      case EventType::BlockStart:
        out << " #" << e.index << " " << blockTypeName(e.block.type);
        if (!e.block.id.empty()) out << " id=" << e.block.id;
        if (!e.block.name.empty()) out << " name=" << e.block.name;
        if (!e.block.signature.empty()) out << " sig=" << e.block.signature.substr(0, 12) << "…";
        break;
      case EventType::TextDelta:
      case EventType::ThinkingDelta:
      case EventType::SignatureDelta:
      case EventType::ArgumentsDelta:
        out << " #" << e.index << " " << e.text;
        break;
      case EventType::BlockStop:
        out << " #" << e.index;
        break;
      case EventType::UsageUpdate:
        out << " in=" << e.usage.input << " cached=" << e.usage.cache_read
            << " out=" << e.usage.output << " reasoning=" << e.usage.reasoning;
        break;
      case EventType::MessageStop:
        out << " stop=" << static_cast<int>(e.stop);
        break;
      case EventType::Error:
        out << " " << e.error_status << " " << e.text;
        break;
    }
    out << '\n';
  }
  return out.str();
}

std::string encodeGeminiStream(std::vector<Event> const& events, EncodeOptions const& options,
                               StreamFraming framing) {
  auto encoder = makeStreamEncoder(options, framing);
  std::string out;
  for (Event const& event : events) encoder->encode(event, out);
  return out;
}

mock::MockReply askGeminiMock(std::string const& body, std::string_view model, bool stream) {
  mock::MockProvider provider;
  mock::MockRequest request;
  request.method = "POST";
  request.path = "/v1beta/models/" + std::string(model) +
                 (stream ? ":streamGenerateContent" : ":generateContent");
  request.query = stream ? "alt=sse" : "";
  request.body = body;
  request.headers.add("content-type", "application/json");
  request.headers.add("x-goog-api-key", "AIza-test");
  return provider.handle(request);
}

std::string canonicalJson(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value value = boost::json::parse(text, ec);
  if (ec) return "<invalid JSON: " + std::string(text) + ">";
  return boost::json::serialize(value);
}

Block textBlock(std::string text) {
  Block block;
  block.type = BlockType::Text;
  block.text = std::move(text);
  return block;
}

Block callBlock(std::string id, std::string name, std::string arguments) {
  Block block;
  block.type = BlockType::ToolCall;
  block.id = std::move(id);
  block.name = std::move(name);
  block.arguments = std::move(arguments);
  return block;
}

Block resultBlock(std::string id, std::string text, std::string name) {
  Block block;
  block.type = BlockType::ToolResult;
  block.id = std::move(id);
  block.name = std::move(name);
  block.content.push_back(textBlock(std::move(text)));
  return block;
}

}  // namespace llmux::translate::gemini::testing

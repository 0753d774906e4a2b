#include "openai_chat/chat_test_support.h"

#include <fstream>
#include <random>
#include <sstream>

#include "translate/openai_chat/codec.h"

namespace llmux::translate::openai_chat::testing {

std::string readChatFixture(std::string_view name) {
  std::string path = std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/openai-chat/" + std::string(name);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string_view> whole(std::string_view bytes) { return {bytes}; }

std::vector<std::string_view> byteByByte(std::string_view bytes) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i < bytes.size(); ++i) out.push_back(bytes.substr(i, 1));
  return out;
}

Splitter randomPieces(unsigned seed, std::size_t max) {
  return [seed, max](std::string_view bytes) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::size_t> size(1, max);
    std::vector<std::string_view> out;
    for (std::size_t pos = 0; pos < bytes.size();) {
      std::size_t n = std::min(size(rng), bytes.size() - pos);
      out.push_back(bytes.substr(pos, n));
      pos += n;
    }
    return out;
  };
}

std::vector<Event> decodeStream(std::string_view bytes, Splitter const& split) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  for (auto piece : split(bytes)) decoder->feed(piece, events);
  decoder->finish(events);
  return events;
}

std::vector<Event> coalesce(std::vector<Event> const& events) {
  std::vector<Event> out;
  for (Event const& e : events) {
    bool delta = e.type == EventType::TextDelta || e.type == EventType::ThinkingDelta ||
                 e.type == EventType::ArgumentsDelta || e.type == EventType::SignatureDelta;
    if (delta && !out.empty() && out.back().type == e.type && out.back().index == e.index) {
      out.back().text += e.text;
      continue;
    }
    out.push_back(e);
  }
  return out;
}

std::string dump(std::vector<Event> const& events) {
  std::ostringstream s;
  for (Event const& e : events) {
    switch (e.type) {
      case EventType::MessageStart: s << "MessageStart id=" << e.id << " model=" << e.model; break;
      case EventType::BlockStart:
        s << "BlockStart " << e.index << " type=" << static_cast<int>(e.block.type)
          << " id=" << e.block.id << " name=" << e.block.name;
        break;
      case EventType::TextDelta: s << "TextDelta " << e.index << " " << e.text; break;
      case EventType::ThinkingDelta: s << "ThinkingDelta " << e.index << " " << e.text; break;
      case EventType::SignatureDelta: s << "SignatureDelta " << e.index << " " << e.text; break;
      case EventType::ArgumentsDelta: s << "ArgumentsDelta " << e.index << " " << e.text; break;
      case EventType::BlockStop: s << "BlockStop " << e.index; break;
      case EventType::UsageUpdate:
        s << "Usage in=" << e.usage.input << " cache_read=" << e.usage.cache_read
          << " out=" << e.usage.output << " reasoning=" << e.usage.reasoning;
        break;
      case EventType::MessageStop: s << "MessageStop " << static_cast<int>(e.stop); break;
      case EventType::Error: s << "Error " << e.error_status << " " << e.text; break;
    }
    s << "\n";
  }
  return s.str();
}

std::string encodeStream(std::vector<Event> const& events, EncodeOptions const& options) {
  auto encoder = makeStreamEncoder(options);
  std::string out;
  for (Event const& e : events) encoder->encode(e, out);
  return out;
}

mock::MockReply askMock(std::string const& body) {
  mock::MockProvider provider;
  mock::MockRequest request;
  request.method = "POST";
  request.path = "/v1/chat/completions";
  request.body = body;
  request.headers.add("content-type", "application/json");
  request.headers.add("authorization", "Bearer sk-test");
  return provider.handle(request);
}

}  // namespace llmux::translate::openai_chat::testing

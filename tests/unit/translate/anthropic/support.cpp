#include "anthropic/support.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "mock/mock_provider.h"
#include "translate/anthropic/codec.h"

namespace llmux::translate::anthropic::testing {
namespace {

std::filesystem::path fixtureDir() {
  return std::filesystem::path(LLMUX_TEST_DATA_DIR) / "fixtures" / "anthropic";
}

std::string_view typeName(EventType t) {
  switch (t) {
    case EventType::MessageStart:
      return "MessageStart";
    case EventType::BlockStart:
      return "BlockStart";
    case EventType::TextDelta:
      return "TextDelta";
    case EventType::ThinkingDelta:
      return "ThinkingDelta";
    case EventType::SignatureDelta:
      return "SignatureDelta";
    case EventType::ArgumentsDelta:
      return "ArgumentsDelta";
    case EventType::BlockStop:
      return "BlockStop";
    case EventType::UsageUpdate:
      return "UsageUpdate";
    case EventType::MessageStop:
      return "MessageStop";
    case EventType::Error:
      return "Error";
  }
  return "?";
}

}  // namespace

std::string readFixture(std::string_view name) {
  std::ifstream in(fixtureDir() / std::string(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> fixturesEnding(std::string_view suffix) {
  std::vector<std::string> names;
  for (auto const& entry : std::filesystem::directory_iterator(fixtureDir())) {
    std::string name = entry.path().filename().string();
    if (name.ends_with(suffix)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string streamBody(std::string_view fixture) {
  std::string raw = readFixture(fixture);
  if (!fixture.ends_with(".chunks.txt")) return raw;
  std::string out;
  std::istringstream lines(raw);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto at = line.find("\"type\":\"");
    std::string type = line.substr(at + 8, line.find('"', at + 8) - at - 8);
    out += "event: " + type + "\ndata: " + line + "\n\n";
  }
  return out;
}

std::vector<Event> decodeStream(std::string_view bytes, std::size_t piece) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  if (piece == 0) piece = bytes.size() + 1;
  for (std::size_t i = 0; i < bytes.size(); i += piece) {
    decoder->feed(bytes.substr(i, piece), events);
  }
  decoder->finish(events);
  return events;
}

std::vector<Event> decodeStreamRandomly(std::string_view bytes, std::uint32_t seed) {
  std::mt19937 rng(seed);
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  std::size_t i = 0;
  while (i < bytes.size()) {
    std::size_t n = std::uniform_int_distribution<std::size_t>(1, 97)(rng);
    decoder->feed(bytes.substr(i, n), events);
    i += n;
  }
  decoder->finish(events);
  return events;
}

std::string encodeStream(std::vector<Event> const& events, EncodeOptions const& options) {
  auto encoder = makeStreamEncoder(options);
  std::string out;
  for (Event const& e : events) encoder->encode(e, out);
  return out;
}

std::string describe(std::vector<Event> const& events) {
  std::string out;
  for (Event const& e : events) {
    out += typeName(e.type);
    out += " i=" + std::to_string(e.index);
    switch (e.type) {
      case EventType::MessageStart:
        out += " id=" + e.id + " model=" + e.model;
        break;
      case EventType::BlockStart:
        out += " type=" + std::to_string(static_cast<int>(e.block.type)) + " id=" + e.block.id +
               " name=" + e.block.name + " sig=" + e.block.signature;
        break;
      case EventType::UsageUpdate:
        out += " in=" + std::to_string(e.usage.input) +
               " cr=" + std::to_string(e.usage.cache_read) +
               " cw=" + std::to_string(e.usage.cache_write) +
               " out=" + std::to_string(e.usage.output) +
               " reasoning=" + std::to_string(e.usage.reasoning);
        break;
      case EventType::MessageStop:
        out += " stop=" + std::to_string(static_cast<int>(e.stop)) + " seq=" + e.stop_sequence;
        break;
      case EventType::Error:
        out += " status=" + std::to_string(e.error_status) + " " + e.text;
        break;
      default:
        out += " text=" + e.text;
        break;
    }
    out += "\n";
  }
  return out;
}

Response accumulate(std::vector<Event> const& events) {
  Response r;
  for (Event const& e : events) {
    switch (e.type) {
      case EventType::MessageStart:
        r.id = e.id;
        r.model = e.model;
        break;
      case EventType::BlockStart:
        r.content.push_back(e.block);
        break;
      case EventType::TextDelta:
      case EventType::ThinkingDelta:
        r.content.at(e.index).text += e.text;
        break;
      case EventType::SignatureDelta:
        r.content.at(e.index).signature += e.text;
        break;
      case EventType::ArgumentsDelta:
        r.content.at(e.index).arguments += e.text;
        break;
      case EventType::UsageUpdate:
        r.usage = e.usage;
        break;
      case EventType::MessageStop:
        r.stop = e.stop;
        r.stop_sequence = e.stop_sequence;
        break;
      default:
        break;
    }
  }
  return r;
}

MockAnswer askMock(std::string const& body) {
  mock::MockProvider provider;
  mock::MockRequest request;
  request.method = "POST";
  request.path = "/v1/messages";
  request.headers.add("x-api-key", "test-key");
  request.headers.add("anthropic-version", "2023-06-01");
  request.headers.add("content-type", "application/json");
  request.body = body;
  mock::MockReply reply = provider.handle(request);
  return MockAnswer{reply.status, reply.body()};
}

}  // namespace llmux::translate::anthropic::testing

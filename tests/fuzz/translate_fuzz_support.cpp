#include "translate_fuzz_support.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "protocol/sse_parser.h"
#include "translate/gemini/codec.h"

namespace llmux::fuzz {

using translate::Event;
using translate::EventType;

namespace {

[[noreturn]] void fail(std::string_view what) {
  std::fprintf(stderr, "fuzz check failed: %.*s\n", static_cast<int>(what.size()), what.data());
  std::abort();
}

bool isDelta(EventType type) {
  return type == EventType::TextDelta || type == EventType::ThinkingDelta ||
         type == EventType::SignatureDelta || type == EventType::ArgumentsDelta;
}

/// Every `data:` payload of an SSE stream must be JSON (OpenAI Chat ends with `[DONE]`).
void checkSseFrames(Protocol protocol, std::string_view bytes) {
  protocol::SseParser parser;
  std::vector<protocol::SseEvent> frames;
  parser.feed(bytes, frames);
  parser.finish(frames);
  for (auto const& frame : frames) {
    if (protocol == Protocol::OpenAiChat && frame.data == "[DONE]") continue;
    checkJson(frame.data, protocolName(protocol));
  }
}

}  // namespace

void checkJson(std::string_view text, std::string_view what) {
  boost::json::parse_options options;
  options.max_depth = 100000;  // the encoders may pass deep tool arguments through
  boost::system::error_code ec;
  (void)boost::json::parse(text, ec, {}, options);
  if (ec) {
    std::fprintf(stderr, "not JSON (%s) from %.*s: %.*s\n", ec.message().c_str(),
                 static_cast<int>(what.size()), what.data(), static_cast<int>(text.size()),
                 text.data());
    fail("an encoder wrote invalid JSON");
  }
}

void checkEventContract(std::vector<Event> const& events) {
  if (events.empty()) fail("finish() emitted no ending");
  int next_index = 0;
  int open = -1;
  for (std::size_t i = 0; i < events.size(); ++i) {
    Event const& e = events[i];
    bool last = i + 1 == events.size();
    switch (e.type) {
      case EventType::BlockStart:
        if (open != -1) fail("a block started inside another");
        if (e.index != next_index) fail("block indexes do not count from 0");
        open = next_index++;
        break;
      case EventType::BlockStop:
        if (open == -1 || e.index != open) fail("a block stopped that was not open");
        open = -1;
        break;
      case EventType::MessageStop:
        if (!last) fail("events after MessageStop");
        if (open != -1) fail("MessageStop inside an open block");
        break;
      case EventType::Error:
        if (!last) fail("events after an Error");
        break;
      default:
        if (isDelta(e.type) && (open == -1 || e.index != open)) fail("a delta outside its block");
        break;
    }
  }
  EventType end = events.back().type;
  if (end != EventType::MessageStop && end != EventType::Error) fail("no MessageStop or Error");
}

void encodeEverywhere(std::vector<Event> const& events, bool variant) {
  translate::EncodeOptions options;
  // One variant lets the encoders take the model and id from MessageStart.
  options.model = variant ? "" : "fuzz-model";
  options.id = variant ? "" : "fuzz-id";
  options.include_usage = variant;
  options.created = 1700000000;
  for (Protocol protocol : kAllProtocols) {
    auto encoder = translate::makeStreamEncoder(protocol, options);
    std::string out;
    for (auto const& event : events) encoder->encode(event, out);
    checkSseFrames(protocol, out);
  }
  auto array_encoder =
      translate::gemini::makeStreamEncoder(options, translate::gemini::StreamFraming::JsonArray);
  std::string out;
  for (auto const& event : events) array_encoder->encode(event, out);
  // The events always end (checkEventContract), so the array is complete.
  checkJson(out, "gemini JSON array");
}

std::vector<Event> fuzzStreamDecoder(Protocol protocol, std::string_view input,
                                     std::string_view prefix) {
  unsigned char header[kCutHeader] = {};
  std::size_t header_size = std::min(input.size(), kCutHeader);
  for (std::size_t i = 0; i < header_size; ++i) header[i] = static_cast<unsigned char>(input[i]);
  std::string_view rest = input.substr(header_size);

  auto decoder = translate::makeStreamDecoder(protocol);
  std::vector<Event> events;
  if (!prefix.empty()) decoder->feed(prefix, events);
  for (std::size_t piece = 0; !rest.empty(); ++piece) {
    std::size_t length = header[piece % kCutHeader];
    if (length == 0 || length > rest.size()) length = rest.size();
    decoder->feed(rest.substr(0, length), events);
    rest.remove_prefix(length);
  }
  decoder->finish(events);
  checkEventContract(events);
  encodeEverywhere(events, (header[0] & 1) != 0);
  return events;
}

}  // namespace llmux::fuzz

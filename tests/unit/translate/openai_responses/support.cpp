#include "openai_responses/support.h"

#include <boost/json/parse.hpp>
#include <fstream>
#include <random>
#include <sstream>

#include "translate/openai_responses/codec.h"

namespace llmux::translate::openai_responses::testing {

std::string readFixture(std::string_view folder, std::string_view name) {
  std::ifstream in(std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/" + std::string(folder) + "/" +
                       std::string(name),
                   std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> chunksToSse(std::string_view lines) {
  std::vector<std::string> streams;
  std::size_t pos = 0;
  while (pos < lines.size()) {
    std::size_t nl = lines.find('\n', pos);
    if (nl == std::string_view::npos) nl = lines.size();
    std::string_view line = lines.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    boost::system::error_code ec;
    auto v = boost::json::parse(line, ec);
    std::string type;
    if (!ec && v.is_object()) {
      if (auto const* t = v.as_object().if_contains("type"); t && t->is_string()) {
        type = std::string(t->as_string());
      }
    }
    if (type == "response.created" || streams.empty()) streams.emplace_back();
    streams.back() += "event: " + type + "\ndata: " + std::string(line) + "\n\n";
  }
  return streams;
}

std::vector<NamedStream> responsesStreams() {
  std::vector<NamedStream> out;
  for (std::string name :
       {"pydantic-ai--responses_stream_function_call.i0.response.sse",
        "pydantic-ai--responses_stream_function_call.i1.response.sse",
        "pydantic-ai--responses_stream_reasoning_then_function_call.response.sse"}) {
    out.push_back({name, readFixture("openai-responses", name)});
  }
  for (std::string name : {"vercel-ai--openai-reasoning-encrypted-content.1.chunks.txt",
                           "vercel-ai--github-copilot-id-rotation.1.chunks.txt",
                           "vercel-ai--openai-error.1.chunks.txt"}) {
    auto streams = chunksToSse(readFixture("openai-responses", name));
    for (std::size_t i = 0; i < streams.size(); ++i) {
      out.push_back({name + "#" + std::to_string(i), std::move(streams[i])});
    }
  }
  return out;
}

std::vector<Event> decodeStream(std::string_view bytes, int piece, std::uint32_t seed) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  std::mt19937 rng(seed);
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    std::size_t n = bytes.size() - pos;
    if (piece > 0) n = std::min<std::size_t>(n, piece);
    if (piece < 0) n = std::min<std::size_t>(n, 1 + rng() % 97);
    decoder->feed(bytes.substr(pos, n), events);
    pos += n;
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

namespace {

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

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

std::string describe(std::vector<Event> const& events) {
  std::string out;
  for (Event const& e : events) {
    out += typeName(e.type);
    out += " #" + std::to_string(e.index);
    switch (e.type) {
      case EventType::MessageStart:
        out += " id=" + e.id + " model=" + e.model;
        break;
      case EventType::BlockStart:
        out += " type=" + std::to_string(static_cast<int>(e.block.type)) + " id=" + e.block.id +
               " name=" + e.block.name + " item=" + e.block.item_id;
        break;
      case EventType::UsageUpdate:
        out += " in=" + std::to_string(e.usage.input) + " out=" + std::to_string(e.usage.output) +
               " cached=" + std::to_string(e.usage.cache_read) +
               " reasoning=" + std::to_string(e.usage.reasoning);
        break;
      case EventType::MessageStop:
        out += " stop=" + std::to_string(static_cast<int>(e.stop));
        break;
      case EventType::Error:
        out += " status=" + std::to_string(e.error_status) + " " + e.text;
        break;
      default:
        out += " " + e.text;
    }
    out += '\n';
  }
  return out;
}

Assembled assemble(std::vector<Event> const& events) {
  Assembled a;
  int open = -1;
  for (Event const& e : events) {
    switch (e.type) {
      case EventType::MessageStart:
        a.response.id = e.id;
        a.response.model = e.model;
        break;
      case EventType::BlockStart:
        if (open >= 0) a.problems.push_back("block started while another is open");
        if (e.index != static_cast<int>(a.response.content.size())) {
          a.problems.push_back("block index " + std::to_string(e.index) + " out of sequence");
        }
        a.response.content.push_back(e.block);
        open = e.index;
        break;
      case EventType::TextDelta:
      case EventType::ThinkingDelta:
      case EventType::SignatureDelta:
      case EventType::ArgumentsDelta: {
        if (e.index != open || open < 0) {
          a.problems.push_back("delta for block " + std::to_string(e.index) + " not open");
          break;
        }
        Block& b = a.response.content[open];
        if (e.type == EventType::SignatureDelta) {
          b.signature += e.text;
        } else if (e.type == EventType::ArgumentsDelta) {
          b.arguments += e.text;
        } else {
          b.text += e.text;
        }
        break;
      }
      case EventType::BlockStop:
        if (e.index != open)
          a.problems.push_back("stop for block " + std::to_string(e.index) + " not open");
        open = -1;
        break;
      case EventType::UsageUpdate:
        a.response.usage = e.usage;
        break;
      case EventType::MessageStop:
        if (open >= 0) a.problems.push_back("message stopped with a block open");
        a.response.stop = e.stop;
        a.stopped = true;
        break;
      case EventType::Error:
        a.error = e.text;
        a.error_status = e.error_status;
        break;
    }
  }
  return a;
}

}  // namespace llmux::translate::openai_responses::testing

// Every recorded provider answer (tests/data/fixtures), streamed or not, translated into every
// protocol: the output must pass that protocol's strict validator, and decoding it again must give
// back the same text, tool calls (arguments equal as JSON) and usage.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include "translate/codec.h"
#include "validators/anthropic_validator.h"
#include "validators/gemini_validator.h"
#include "validators/openai_chat_validator.h"
#include "validators/openai_responses_validator.h"

namespace llmux::translate {
namespace {

namespace fs = std::filesystem;

struct Fixture {
  Protocol protocol;
  std::string name;
  std::string bytes;  ///< a whole stream body (framed) or a JSON answer
  bool stream = false;
};

std::string folderOf(Protocol p) {
  switch (p) {
    case Protocol::OpenAiChat: return "openai-chat";
    case Protocol::OpenAiResponses: return "openai-responses";
    case Protocol::Anthropic: return "anthropic";
    case Protocol::Gemini: return "gemini";
  }
  return "";
}

std::string readFile(fs::path const& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// vercel/ai recordings keep one JSON event per line without SSE framing: frame them as the
/// provider does.
std::string frameChunks(Protocol p, std::string const& lines) {
  std::string out;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    switch (p) {
      case Protocol::OpenAiChat: out += "data: " + line + "\n\n"; break;
      case Protocol::Gemini: out += "data: " + line + "\r\n\r\n"; break;
      default: {
        auto type = boost::json::parse(line).as_object().at("type").as_string();
        out += "event: " + std::string(type) + "\ndata: " + line + "\n\n";
      }
    }
  }
  if (p == Protocol::OpenAiChat) out += "data: [DONE]\n\n";
  return out;
}

bool isErrorDocument(std::string const& text) {
  boost::system::error_code ec;
  auto v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) return true;  // not an answer (e.g. Gemini's JSON-array stream form)
  auto const& o = v.as_object();
  return o.contains("error") || (o.contains("type") && o.at("type") == "error");
}

std::vector<Fixture> allFixtures() {
  std::vector<Fixture> out;
  for (Protocol p : kAllProtocols) {
    fs::path dir = fs::path(LLMUX_TEST_DATA_DIR) / "fixtures" / folderOf(p);
    for (auto const& entry : fs::directory_iterator(dir)) {
      std::string name = entry.path().filename().string();
      if (name.ends_with(".response.sse")) {
        out.push_back({p, name, readFile(entry.path()), true});
      } else if (name.ends_with(".chunks.txt")) {
        out.push_back({p, name, frameChunks(p, readFile(entry.path())), true});
      } else if (name.ends_with(".response.json") ||
                 (name.starts_with("vercel-ai--") && name.ends_with(".json"))) {
        std::string text = readFile(entry.path());
        if (!isErrorDocument(text)) out.push_back({p, name, text, false});
      }
    }
  }
  return out;
}

std::vector<std::string> validate(Protocol p, std::string const& bytes, bool stream) {
  switch (p) {
    case Protocol::OpenAiChat:
      return stream ? validators::openai_chat::validateStream(bytes)
                    : validators::openai_chat::validateResponse(bytes);
    case Protocol::OpenAiResponses:
      return stream ? validators::openai_responses::validateStream(bytes)
                    : validators::openai_responses::validateResponse(bytes);
    case Protocol::Anthropic:
      return stream ? validators::anthropic::validateStream(bytes)
                    : validators::anthropic::validateResponse(bytes);
    case Protocol::Gemini:
      return stream ? validators::gemini::validateStream(bytes)
                    : validators::gemini::validateResponse(bytes);
  }
  return {"unknown protocol"};
}

/// What must survive any translation.
struct Essentials {
  std::string text;
  std::vector<std::pair<std::string, boost::json::value>> tool_calls;  ///< name, arguments
  std::int64_t input_tokens = -1, output_tokens = -1;
  bool failed = false;  ///< the stream ended in an error
};

boost::json::value parsedArguments(std::string const& text) {
  boost::system::error_code ec;
  auto v = boost::json::parse(text.empty() ? "{}" : text, ec);
  return ec ? boost::json::value(text) : v;
}

Essentials fromEvents(std::vector<Event> const& events) {
  Essentials e;
  std::map<int, std::pair<std::string, std::string>> calls;
  for (auto const& ev : events) {
    switch (ev.type) {
      case EventType::TextDelta: e.text += ev.text; break;
      case EventType::BlockStart:
        if (ev.block.type == BlockType::ToolCall) calls[ev.index] = {ev.block.name, ev.block.arguments};
        if (ev.block.type == BlockType::Text) e.text += ev.block.text;
        break;
      case EventType::ArgumentsDelta: calls[ev.index].second += ev.text; break;
      case EventType::UsageUpdate:
        e.input_tokens = ev.usage.input;
        e.output_tokens = ev.usage.output;
        break;
      case EventType::Error: e.failed = true; break;
      default: break;
    }
  }
  for (auto const& [index, call] : calls) e.tool_calls.emplace_back(call.first, parsedArguments(call.second));
  return e;
}

Essentials fromResponse(Response const& r) {
  Essentials e;
  for (auto const& block : r.content) {
    if (block.type == BlockType::Text) e.text += block.text;
    if (block.type == BlockType::ToolCall) e.tool_calls.emplace_back(block.name, parsedArguments(block.arguments));
  }
  if (r.usage) {
    e.input_tokens = r.usage->input;
    e.output_tokens = r.usage->output;
  }
  return e;
}

std::vector<Event> decodeStream(Protocol p, std::string const& bytes) {
  auto decoder = makeStreamDecoder(p);
  std::vector<Event> events;
  decoder->feed(bytes, events);
  decoder->finish(events);
  return events;
}

void expectSameEssentials(Essentials const& source, Essentials const& back, std::string const& what) {
  EXPECT_EQ(back.text, source.text) << what;
  ASSERT_EQ(back.tool_calls.size(), source.tool_calls.size()) << what;
  for (std::size_t i = 0; i < source.tool_calls.size(); ++i) {
    EXPECT_EQ(back.tool_calls[i].first, source.tool_calls[i].first) << what;
    EXPECT_EQ(back.tool_calls[i].second, source.tool_calls[i].second) << what;
  }
  if (source.input_tokens >= 0 && back.input_tokens >= 0) {
    EXPECT_EQ(back.input_tokens, source.input_tokens) << what << " (input tokens)";
    EXPECT_EQ(back.output_tokens, source.output_tokens) << what << " (output tokens)";
  }
}

TEST(CrossProtocol, EveryRecordedAnswerTranslatesIntoEveryProtocolAndValidates) {
  auto fixtures = allFixtures();
  ASSERT_GT(fixtures.size(), 40u);
  std::size_t translations = 0;
  for (auto const& fx : fixtures) {
    for (Protocol target : kAllProtocols) {
      std::string what = std::string(protocolName(fx.protocol)) + " " + fx.name + " -> " +
                         std::string(protocolName(target));
      SCOPED_TRACE(what);
      EncodeOptions options;
      options.model = "client-model";
      options.id = "req0123456789";
      options.include_usage = true;
      options.created = 1'700'000'000;
      if (fx.stream) {
        auto events = decodeStream(fx.protocol, fx.bytes);
        auto encoder = makeStreamEncoder(target, options);
        std::string out;
        for (auto const& ev : events) encoder->encode(ev, out);
        auto problems = validate(target, out, true);
        EXPECT_TRUE(problems.empty()) << what << ":\n" << (problems.empty() ? "" : problems.front())
                                      << "\n--- output ---\n" << out;
        Essentials source = fromEvents(events);
        if (!source.failed) expectSameEssentials(source, fromEvents(decodeStream(target, out)), what);
      } else {
        auto decoded = decodeResponse(fx.protocol, fx.bytes);
        ASSERT_TRUE(decoded.ok()) << what << ": " << decoded.error().message;
        std::string out = encodeResponse(target, *decoded, options);
        auto problems = validate(target, out, false);
        EXPECT_TRUE(problems.empty()) << what << ":\n" << (problems.empty() ? "" : problems.front())
                                      << "\n--- output ---\n" << out;
        auto back = decodeResponse(target, out);
        ASSERT_TRUE(back.ok()) << what << ": " << back.error().message;
        expectSameEssentials(fromResponse(*decoded), fromResponse(*back), what);
      }
      ++translations;
    }
  }
  EXPECT_EQ(translations, fixtures.size() * 4);
}

}  // namespace
}  // namespace llmux::translate

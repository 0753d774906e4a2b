#include "streams.h"

#include <boost/json/parse.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace llmux::bench {
namespace {

/// The recorded streams per protocol: a plain text answer and a tool call (with thinking where
/// the recording has it), chosen as the most common shapes a gateway relays.
struct StreamFiles {
  Protocol protocol;
  char const* text;
  char const* tool;
};

constexpr StreamFiles kStreamFiles[] = {
    {Protocol::OpenAiChat, "envoy-aigw--chat-streaming.response.sse",
     "pydantic-ai--chat_stream_parallel_tool_calls.i0.response.sse"},
    {Protocol::OpenAiResponses, "pydantic-ai--responses_stream_function_call.i1.response.sse",
     "pydantic-ai--responses_stream_function_call.i0.response.sse"},
    {Protocol::Anthropic, "vercel-ai--anthropic-text.chunks.txt",
     "llm-anthropic--stream_thinking_signature_tool_use.i0.response.sse"},
    {Protocol::Gemini, "pydantic-ai--sse_text.response.sse",
     "vercel-ai--google-stream-tool-call-arguments.chunks.txt"},
};

/// Text deltas of the synthetic stream: short tokens as models emit them, some with the escapes
/// (newlines, quotes, backslashes) real answers carry.
constexpr std::string_view kTokens[] = {
    " The", " parser", " keeps",   " the",       " offset", " of",     " each",  " frame",
    ",",    " so",     " a",       " split",     " read",   " re",     "sumes",  " where",
    " it",  " left",   ".\\n\\n",  "```",        "cpp",     "\\n",     "auto",   " n",
    " =",   " buf",    ".find",    "(\\\"\\\\n", "\\\");",  "\\n",     "```",    "\\n\\n",
    "This", " avoids", " copying", " the",       " whole",  " buffer", " twice", ".",
};

/// The recorder's one-JSON-event-per-line form (vercel-ai `.chunks.txt`) framed exactly as the
/// provider sends it.
std::string frameChunkLines(Protocol protocol, std::string const& lines) {
  std::string out;
  std::istringstream in(lines);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    switch (protocol) {
      case Protocol::OpenAiChat:
        out += "data: " + line + "\n\n";
        break;
      case Protocol::Gemini:
        out += "data: " + line + "\r\n\r\n";
        break;
      default: {
        auto type = boost::json::parse(line).as_object().at("type").as_string();
        out += "event: " + std::string(type) + "\ndata: " + line + "\n\n";
      }
    }
  }
  if (protocol == Protocol::OpenAiChat) out += "data: [DONE]\n\n";
  return out;
}

/// SSE frames with their terminating blank line ("\n\n" or "\r\n\r\n"), in order.
std::vector<std::string> splitFrames(std::string_view body) {
  std::vector<std::string> frames;
  while (!body.empty()) {
    std::size_t lf = body.find("\n\n");
    std::size_t crlf = body.find("\r\n\r\n");
    std::size_t end = std::string_view::npos;
    if (crlf != std::string_view::npos && (lf == std::string_view::npos || crlf < lf)) {
      end = crlf + 4;
    } else if (lf != std::string_view::npos) {
      end = lf + 2;
    }
    if (end == std::string_view::npos) end = body.size();
    frames.emplace_back(body.substr(0, end));
    body.remove_prefix(end);
  }
  return frames;
}

bool isTextDelta(Protocol protocol, std::string const& frame) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return frame.find("\"delta\":{\"content\":\"") != std::string::npos;
    case Protocol::OpenAiResponses:
      return frame.starts_with("event: response.output_text.delta");
    case Protocol::Anthropic:
      return frame.find("\"type\":\"text_delta\"") != std::string::npos;
    case Protocol::Gemini:
      return frame.find("\"text\"") != std::string::npos &&
             frame.find("finishReason") == std::string::npos;
  }
  return false;
}

/// The JSON key whose string value is a text delta's text.
std::string_view textKey(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return "\"content\"";
    case Protocol::OpenAiResponses:
      return "\"delta\"";
    case Protocol::Anthropic:
    case Protocol::Gemini:
      return "\"text\"";
  }
  return "";
}

/// `frame` with the (last) string value of `key` replaced by `text` (already JSON-escaped).
std::string withText(std::string const& frame, std::string_view key, std::string_view text) {
  std::size_t at = frame.rfind(key);
  if (at == std::string::npos) throw std::runtime_error("text delta frame without its text");
  std::size_t open = frame.find('"', at + key.size());
  std::size_t close = open + 1;
  while (close < frame.size() && frame[close] != '"') close += frame[close] == '\\' ? 2 : 1;
  if (open == std::string::npos || close >= frame.size()) {
    throw std::runtime_error("text delta frame with an unterminated string");
  }
  return frame.substr(0, open + 1) + std::string(text) + frame.substr(close);
}

/// The recorded text stream with its text deltas replaced by `deltas` deltas cut from the same
/// frame template: the provider's exact framing, but long enough that the per-stream set-up
/// (decoder, encoder, the first frames) no longer dominates.
std::vector<std::string> longStream(Protocol protocol, std::vector<std::string> const& frames,
                                    std::size_t deltas) {
  std::size_t first = frames.size(), last = 0;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (!isTextDelta(protocol, frames[i])) continue;
    first = std::min(first, i);
    last = i;
  }
  if (first == frames.size()) throw std::runtime_error("text stream without text deltas");
  std::string const& model = frames[first + (last > first ? 1 : 0)];
  std::vector<std::string> out(frames.begin(), frames.begin() + first);
  for (std::size_t i = 0; i < deltas; ++i) {
    out.push_back(withText(model, textKey(protocol), kTokens[i % std::size(kTokens)]));
  }
  out.insert(out.end(), frames.begin() + last + 1, frames.end());
  return out;
}

UpstreamStream makeStream(Protocol protocol, std::string kind, std::string source,
                          std::vector<std::string> frames) {
  UpstreamStream s;
  s.protocol = protocol;
  s.kind = std::move(kind);
  s.source = std::move(source);
  s.events = frames.size();
  for (auto const& f : frames) s.bytes += f.size();
  // A provider writes one event at a time (one HTTP chunk, one TLS record), and a stream that
  // arrives at model speed is read one event per read.
  s.pieces = std::move(frames);
  return s;
}

}  // namespace

std::string_view fixtureFolder(Protocol protocol) {
  switch (protocol) {
    case Protocol::OpenAiChat:
      return "openai-chat";
    case Protocol::OpenAiResponses:
      return "openai-responses";
    case Protocol::Anthropic:
      return "anthropic";
    case Protocol::Gemini:
      return "gemini";
  }
  return "";
}

std::string readFile(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<UpstreamStream> loadStreams(std::string const& fixtures_dir, Protocol protocol,
                                        std::size_t long_deltas) {
  auto frames = [&](std::string const& name) {
    std::string body =
        readFile(fixtures_dir + "/" + std::string(fixtureFolder(protocol)) + "/" + name);
    if (name.ends_with(".chunks.txt")) body = frameChunkLines(protocol, body);
    return splitFrames(body);
  };
  for (auto const& files : kStreamFiles) {
    if (files.protocol != protocol) continue;
    auto text = frames(files.text);
    std::vector<UpstreamStream> out;
    auto synthetic = longStream(protocol, text, long_deltas);
    out.push_back(makeStream(protocol, "text", files.text, std::move(text)));
    out.push_back(makeStream(protocol, "tool", files.tool, frames(files.tool)));
    out.push_back(
        makeStream(protocol, "long",
                   std::string(files.text) + ", text deltas x " + std::to_string(long_deltas),
                   std::move(synthetic)));
    return out;
  }
  throw std::runtime_error("no streams for this protocol");
}

}  // namespace llmux::bench

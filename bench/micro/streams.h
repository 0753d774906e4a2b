#pragma once

// The upstream streams the translation benchmark replays: recorded provider streams from
// tests/data/fixtures (SSE as recorded, or the recorder's one-JSON-per-line form framed as the
// provider frames it) and a long synthetic stream of text deltas in the same framing.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/wire_protocol.h"

namespace llmux::bench {

/// One upstream stream, already cut into the pieces a socket read would return.
struct UpstreamStream {
  Protocol protocol = Protocol::OpenAiChat;
  std::string kind;    ///< "text", "tool" or "long"
  std::string source;  ///< the fixture file it comes from
  std::vector<std::string> pieces;
  std::size_t events = 0;  ///< SSE frames (upstream events) in the stream
  std::size_t bytes = 0;
};

/// The fixture folder of a protocol ("openai-chat", ...).
std::string_view fixtureFolder(Protocol protocol);

/// Whole-file read; throws std::runtime_error when the file cannot be read.
std::string readFile(std::string const& path);

/// The three streams of `protocol`: a recorded text stream, a recorded tool-call stream and a
/// synthetic one of `long_deltas` text deltas built from the recorded text stream's frames.
/// Throws std::runtime_error when a fixture is missing or not shaped as expected.
std::vector<UpstreamStream> loadStreams(std::string const& fixtures_dir, Protocol protocol,
                                        std::size_t long_deltas);

}  // namespace llmux::bench

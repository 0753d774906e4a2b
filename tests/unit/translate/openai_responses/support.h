#pragma once

// Helpers of the OpenAI Responses translation tests: fixtures, stream feeding, event summaries.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::openai_responses::testing {

/// A file of tests/data/fixtures/<folder>/ ("" when missing: tests then fail on its content).
std::string readFixture(std::string_view folder, std::string_view name);

/// The recorder's one-JSON-event-per-line form (`.chunks.txt`) as SSE, one stream per
/// response.created (a file may hold several consecutive responses).
std::vector<std::string> chunksToSse(std::string_view lines);

/// Every Responses stream fixture as SSE bytes: name -> bytes.
struct NamedStream {
  std::string name;
  std::string bytes;
};
std::vector<NamedStream> responsesStreams();

/// Feeds `bytes` in pieces of `piece` bytes (0: all at once; -1: random sizes from `seed`), then
/// finishes.
std::vector<Event> decodeStream(std::string_view bytes, int piece = 0, std::uint32_t seed = 1);

/// The client bytes for a neutral event sequence.
std::string encodeStream(std::vector<Event> const& events, EncodeOptions const& options);

/// Validator problems as one message ("" when none).
std::string joined(std::vector<std::string> const& problems);

/// One line per event, for comparisons and failure messages.
std::string describe(std::vector<Event> const& events);

/// The response a stream builds up: blocks with their texts, arguments and signatures, the last
/// usage, the stop reason; `error` holds the text of an Error event.
struct Assembled {
  Response response;
  bool stopped = false;
  std::string error;
  int error_status = 0;
  std::vector<std::string> problems;  ///< broken neutral ordering (indexes, interleaving)
};
Assembled assemble(std::vector<Event> const& events);

}  // namespace llmux::translate::openai_responses::testing

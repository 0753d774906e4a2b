#pragma once

// Helpers of the Anthropic Messages translation tests.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::anthropic::testing {

/// The bytes of tests/data/fixtures/anthropic/<name>.
std::string readFixture(std::string_view name);

/// Names of the fixture files ending in `suffix`, sorted.
std::vector<std::string> fixturesEnding(std::string_view suffix);

/// A stream body as the API sends it: `.response.sse` files as they are, `.chunks.txt` files (one
/// JSON payload per line) framed with `event: <type>` lines.
std::string streamBody(std::string_view fixture);

/// Every event of decoding `bytes` fed in pieces of `piece` bytes (0: all at once), then finish.
std::vector<Event> decodeStream(std::string_view bytes, std::size_t piece = 0);
/// The same with pieces of pseudo-random sizes from `seed`.
std::vector<Event> decodeStreamRandomly(std::string_view bytes, std::uint32_t seed);

/// The client stream for `events`.
std::string encodeStream(std::vector<Event> const& events, EncodeOptions const& options);

/// One line per event, with every field that matters, for comparisons and failure messages.
std::string describe(std::vector<Event> const& events);

/// What a client accumulates from a stream: the blocks with their text, arguments and
/// signatures joined, the last usage, the stop reason.
Response accumulate(std::vector<Event> const& events);

/// The HTTP status the mock Anthropic provider answers `body` with, and its body.
struct MockAnswer {
  int status = 0;
  std::string body;
};
MockAnswer askMock(std::string const& body);

}  // namespace llmux::translate::anthropic::testing

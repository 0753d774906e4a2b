#pragma once

// Helpers of the Gemini translation tests: recorded fixtures, whole-stream decoding with any split
// of the bytes, event dumps, and the mock provider as a judge of request bodies.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mock/mock_provider.h"
#include "translate/codec.h"
#include "translate/gemini/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::gemini::testing {

/// A file of tests/data/fixtures/gemini.
std::string readGeminiFixture(std::string_view name);

/// A `.chunks.txt` recording (one JSON chunk per line, framing stripped by the recorder) framed
/// again as Gemini SSE: `data: <line>\r\n\r\n`.
std::string sseFromChunkLines(std::string_view lines);

/// How a body is cut into the pieces fed to a decoder.
using Splitter = std::function<std::vector<std::string_view>(std::string_view)>;
std::vector<std::string_view> wholeBody(std::string_view bytes);
std::vector<std::string_view> everyByte(std::string_view bytes);
/// Random piece sizes (1..max) from a fixed seed.
Splitter randomSplits(unsigned seed, std::size_t max);

/// Every event the Gemini stream decoder emits for `bytes` cut by `split`, finish() included.
std::vector<Event> decodeGeminiStream(std::string_view bytes, Splitter const& split = wholeBody);

/// One line per event, for comparing sequences in failure messages.
std::string dumpEvents(std::vector<Event> const& events);

/// The Gemini stream an encoder writes for `events`.
std::string encodeGeminiStream(std::vector<Event> const& events, EncodeOptions const& options,
                               StreamFraming framing = StreamFraming::Sse);

/// The mock provider's answer to a Gemini request with this body for `model`.
mock::MockReply askGeminiMock(std::string const& body, std::string_view model = "gemini-2.5-flash",
                              bool stream = false);

/// Arguments JSON text in a canonical form (parsed and re-serialised), for comparisons.
std::string canonicalJson(std::string_view text);

/// A text block / thinking block / tool call, for building requests and responses.
Block textBlock(std::string text);
Block callBlock(std::string id, std::string name, std::string arguments);
Block resultBlock(std::string id, std::string text, std::string name = {});

}  // namespace llmux::translate::gemini::testing

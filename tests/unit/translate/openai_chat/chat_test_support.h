#pragma once

// Helpers of the OpenAI Chat translation tests: recorded fixtures, whole-stream decoding with any
// split of the bytes, event dumps, and the mock provider as the judge of request bodies.

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mock/mock_provider.h"
#include "translate/codec.h"
#include "translate/neutral.h"

namespace llmux::translate::openai_chat::testing {

/// A file of tests/data/fixtures/openai-chat.
std::string readChatFixture(std::string_view name);

/// How a body is cut into the pieces fed to a decoder.
using Splitter = std::function<std::vector<std::string_view>(std::string_view)>;
std::vector<std::string_view> whole(std::string_view bytes);
std::vector<std::string_view> byteByByte(std::string_view bytes);
/// Random piece sizes (1..max) from a fixed seed.
Splitter randomPieces(unsigned seed, std::size_t max);

/// Every event the Chat stream decoder emits for `bytes` cut by `split`, finish() included.
std::vector<Event> decodeStream(std::string_view bytes, Splitter const& split = whole);

/// Adjacent deltas of the same kind and block merged (splits change how text is grouped, not
/// what it is).
std::vector<Event> coalesce(std::vector<Event> const& events);

/// One line per event, for comparing sequences in failure messages.
std::string dump(std::vector<Event> const& events);

/// The Chat stream an encoder writes for `events`.
std::string encodeStream(std::vector<Event> const& events, EncodeOptions const& options);

/// The mock provider's answer to a Chat Completions request with this body.
mock::MockReply askMock(std::string const& body);

}  // namespace llmux::translate::openai_chat::testing

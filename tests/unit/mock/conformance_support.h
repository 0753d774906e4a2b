#pragma once

// Helpers that compare the mock's output with recorded provider traffic: event framing, event
// kinds and JSON key structure. Values (ids, text, numbers) are deliberately ignored.

#include <boost/json/value.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/wire_protocol.h"
#include "mock/mock_provider.h"

namespace llmux::mock::testing {

/// Contents of tests/data/fixtures/<folder>/<name>.
std::string readFixture(std::string_view folder, std::string_view name);

/// A request to the mock with a valid key for the protocol (x-api-key + anthropic-version for
/// Anthropic, x-goog-api-key for Gemini, Bearer otherwise).
MockRequest makeRequest(Protocol protocol, std::string path, std::string body,
                        std::string query = {});

/// One streamed event: its SSE event name, its data, and the data parsed (null when not JSON).
struct StreamEvent {
  std::string event;
  std::string data;
  boost::json::value json;
};

/// Events of an SSE body (parsed with protocol::SseParser).
std::vector<StreamEvent> parseSse(std::string_view bytes);
/// Events of a vercel-ai ".chunks.txt" recording (one JSON payload per line, framing removed).
std::vector<StreamEvent> parseJsonLines(std::string_view text);
/// The elements of a Gemini JSON-array stream.
std::vector<StreamEvent> parseJsonArray(std::string_view text);

/// How an SSE body is framed: the separator between events and, per event, its field lines
/// ("event,data" or "data"); plus whether the stream ends with "data: [DONE]".
struct Framing {
  std::string separator;  ///< "\n\n" or "\r\n\r\n" (or "mixed")
  std::set<std::string> field_layouts;
  bool done_sentinel = false;
  bool operator==(Framing const&) const = default;
};
Framing framingOf(std::string_view bytes);
std::string describe(Framing const& framing);

/// A short name of what an event carries, per protocol ("content_block_delta:text_delta",
/// "tool_call.start", "text+sig", ...).
std::string kindOf(Protocol protocol, StreamEvent const& event);
/// Kinds of all events with consecutive repeats collapsed (deltas vary in number).
std::vector<std::string> kindSequence(Protocol protocol, std::vector<StreamEvent> const& events);
std::string join(std::vector<std::string> const& items);

/// Known, documented differences between a recording and the mock for one comparison. Paths use
/// "." between keys and "[]" for array elements: "choices[].delta.role".
struct Tolerance {
  std::set<std::string> optional;  ///< the key may be missing on either side
  std::set<std::string> any_type;  ///< the value's type may differ (e.g. null vs string)
  std::set<std::string> opaque;    ///< compare presence only, not the inside
};

/// Differences in key structure and value types between `mock` and `recorded`.
std::vector<std::string> shapeDiff(boost::json::value const& mock,
                                   boost::json::value const& recorded, Tolerance const& tolerance);

/// For every event kind the mock emits, compares its first event of that kind with the first
/// recorded event of the same kind; reports kinds the recording does not have.
std::vector<std::string> eventShapeDiff(Protocol protocol, std::vector<StreamEvent> const& mock,
                                        std::vector<StreamEvent> const& recorded,
                                        Tolerance const& tolerance);

/// Parses JSON text (the test fails on invalid JSON).
boost::json::value parseJson(std::string_view text);

}  // namespace llmux::mock::testing

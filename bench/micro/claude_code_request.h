#pragma once

// A Claude Code-sized Anthropic Messages request, generated deterministically: the recorded
// claude-cli request (its system prompt, tools with JSON schemas, cache_control marks, metadata,
// thinking settings) with the conversation grown by agent turns until the body is large.

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <cstddef>
#include <cstdint>
#include <string>

namespace llmux::bench {

class ClaudeCodeConversation {
 public:
  /// `recorded` is the text of tests/data/fixtures/clients/claude-cli.request.json (method,
  /// path, headers and the body as a JSON object). Throws on a malformed recording.
  explicit ClaudeCodeConversation(std::string const& recorded);

  /// Appends one agent step: an assistant turn (thinking with its signature, sometimes a short
  /// text, one or two tool_use blocks with arguments) and the user turn answering it
  /// (tool_result blocks with file contents or command output, now and then a system reminder).
  void addTurn();

  /// The request body as Claude Code sends it: the last block carries cache_control.
  std::string body() const;

  int turns() const { return turns_; }

 private:
  std::uint64_t next();
  std::size_t pick(std::size_t n) { return static_cast<std::size_t>(next() % n); }
  std::string words(std::size_t count);
  std::string codeLines(std::size_t count, std::size_t first_number, bool numbered);
  std::string signature();
  std::string toolId();
  std::string path();

  boost::json::object base_;                     // the recorded body, its messages left empty
  boost::json::array recorded_;                  // the recorded messages (the user's prompt)
  boost::json::array grown_;                     // the turns added since
  std::uint64_t state_ = 0x243f6a8885a308d3ULL;  // splitmix64: the same bytes on every run
  int turns_ = 0;
};

/// The body of the smallest conversation that is at least `min_bytes` long.
std::string claudeCodeRequest(std::string const& recorded, std::size_t min_bytes);

}  // namespace llmux::bench

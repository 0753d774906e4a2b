#pragma once

// The non-SSE streamGenerateContent body is one JSON array whose elements (GenerateContentResponse
// objects) arrive bit by bit (REFERENCE §4.1). This splits it into its elements as soon as each
// one is complete, whatever the split of the bytes, holding at most one element.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::translate::gemini::detail {

class JsonArraySplitter {
 public:
  /// Consumes `bytes`, appending every element they complete to `out`. Returns false (and stays
  /// failed) when the bytes cannot be a JSON array of objects or an element exceeds `max_element`.
  bool feed(std::string_view bytes, std::vector<std::string>& out);

  /// The closing bracket was seen.
  bool done() const { return state_ == State::Done; }
  /// Some bytes of an element are held.
  bool midElement() const { return state_ == State::InElement; }
  std::string_view error() const { return error_; }

  static constexpr std::size_t kMaxElement = 16 * 1024 * 1024;

 private:
  enum class State { Before, Between, InElement, Done, Failed };
  bool fail(std::string_view why);

  State state_ = State::Before;
  std::string element_;
  std::size_t depth_ = 0;
  bool in_string_ = false;
  bool escaped_ = false;
  std::string_view error_;
};

}  // namespace llmux::translate::gemini::detail

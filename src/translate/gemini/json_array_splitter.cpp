#include "translate/gemini/json_array_splitter.h"

namespace llmux::translate::gemini::detail {

namespace {

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

}  // namespace

bool JsonArraySplitter::fail(std::string_view why) {
  state_ = State::Failed;
  error_ = why;
  element_.clear();
  element_.shrink_to_fit();
  return false;
}

bool JsonArraySplitter::feed(std::string_view bytes, std::vector<std::string>& out) {
  std::size_t i = 0;
  while (i < bytes.size()) {
    switch (state_) {
      case State::Failed:
        return false;
      case State::Before: {
        char c = bytes[i++];
        if (isSpace(c)) continue;
        if (c != '[') return fail("the stream body is not a JSON array");
        state_ = State::Between;
        continue;
      }
      case State::Between: {
        char c = bytes[i++];
        if (isSpace(c) || c == ',') continue;
        if (c == ']') {
          state_ = State::Done;
          continue;
        }
        if (c != '{') return fail("an element of the stream array is not an object");
        state_ = State::InElement;
        element_.assign(1, '{');
        depth_ = 1;
        in_string_ = false;
        escaped_ = false;
        continue;
      }
      case State::InElement: {
        // Copy a run of bytes at once, stopping where the element ends.
        std::size_t start = i;
        bool complete = false;
        for (; i < bytes.size(); ++i) {
          char c = bytes[i];
          if (in_string_) {
            if (escaped_) {
              escaped_ = false;
            } else if (c == '\\') {
              escaped_ = true;
            } else if (c == '"') {
              in_string_ = false;
            }
            continue;
          }
          if (c == '"') {
            in_string_ = true;
          } else if (c == '{' || c == '[') {
            ++depth_;
          } else if (c == '}' || c == ']') {
            if (--depth_ == 0) {
              ++i;
              complete = true;
              break;
            }
          }
        }
        element_.append(bytes.substr(start, i - start));
        if (element_.size() > kMaxElement) return fail("an element of the stream array is too large");
        if (complete) {
          out.push_back(std::move(element_));
          element_.clear();
          state_ = State::Between;
        }
        continue;
      }
      case State::Done: {
        char c = bytes[i++];
        if (!isSpace(c)) return fail("data after the end of the stream array");
        continue;
      }
    }
  }
  return state_ != State::Failed;
}

}  // namespace llmux::translate::gemini::detail

#include "translate/overflow_counts.h"

#include <initializer_list>

#include "core/strings.h"

namespace llmux::translate {
namespace {

/// More digits than any token count has: the rest of such a run is not a count.
constexpr int kMaxDigits = 15;

/// Anthropic's wording when the input and max_tokens together overflow.
constexpr std::string_view kContextLimit = "exceed context limit:";

bool isDigit(char c) {
  return c >= '0' && c <= '9';
}

/// The number `text` starts with, after filler such as "is", "of", "about", "(" and ":"; digits
/// may be grouped with commas ("128,000").
std::optional<std::int64_t> leadingNumber(std::string_view text) {
  for (bool filler = true; filler;) {
    std::size_t skip = text.find_first_not_of(" \t(:");
    if (skip == std::string_view::npos) return std::nullopt;
    text.remove_prefix(skip);
    filler = false;
    for (std::string_view word : {"is ", "of ", "about "}) {
      if (text.starts_with(word)) {
        text.remove_prefix(word.size());
        filler = true;
        break;
      }
    }
  }
  std::int64_t value = 0;
  int digits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (isDigit(text[i])) {
      if (++digits > kMaxDigits) return std::nullopt;
      value = value * 10 + (text[i] - '0');
    } else if (text[i] != ',' || digits == 0 || i + 1 == text.size() || !isDigit(text[i + 1])) {
      break;
    }
  }
  if (digits == 0) return std::nullopt;
  return value;
}

/// The number right after the first `marker` in `text`.
std::optional<std::int64_t> numberAfter(std::string_view text, std::string_view marker) {
  std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  return leadingNumber(text.substr(at + marker.size()));
}

/// The number right before the first `marker` in `text` ("3000 in the messages").
std::optional<std::int64_t> numberBefore(std::string_view text, std::string_view marker) {
  std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t begin = at;
  while (begin > 0 && (isDigit(text[begin - 1]) || text[begin - 1] == ',')) --begin;
  return leadingNumber(text.substr(begin, at - begin));
}

std::optional<std::int64_t> firstOf(std::initializer_list<std::optional<std::int64_t>> candidates) {
  for (auto const& candidate : candidates) {
    if (candidate) return candidate;
  }
  return std::nullopt;
}

}  // namespace

OverflowCounts readOverflowCounts(std::string_view message) {
  std::string m = toLower(message);
  OverflowCounts counts;
  std::optional<std::int64_t> window;    // input and output together
  std::optional<std::int64_t> reserved;  // of the window, for the completion
  if (auto input = numberAfter(m, "prompt is too long:")) {
    counts.input = input;
    counts.limit = numberAfter(m, "tokens >");
  } else if (std::size_t at = m.find(kContextLimit); at != std::string::npos) {
    // Anthropic: "input length and `max_tokens` exceed context limit: N + C > W".
    std::string_view rest = std::string_view(m).substr(at + kContextLimit.size());
    counts.input = leadingNumber(rest);
    reserved = numberAfter(rest, "+");
    window = numberAfter(rest, ">");
  } else if (m.find("input token count") != std::string::npos) {
    counts.input = numberAfter(m, "input token count");
    counts.limit = numberAfter(m, "maximum number of tokens allowed");
  } else {
    window = firstOf({numberAfter(m, "maximum context length"),
                      numberBefore(m, " maximum context length"),
                      numberAfter(m, "maximum prompt length")});
    std::optional<std::int64_t> text_input = numberBefore(m, " of text input");
    if (text_input) *text_input += numberBefore(m, " of image input").value_or(0);
    counts.input = firstOf({text_input, numberBefore(m, " in the messages"),
                            numberBefore(m, " in your prompt"), numberAfter(m, "resulted in"),
                            numberBefore(m, " input tokens"), numberAfter(m, "prompt contains"),
                            numberAfter(m, "request contains"), numberAfter(m, "input length")});
    reserved = firstOf({numberBefore(m, " in the completion"),
                        numberBefore(m, " for the completion"), numberBefore(m, " in the output")});
  }
  if (window) {
    if (!reserved) {
      counts.limit = window;
    } else if (*window > *reserved) {
      counts.limit = *window - *reserved;
    }
  }
  if (counts.input && counts.limit && *counts.input <= *counts.limit) return {};
  return counts;
}

std::string geminiOverflowMessage(OverflowCounts const& counts) {
  std::string out = "The input token count";
  if (counts.input) out += " (" + std::to_string(*counts.input) + ")";
  out += " exceeds the maximum number of tokens allowed";
  if (counts.limit) out += " (" + std::to_string(*counts.limit) + ")";
  out += '.';
  return out;
}

std::string anthropicOverflowMessage(OverflowCounts const& counts,
                                     std::string_view upstream_message) {
  if (counts.input && counts.limit) {
    return "prompt is too long: " + std::to_string(*counts.input) + " tokens > " +
           std::to_string(*counts.limit) + " maximum";
  }
  if (toLower(upstream_message).find("prompt is too long") != std::string::npos) {
    return std::string(upstream_message);
  }
  return "prompt is too long: " + std::string(upstream_message);
}

}  // namespace llmux::translate

#include "claude_code_request.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <cctype>
#include <string_view>

namespace llmux::bench {
namespace {

namespace json = boost::json;

constexpr std::string_view kWords[] = {
    "the",     "parser", "keeps",    "offset",  "header",  "when",     "split",  "across",
    "two",     "reads",  "buffer",   "so",      "resumes", "where",    "it",     "left",
    "test",    "fails",  "because",  "value",   "is",      "trimmed",  "before", "we",
    "compare", "length", "upstream", "chunk",   "frame",   "boundary", "then",   "check",
    "whether", "caller", "already",  "handles", "empty",   "case",     "I",      "should",
    "read",    "first",  "look",     "at",      "how",     "request",  "routed", "retry",
};

constexpr std::string_view kIdents[] = {
    "request", "buffer",  "header", "parser", "channel", "session", "deadline", "upstream",
    "status",  "payload", "offset", "length", "config",  "route",   "token",    "frame"};

constexpr std::string_view kFiles[] = {
    "src/http/request_parser.cpp", "src/http/request_parser.h", "src/proxy/forwarder.cpp",
    "src/routing/candidates.cpp",  "src/core/header_list.cpp",  "tests/unit/http/parser_test.cpp",
    "src/net/connection.cpp",      "src/config/settings.cpp",
};

constexpr std::string_view kCommands[] = {
    "grep -rn \"splitHeader\" src tests | head -40",
    "cmake --build build/dev --target http_test 2>&1 | tail -30",
    "build/dev/tests/unit/http/http_test --gtest_filter='Parser*'",
    "git diff --stat && git status --short",
    "sed -n '120,220p' src/http/request_parser.cpp",
};

constexpr char kBase64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kBase62[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

json::object textBlock(std::string text) {
  return {{"type", "text"}, {"text", std::move(text)}};
}

}  // namespace

ClaudeCodeConversation::ClaudeCodeConversation(std::string const& recorded) {
  base_ = json::parse(recorded).as_object().at("body").as_object();
  recorded_ = base_.at("messages").as_array();
  base_["messages"] = json::array();  // filled by body(), in the recorded key order
  // The recording's prompt is a ping; a long agent session starts from a real task.
  auto& first = recorded_.at(0).as_object().at("content").as_array();
  first.back().as_object()["text"] =
      "The HTTP parser drops a header when it arrives split across two reads. Find the cause, "
      "fix it, and add a regression test.";
}

std::uint64_t ClaudeCodeConversation::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::string ClaudeCodeConversation::words(std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (i) out += (pick(9) == 0) ? ". " : " ";
    out += kWords[pick(std::size(kWords))];
  }
  out += '.';
  out[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(out[0])));
  return out;
}

/// Source code as Claude Code's Read tool returns it (`cat -n`: right-aligned number, a tab),
/// with the quotes, backslashes and indentation that make JSON escaping work.
std::string ClaudeCodeConversation::codeLines(std::size_t count, std::size_t first_number,
                                              bool numbered) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (numbered) {
      std::string n = std::to_string(first_number + i);
      out.append(n.size() < 6 ? 6 - n.size() : 0, ' ');
      out += n + '\t';
    }
    std::string a(kIdents[pick(std::size(kIdents))]);
    std::string b(kIdents[pick(std::size(kIdents))]);
    switch (pick(8)) {
      case 0:
        out += "  auto " + a + " = " + b + ".find(\"\\r\\n\", " + a + "_offset);";
        break;
      case 1:
        out += "  if (" + a + ".empty()) return " + b + "Error(\"missing " + a + "\");";
        break;
      case 2:
        out += "  // " + words(6 + pick(8));
        break;
      case 3:
        out += "  for (auto const& " + a + " : " + b + "s_) {";
        break;
      case 4:
        out += "  }";
        break;
      case 5:
        out += "std::string_view " + a + "Of(" + b + " const& " + b + ") {";
        break;
      case 6:
        out += "    " + a + "_.append(" + b + ".data(), " + b + ".size());";
        break;
      default:
        out += "";
        break;
    }
    out += '\n';
  }
  return out;
}

std::string ClaudeCodeConversation::signature() {
  std::string out = "Eu";  // the prefix of Anthropic's thinking signatures
  std::size_t n = 300 + pick(700);
  for (std::size_t i = 0; i < n; ++i) out += kBase64[pick(64)];
  return out + "==";
}

std::string ClaudeCodeConversation::toolId() {
  std::string out = "toolu_01";
  for (int i = 0; i < 22; ++i) out += kBase62[pick(62)];
  return out;
}

std::string ClaudeCodeConversation::path() {
  return "<WORKDIR>/" + std::string(kFiles[pick(std::size(kFiles))]);
}

void ClaudeCodeConversation::addTurn() {
  json::array assistant, user;
  assistant.push_back(json::object{
      {"type", "thinking"}, {"thinking", words(40 + pick(160))}, {"signature", signature()}});
  if (pick(10) < 6) assistant.push_back(textBlock(words(8 + pick(25))));

  std::size_t calls = pick(10) == 0 ? 2 : 1;
  for (std::size_t c = 0; c < calls; ++c) {
    std::string id = toolId();
    json::object use{{"type", "tool_use"}, {"id", id}};
    json::object result{{"type", "tool_result"}, {"tool_use_id", id}};
    std::size_t kind = calls == 2 ? 0 : pick(20);
    if (kind < 10) {  // Read: a file, numbered, a few KB
      std::string file = path();
      std::size_t first = 1 + pick(4) * 200;
      use["name"] = "Read";
      use["input"] = json::object{{"file_path", file}};
      if (first > 1) {
        use["input"].as_object()["offset"] = first;
        use["input"].as_object()["limit"] = 200;
      }
      result["content"] = codeLines(60 + pick(140), first, true);
    } else if (kind < 15) {  // Bash: grep or build output; sometimes it failed
      use["name"] = "Bash";
      use["input"] = json::object{{"command", kCommands[pick(std::size(kCommands))]},
                                  {"description", words(4 + pick(4))}};
      std::string output;
      for (std::size_t i = 0, n = 10 + pick(30); i < n; ++i) {
        output += std::string(kFiles[pick(std::size(kFiles))]) + ":" +
                  std::to_string(10 + pick(900)) + ":" + codeLines(1, 0, false);
      }
      if (pick(5) == 0) {
        result["is_error"] = true;
        output += "Exit code 1";
      }
      result["content"] = json::array{textBlock(std::move(output))};
    } else {  // Edit: old and new text, a short confirmation
      std::string file = path();
      use["name"] = "Edit";
      use["input"] = json::object{{"file_path", file},
                                  {"old_string", codeLines(3 + pick(10), 0, false)},
                                  {"new_string", codeLines(3 + pick(12), 0, false)}};
      result["content"] = "The file " + file +
                          " has been updated. Here's the result of running `cat -n` on a "
                          "snippet of the edited file:\n" +
                          codeLines(8 + pick(10), 100 + pick(300), true);
    }
    assistant.push_back(std::move(use));
    user.push_back(std::move(result));
  }
  if (turns_ % 5 == 4) {
    user.push_back(
        textBlock("<system-reminder>\n" + words(30 + pick(40)) + "\n</system-reminder>"));
  }
  grown_.push_back(json::object{{"role", "assistant"}, {"content", std::move(assistant)}});
  grown_.push_back(json::object{{"role", "user"}, {"content", std::move(user)}});
  ++turns_;
}

std::string ClaudeCodeConversation::body() const {
  json::object body = base_;
  json::array messages = recorded_;
  for (auto const& m : grown_) messages.push_back(m);
  // Claude Code moves its cache breakpoint to the newest block on every request.
  auto& last = messages.back().as_object().at("content").as_array().back().as_object();
  last["cache_control"] = json::object{{"type", "ephemeral"}};
  body["messages"] = std::move(messages);
  return json::serialize(body);
}

std::string claudeCodeRequest(std::string const& recorded, std::size_t min_bytes) {
  ClaudeCodeConversation conversation(recorded);
  std::string body = conversation.body();
  while (body.size() < min_bytes) {
    conversation.addTurn();
    body = conversation.body();
  }
  return body;
}

}  // namespace llmux::bench

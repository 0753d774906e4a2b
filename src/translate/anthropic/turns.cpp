#include "translate/anthropic/turns.h"

#include <algorithm>
#include <set>

#include "translate/anthropic/wire.h"

namespace llmux::translate::anthropic {
namespace {

bool anthropicSigned(Block const& b) {
  return !b.signature.empty() && b.signature_origin == Protocol::Anthropic;
}

/// Whether `b` may be sent in a turn of `role`; names what is dropped otherwise.
bool keep(Block const& b, Role role, std::vector<std::string>& dropped) {
  switch (b.type) {
    case BlockType::Text:
      return !b.text.empty();
    case BlockType::Image:
    case BlockType::Document:
      if (role != Role::User) {
        addDropped(dropped, b.type == BlockType::Image ? "image" : "document");
        return false;
      }
      if (b.data.empty() && b.url.empty()) {
        addDropped(dropped, "file_id");  // provider-side files cannot cross protocols
        return false;
      }
      return true;
    case BlockType::ToolCall:
      if (role == Role::Assistant) return true;
      addDropped(dropped, "tool_call");
      return false;
    case BlockType::ToolResult:
      if (role == Role::User) return true;
      addDropped(dropped, "tool_result");
      return false;
    case BlockType::Thinking:
    case BlockType::RedactedThinking:
      if (role == Role::Assistant && anthropicSigned(b)) return true;
      // Anthropic verifies every thinking block it gets back: unsigned or foreign-signed
      // reasoning cannot be sent.
      addDropped(dropped, "thinking");
      return false;
  }
  return false;
}

std::string resultText(Block const& result) {
  std::string text;
  for (Block const& piece : result.content) {
    if (piece.type != BlockType::Text) continue;
    if (!text.empty()) text += "\n";
    text += piece.text;
  }
  return text;
}

/// Results of `user` answering the calls of `assistant` go first, in call order; missing ones are
/// made up as errors; results answering nothing become text.
void pairResults(Turn const& assistant, Turn& user, std::vector<std::string>& dropped) {
  std::vector<Block const*> calls;
  for (Block const& b : assistant.blocks) {
    if (b.type == BlockType::ToolCall) calls.push_back(&b);
  }
  std::vector<Block> answered(calls.size());
  std::vector<bool> has(calls.size(), false);
  std::vector<Block> rest;
  for (Block& b : user.blocks) {
    if (b.type != BlockType::ToolResult) {
      rest.push_back(std::move(b));
      continue;
    }
    std::size_t match = calls.size();
    for (std::size_t i = 0; i < calls.size() && match == calls.size(); ++i) {
      if (!has[i] && !b.id.empty() && calls[i]->id == b.id) match = i;
    }
    if (b.id.empty()) {
      for (std::size_t i = 0; i < calls.size() && match == calls.size(); ++i) {
        if (!has[i] && calls[i]->name == b.name) match = i;
      }
      for (std::size_t i = 0; i < calls.size() && match == calls.size(); ++i) {
        if (!has[i]) match = i;
      }
    }
    if (match < calls.size()) {
      b.id = calls[match]->id;
      if (b.name.empty()) b.name = calls[match]->name;
      answered[match] = std::move(b);
      has[match] = true;
      continue;
    }
    // A result for a call the previous turn did not make: Anthropic would reject it.
    addDropped(dropped, "tool_result.unmatched");
    Block text;
    text.text = "Tool result" + (b.name.empty() ? std::string() : " (" + b.name + ")") +
                (b.id.empty() ? std::string() : " [" + b.id + "]") + (b.is_error ? " error" : "") +
                ": " + resultText(b);
    rest.push_back(std::move(text));
  }
  std::vector<Block> blocks;
  blocks.reserve(calls.size() + rest.size());
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (!has[i]) {
      addDropped(dropped, "tool_result.missing");
      Block made;
      made.type = BlockType::ToolResult;
      made.id = calls[i]->id;
      made.name = calls[i]->name;
      made.is_error = true;
      Block text;
      text.text = std::string(kMissingToolResult);
      made.content.push_back(std::move(text));
      blocks.push_back(std::move(made));
    } else {
      blocks.push_back(std::move(answered[i]));
    }
  }
  for (Block& b : rest) blocks.push_back(std::move(b));
  user.blocks = std::move(blocks);
}

bool hasCalls(Turn const& t) {
  return std::any_of(t.blocks.begin(), t.blocks.end(),
                     [](Block const& b) { return b.type == BlockType::ToolCall; });
}

/// Results in a user turn that follows no tool calls answer nothing: they become text.
void orphanResults(Turn& user, std::vector<std::string>& dropped) {
  Turn none;
  none.role = Role::Assistant;
  bool any = std::any_of(user.blocks.begin(), user.blocks.end(),
                         [](Block const& b) { return b.type == BlockType::ToolResult; });
  if (any) pairResults(none, user, dropped);
}

}  // namespace

std::vector<Turn> shapeTurns(std::vector<Message> const& messages, std::vector<Block>& system,
                             std::vector<std::string>& dropped) {
  std::vector<Turn> turns;
  turns.reserve(messages.size());
  for (Message const& m : messages) {
    Turn turn;
    turn.role = m.role;
    for (Block const& b : m.blocks) {
      if (m.role == Role::System) {
        if (b.type == BlockType::Text && !b.text.empty())
          turn.blocks.push_back(b);
        else if (b.type != BlockType::Text)
          addDropped(dropped, "system.non_text");
        continue;
      }
      if (keep(b, m.role, dropped)) turn.blocks.push_back(b);
    }
    if (turn.blocks.empty()) continue;
    if (turn.role == Role::System && turns.empty()) {
      for (Block& b : turn.blocks) system.push_back(std::move(b));
      continue;
    }
    if (!turns.empty() && turns.back().role == turn.role) {
      auto& into = turns.back().blocks;
      for (Block& b : turn.blocks) into.push_back(std::move(b));
    } else {
      turns.push_back(std::move(turn));
    }
  }

  // Valid, unique tool_use ids (clients that number their calls per turn reuse ids, which
  // Anthropic refuses); the results of the next user turn follow their call's new id.
  std::set<std::string> used;
  std::vector<std::pair<std::string, std::string>> last_calls;  // (valid original id, final id)
  std::size_t made = 0;
  for (Turn& turn : turns) {
    if (turn.role == Role::Assistant) {
      last_calls.clear();
      for (Block& b : turn.blocks) {
        if (b.type != BlockType::ToolCall) continue;
        std::string id = toolUseId(b.id, "llmux", made++);
        std::string final_id = id;
        while (used.count(final_id) != 0) final_id = id + "_" + std::to_string(made++);
        used.insert(final_id);
        last_calls.emplace_back(id, final_id);
        b.id = final_id;
      }
    } else if (turn.role == Role::User) {
      std::vector<bool> claimed(last_calls.size(), false);
      for (Block& b : turn.blocks) {
        if (b.type != BlockType::ToolResult || b.id.empty()) continue;
        std::string id = toolUseId(b.id, "llmux", 0);
        for (std::size_t i = 0; i < last_calls.size(); ++i) {
          if (!claimed[i] && last_calls[i].first == id) {
            id = last_calls[i].second;
            claimed[i] = true;
            break;
          }
        }
        b.id = std::move(id);
      }
      last_calls.clear();
    }
  }

  std::vector<Turn> out;
  out.reserve(turns.size() + 1);
  for (std::size_t t = 0; t < turns.size(); ++t) {
    Turn& turn = turns[t];
    if (turn.role == Role::User &&
        (out.empty() || out.back().role != Role::Assistant || !hasCalls(out.back()))) {
      orphanResults(turn, dropped);
    }
    out.push_back(std::move(turn));
    if (out.back().role != Role::Assistant || !hasCalls(out.back())) continue;
    // The answer must come next: pull the next user turn forward over system turns.
    std::size_t next = t + 1;
    while (next < turns.size() && turns[next].role == Role::System) ++next;
    Turn user;
    user.role = Role::User;
    if (next < turns.size() && turns[next].role == Role::User) user = std::move(turns[next]);
    pairResults(out.back(), user, dropped);
    out.push_back(std::move(user));
    for (std::size_t s = t + 1; s < next; ++s) out.push_back(std::move(turns[s]));
    if (next < turns.size() && turns[next].role == Role::User) {
      t = next;
    } else {
      t = next - 1;
    }
    // A system turn moved after the answer may now precede another user turn: fine, roles of
    // system turns are not merged.
  }
  return out;
}

}  // namespace llmux::translate::anthropic

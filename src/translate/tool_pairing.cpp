#include "translate/tool_pairing.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

namespace llmux::translate {
namespace {

constexpr std::string_view kMissingResult = "No result was provided for this tool call.";

void note(std::vector<std::string>& dropped, std::string_view name) {
  if (std::find(dropped.begin(), dropped.end(), name) == dropped.end()) {
    dropped.emplace_back(name);
  }
}

/// 8 hex digits of a 64-bit FNV-1a hash: the same id is always shortened the same way.
std::string shortHash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  auto folded = static_cast<std::uint32_t>(h ^ (h >> 32));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 7; i >= 0; --i, folded >>= 4) out[static_cast<std::size_t>(i)] = kHex[folded & 0xf];
  return out;
}

std::string shortenedId(std::string const& id, std::size_t max) {
  if (id.size() <= max || max < 10) return id;
  return id.substr(0, max - 9) + "_" + shortHash(id);
}

std::string resultText(Block const& result) {
  std::string text;
  for (Block const& piece : result.content) {
    if (piece.type != BlockType::Text) continue;
    if (!text.empty()) text += '\n';
    text += piece.text;
  }
  return result.is_error ? "Error: " + text : text;
}

/// What happens to one block of the original request.
struct Edit {
  enum class Kind { SetId, ResultToText, CallToText };
  std::size_t message = 0;
  std::size_t block = 0;
  Kind kind = Kind::SetId;
  std::string id;  ///< SetId: the id to use
};

/// Made-up results for the unanswered calls of one assistant run.
struct Insert {
  std::size_t message = 0;  ///< the user message they open, or where a new one goes
  bool new_message = false;
  std::vector<Block> results;
};

struct Call {
  std::string original;  ///< the id as the client sent it
  std::string id;        ///< the id sent upstream
  std::string name;
  bool answered = false;
};

class Planner {
 public:
  Planner(Request const& request, std::size_t max_id_length)
      : messages_(request.messages), max_(max_id_length) {}

  void run() {
    std::size_t i = 0;
    while (i < messages_.size()) {
      if (messages_[i].role != Role::Assistant) {
        loose(i++);  // before any assistant turn: nothing to answer
        continue;
      }
      std::vector<Call> calls;
      std::size_t j = i;
      for (; j < messages_.size() && messages_[j].role == Role::Assistant; ++j) {
        assistantMessage(j, calls);
      }
      std::size_t k = j;
      std::size_t first_user = messages_.size();
      for (; k < messages_.size() && messages_[k].role != Role::Assistant; ++k) {
        if (messages_[k].role == Role::User && first_user == messages_.size()) first_user = k;
        answers(k, calls);
      }
      missing(calls, first_user < messages_.size() ? first_user : j,
              first_user == messages_.size());
      i = k;
    }
  }

  std::vector<Edit> edits;
  std::vector<Insert> inserts;

 private:
  void assistantMessage(std::size_t m, std::vector<Call>& calls) {
    auto const& blocks = messages_[m].blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      Block const& block = blocks[b];
      if (block.type == BlockType::ToolResult) {
        edits.push_back({m, b, Edit::Kind::ResultToText, {}});
        continue;
      }
      if (block.type != BlockType::ToolCall) continue;
      std::string id = block.id.empty() ? "call_llmux_" + std::to_string(++made_up_) : block.id;
      auto repeats = std::count_if(calls.begin(), calls.end(),
                                   [&](Call const& c) { return c.original == block.id; });
      if (!block.id.empty() && repeats > 0) id += "_" + std::to_string(repeats + 1);
      id = shortenedId(id, max_);
      if (id != block.id) edits.push_back({m, b, Edit::Kind::SetId, id});
      calls.push_back(Call{block.id, std::move(id), block.name});
    }
  }

  /// The results of a non-assistant message after an assistant run.
  void answers(std::size_t m, std::vector<Call>& calls) {
    auto const& blocks = messages_[m].blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      Block const& block = blocks[b];
      if (block.type == BlockType::ToolCall) {
        edits.push_back({m, b, Edit::Kind::CallToText, {}});
        continue;
      }
      if (block.type != BlockType::ToolResult) continue;
      Call* match = nullptr;
      if (messages_[m].role == Role::User) {
        for (Call& c : calls) {
          if (c.answered) continue;
          bool same = block.id.empty() ? c.name == block.name : c.original == block.id;
          if (same) {
            match = &c;
            break;
          }
        }
      }
      if (match == nullptr) {
        edits.push_back({m, b, Edit::Kind::ResultToText, {}});
        continue;
      }
      match->answered = true;
      if (match->id != block.id) edits.push_back({m, b, Edit::Kind::SetId, match->id});
    }
  }

  /// A non-assistant message with no assistant run before it.
  void loose(std::size_t m) {
    auto const& blocks = messages_[m].blocks;
    for (std::size_t b = 0; b < blocks.size(); ++b) {
      if (blocks[b].type == BlockType::ToolResult) {
        edits.push_back({m, b, Edit::Kind::ResultToText, {}});
      } else if (blocks[b].type == BlockType::ToolCall) {
        edits.push_back({m, b, Edit::Kind::CallToText, {}});
      }
    }
  }

  void missing(std::vector<Call> const& calls, std::size_t at, bool new_message) {
    Insert insert{at, new_message, {}};
    for (Call const& c : calls) {
      if (c.answered) continue;
      Block result{.type = BlockType::ToolResult, .id = c.id, .name = c.name, .is_error = true};
      result.content.push_back(Block{.type = BlockType::Text, .text = std::string(kMissingResult)});
      insert.results.push_back(std::move(result));
    }
    if (!insert.results.empty()) inserts.push_back(std::move(insert));
  }

  std::vector<Message> const& messages_;
  std::size_t max_;
  int made_up_ = 0;
};

/// The blocks that replace a result answering nothing: its words as text, then its media.
std::vector<Block> resultAsText(Block const& result, bool keep_media) {
  std::string label = result.name.empty() ? result.id : result.name;
  std::vector<Block> out;
  out.push_back(Block{.type = BlockType::Text,
                      .text = "Result of tool " + label + ":\n" + resultText(result)});
  if (keep_media) {
    for (Block const& piece : result.content) {
      if (piece.type == BlockType::Image || piece.type == BlockType::Document) {
        out.push_back(piece);
      }
    }
  }
  return out;
}

}  // namespace

std::optional<Request> pairToolCalls(Request const& request, std::size_t max_id_length,
                                     std::vector<std::string>& dropped) {
  Planner plan(request, max_id_length);
  plan.run();
  if (plan.edits.empty() && plan.inserts.empty()) return std::nullopt;

  Request out = request;
  auto& messages = out.messages;
  // Ids first (they do not move blocks), then the replacements from the back so that the indexes
  // still to come stay valid, then the insertions from the back for the same reason.
  for (Edit const& e : plan.edits) {
    if (e.kind != Edit::Kind::SetId) continue;
    messages[e.message].blocks[e.block].id = e.id;
    note(dropped, "tool_call.id");
  }
  for (auto it = plan.edits.rbegin(); it != plan.edits.rend(); ++it) {
    if (it->kind == Edit::Kind::SetId) continue;
    auto& blocks = messages[it->message].blocks;
    Block const& block = blocks[it->block];
    std::vector<Block> replacement;
    if (it->kind == Edit::Kind::ResultToText) {
      replacement = resultAsText(block, messages[it->message].role == Role::User);
      note(dropped, "tool_result.unmatched");
    } else {
      std::string args = block.arguments.empty() ? "{}" : block.arguments;
      replacement.push_back(
          Block{.type = BlockType::Text, .text = "[call to " + block.name + ": " + args + "]"});
      note(dropped, "tool_call");
    }
    auto at = blocks.erase(blocks.begin() + static_cast<std::ptrdiff_t>(it->block));
    blocks.insert(at, std::make_move_iterator(replacement.begin()),
                  std::make_move_iterator(replacement.end()));
  }
  for (auto it = plan.inserts.rbegin(); it != plan.inserts.rend(); ++it) {
    note(dropped, "tool_result.missing");
    if (it->new_message) {
      messages.insert(messages.begin() + static_cast<std::ptrdiff_t>(it->message),
                      Message{.role = Role::User, .blocks = std::move(it->results)});
    } else {
      auto& blocks = messages[it->message].blocks;
      blocks.insert(blocks.begin(), std::make_move_iterator(it->results.begin()),
                    std::make_move_iterator(it->results.end()));
    }
  }
  return out;
}

}  // namespace llmux::translate

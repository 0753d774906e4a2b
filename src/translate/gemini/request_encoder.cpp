// The neutral request as a Gemini generateContent body (REFERENCE §4.2, §9.4). The model and the
// streaming switch go in the URL, not here. What Gemini has no field for is left out (see
// docs/translation.md): parallel_tool_calls, user, prompt_cache_key, tool `strict`, response
// format name/strict, Anthropic cache markers, image detail, other providers' signatures and
// redacted thinking, other providers' file ids.
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <vector>

#include "protocol/json_scan.h"
#include "translate/gemini/codec.h"
#include "translate/gemini/common.h"
#include "translate/gemini/parts.h"
#include "translate/gemini/schema.h"
#include "translate/reasoning.h"

namespace llmux::translate::gemini {

using namespace detail;

namespace {

/// Gemini accepts at most five stop sequences.
constexpr std::size_t kMaxStopSequences = 5;

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

void appendNumber(std::string& out, double value) {
  char buffer[32];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (ec != std::errc()) {
    out += '0';
    return;
  }
  out.append(buffer, end);
}

bool hasGeminiSignature(Block const& block) {
  return !block.signature.empty() && block.signature_origin == Protocol::Gemini;
}

void appendSignature(std::string& out, Block const& block) {
  if (!hasGeminiSignature(block)) return;
  out += ",\"thoughtSignature\":";
  appendJsonText(out, block.signature);
}

/// One Gemini content being built: its role and its parts as JSON texts.
struct Turn {
  bool model = false;
  std::vector<Block const*> blocks;
  std::vector<std::string> parts;
};

struct Call {
  std::string_view id;
  std::string_view name;
};

std::string resultText(Block const& result) {
  std::string text;
  for (Block const& piece : result.content) {
    if (piece.type != BlockType::Text) continue;
    if (!text.empty()) text += '\n';
    text += piece.text;
  }
  return text;
}

/// A functionResponse's `response`: Gemini wants an object, so anything else is wrapped as
/// {"result": …}; errors go under "error", as Gemini documents.
std::string responseObject(Block const& result) {
  std::string text = resultText(result);
  std::string out;
  if (result.is_error) {
    out = "{\"error\":";
    appendJsonText(out, text);
    out += '}';
    return out;
  }
  protocol::JsonScan scan = protocol::scanJson(text);
  if (scan.ok() && scan.root == protocol::JsonType::Object) return compactJson(text);
  out = "{\"result\":";
  appendJsonText(out, text);
  out += '}';
  return out;
}

std::string functionResponsePart(std::string_view id, std::string_view name,
                                 std::string const& response) {
  std::string part = "{\"functionResponse\":{\"name\":";
  appendJsonText(part, name);
  if (!id.empty()) {
    part += ",\"id\":";
    appendJsonText(part, id);
  }
  part += ",\"response\":";
  part += response;
  part += "}}";
  return part;
}

class Encoder {
 public:
  Encoder(Request const& request, std::string_view model, std::vector<std::string>& dropped)
      : request_(request), model_(model), dropped_(dropped) {}

  Result<std::string> run() {
    std::vector<Turn> turns = groupTurns();
    std::vector<Call> previous_calls;
    for (Turn& turn : turns) {
      std::vector<Call> calls;
      auto ok = turn.model ? modelParts(turn, calls) : userParts(turn, previous_calls);
      if (!ok) return ok.error();
      previous_calls = std::move(calls);
    }
    std::string out = "{\"contents\":[";
    bool first_turn = true;
    bool any = false;
    // Turns left without parts disappear; neighbours of the same role are merged.
    for (std::size_t i = 0; i < turns.size(); ++i) {
      if (turns[i].parts.empty()) continue;
      bool model = turns[i].model;
      std::vector<std::string> parts = std::move(turns[i].parts);
      while (i + 1 < turns.size() && (turns[i + 1].parts.empty() || turns[i + 1].model == model)) {
        ++i;
        for (auto& p : turns[i].parts) parts.push_back(std::move(p));
      }
      if (!first_turn) out += ',';
      first_turn = false;
      any = true;
      out += "{\"role\":";
      out += model ? "\"model\"" : "\"user\"";
      out += ",\"parts\":[";
      for (std::size_t p = 0; p < parts.size(); ++p) {
        if (p != 0) out += ',';
        out += parts[p];
      }
      out += "]}";
    }
    if (!any) return invalid("the conversation has no content that can be sent to Gemini");
    out += ']';
    appendSystem(out);
    if (auto ok = appendTools(out); !ok) return ok.error();
    appendGenerationConfig(out);
    out += '}';
    return out;
  }

 private:
  std::vector<Turn> groupTurns() {
    std::vector<Turn> turns;
    for (Message const& message : request_.messages) {
      // Gemini has no system turn inside a conversation: it is heard as the user's.
      bool model = message.role == Role::Assistant;
      if (turns.empty() || turns.back().model != model) turns.push_back(Turn{model, {}, {}});
      for (Block const& block : message.blocks) turns.back().blocks.push_back(&block);
      for (Block const& block : message.blocks) {
        if (block.type == BlockType::ToolCall) names_by_id_.emplace_back(block.id, block.name);
      }
    }
    return turns;
  }

  /// Text, thinking and media parts common to both roles; false when the block is not one.
  Result<bool> contentPart(Block const& block, std::vector<std::string>& parts) {
    std::string part;
    switch (block.type) {
      case BlockType::Text:
        if (block.text.empty() && !hasGeminiSignature(block)) return true;
        part = "{\"text\":";
        appendJsonText(part, block.text);
        appendSignature(part, block);
        part += '}';
        break;
      case BlockType::Thinking:
        // Only Gemini's own thoughts carry meaning back to Gemini; another provider's thinking
        // text is sent as a thought summary, its signature dropped.
        if (block.text.empty()) {
          if (!hasGeminiSignature(block)) return true;
          part = "{\"text\":\"\"";
        } else {
          part = "{\"text\":";
          appendJsonText(part, block.text);
          part += ",\"thought\":true";
        }
        appendSignature(part, block);
        part += '}';
        break;
      case BlockType::RedactedThinking:
        if (!hasGeminiSignature(block)) return true;
        part = "{\"text\":\"\"";
        appendSignature(part, block);
        part += '}';
        break;
      case BlockType::Image:
      case BlockType::Document:
        // Another provider's file id means nothing to Gemini: left out, like every field the
        // target lacks.
        if (block.data.empty() && block.url.empty() && block.file_origin != Protocol::Gemini) {
          drop("file_id");
          return true;
        }
        part = "{";
        if (!appendMediaMember(part, block)) {
          drop("file_id");
          return true;
        }
        appendSignature(part, block);
        part += '}';
        break;
      default:
        return false;
    }
    parts.push_back(std::move(part));
    return true;
  }

  Result<void> modelParts(Turn& turn, std::vector<Call>& calls) {
    bool first_call = true;
    for (Block const* block : turn.blocks) {
      auto handled = contentPart(*block, turn.parts);
      if (!handled) return handled.error();
      if (*handled) continue;
      if (block->type == BlockType::ToolCall) {
        if (block->name.empty()) return invalid("a tool call has no function name");
        std::string part = "{\"functionCall\":{\"name\":";
        appendJsonText(part, block->name);
        part += ",\"args\":";
        part += argumentsObjectText(block->arguments);
        if (!block->id.empty()) {
          part += ",\"id\":";
          appendJsonText(part, block->id);
        }
        part += '}';
        if (hasGeminiSignature(*block)) {
          appendSignature(part, *block);
        } else if (first_call && needsForeignCallSignature(model_)) {
          part += ",\"thoughtSignature\":";
          appendJsonText(part, kForeignCallSignature);
        }
        part += '}';
        first_call = false;
        calls.push_back(Call{block->id, block->name});
        turn.parts.push_back(std::move(part));
      } else if (block->type == BlockType::ToolResult) {
        turn.parts.push_back(orphanResultPart(*block));
      }
    }
    return {};
  }

  /// A user turn: the answers to the previous model turn's calls first, one per call and in call
  /// order (Gemini checks that the counts match), then everything else.
  Result<void> userParts(Turn& turn, std::vector<Call> const& calls) {
    std::vector<Block const*> results;
    for (Block const* block : turn.blocks) {
      if (block->type == BlockType::ToolResult) results.push_back(block);
    }
    std::vector<bool> used(results.size(), false);
    std::vector<std::string> media;
    if (!results.empty() || !calls.empty()) {
      for (Call const& call : calls) {
        Block const* answer = nullptr;
        for (std::size_t r = 0; r < results.size(); ++r) {
          if (!used[r] && results[r]->id == call.id) {
            used[r] = true;
            answer = results[r];
            break;
          }
        }
        if (answer == nullptr) {
          turn.parts.push_back(functionResponsePart(
              call.id, call.name, "{\"error\":\"the client sent no result for this call\"}"));
          continue;
        }
        turn.parts.push_back(functionResponsePart(call.id, call.name, responseObject(*answer)));
        for (Block const& piece : answer->content) {
          if (piece.type != BlockType::Image && piece.type != BlockType::Document) continue;
          std::string part = "{";
          bool foreign_file =
              piece.data.empty() && piece.url.empty() && piece.file_origin != Protocol::Gemini;
          if (!foreign_file && appendMediaMember(part, piece)) {
            media.push_back(part + "}");
          } else {
            drop("file_id");
          }
        }
      }
    }
    for (std::size_t r = 0; r < results.size(); ++r) {
      if (!used[r]) turn.parts.push_back(orphanResultPart(*results[r]));
    }
    for (auto& m : media) turn.parts.push_back(std::move(m));
    for (Block const* block : turn.blocks) {
      if (block->type == BlockType::ToolResult) continue;
      auto handled = contentPart(*block, turn.parts);
      if (!handled) return handled.error();
      if (!*handled && block->type == BlockType::ToolCall) {
        // A call inside a user turn cannot be expressed: say what it was.
        std::string part = "{\"text\":";
        appendJsonText(part, "[call to " + block->name + ": " + block->arguments + "]");
        part += '}';
        turn.parts.push_back(std::move(part));
      }
    }
    return {};
  }

  /// A result whose call is not in the previous model turn: Gemini would reject a functionResponse
  /// without its call, so the result is given as text.
  std::string orphanResultPart(Block const& result) {
    std::string_view name = result.name;
    if (name.empty()) {
      for (auto const& [id, n] : names_by_id_) {
        if (id == result.id) name = n;
      }
    }
    std::string text = "[result of " + std::string(name.empty() ? "a tool call" : name);
    if (result.is_error) text += " (error)";
    text += "]: ";
    text += resultText(result);
    std::string part = "{\"text\":";
    appendJsonText(part, text);
    part += '}';
    return part;
  }

  void appendSystem(std::string& out) {
    bool any = false;
    for (Block const& block : request_.system) {
      if (block.type != BlockType::Text || block.text.empty()) continue;
      out += any ? "," : ",\"systemInstruction\":{\"parts\":[";
      any = true;
      out += "{\"text\":";
      appendJsonText(out, block.text);
      out += '}';
    }
    if (any) out += "]}";
  }

  Result<void> appendTools(std::string& out) {
    if (request_.tools.empty()) return {};
    out += ",\"tools\":[{\"functionDeclarations\":[";
    for (std::size_t i = 0; i < request_.tools.size(); ++i) {
      ToolSpec const& tool = request_.tools[i];
      if (tool.name.empty()) return invalid("a tool has no name");
      if (i != 0) out += ',';
      out += "{\"name\":";
      appendJsonText(out, tool.name);
      if (!tool.description.empty()) {
        out += ",\"description\":";
        appendJsonText(out, tool.description);
      }
      if (auto schema = jsonSchemaForGemini(tool.parameters)) {
        out += ",\"parametersJsonSchema\":";
        out += boost::json::serialize(*schema);
      }
      out += '}';
    }
    out += "]}]";
    if (request_.tool_choice) {
      ToolChoice const& choice = *request_.tool_choice;
      out += ",\"toolConfig\":{\"functionCallingConfig\":{\"mode\":";
      switch (choice.mode) {
        case ToolChoiceMode::Auto: out += "\"AUTO\""; break;
        case ToolChoiceMode::None: out += "\"NONE\""; break;
        case ToolChoiceMode::Required: out += "\"ANY\""; break;
        case ToolChoiceMode::Named:
          out += "\"ANY\",\"allowedFunctionNames\":[";
          appendJsonText(out, choice.name);
          out += ']';
          break;
      }
      out += "}}";
    }
    return {};
  }

  void appendGenerationConfig(std::string& out) {
    std::string config;
    auto key = [&](std::string_view name) {
      config += config.empty() ? "{\"" : ",\"";
      config += name;
      config += "\":";
    };
    if (request_.temperature && std::isfinite(*request_.temperature)) {
      key("temperature");
      appendNumber(config, *request_.temperature);
    }
    if (request_.top_p && std::isfinite(*request_.top_p)) {
      key("topP");
      appendNumber(config, *request_.top_p);
    }
    if (request_.top_k) {
      key("topK");
      config += std::to_string(*request_.top_k);
    }
    if (request_.max_output_tokens) {
      key("maxOutputTokens");
      config += std::to_string(*request_.max_output_tokens);
    }
    if (!request_.stop.empty()) {
      key("stopSequences");
      config += '[';
      for (std::size_t i = 0; i < request_.stop.size() && i < kMaxStopSequences; ++i) {
        if (i != 0) config += ',';
        appendJsonText(config, request_.stop[i]);
      }
      config += ']';
    }
    if (request_.response_format) {
      ResponseFormat const& format = *request_.response_format;
      if (format.type != ResponseFormatType::Text) {
        key("responseMimeType");
        config += "\"application/json\"";
      }
      if (format.type == ResponseFormatType::JsonSchema) {
        if (auto schema = jsonSchemaForGemini(format.schema)) {
          key("responseJsonSchema");
          config += boost::json::serialize(*schema);
        }
      }
    }
    std::string thinking = thinkingConfig();
    if (!thinking.empty()) {
      key("thinkingConfig");
      config += thinking;
    }
    if (config.empty()) return;
    out += ",\"generationConfig\":";
    out += config;
    out += '}';
  }

  /// thinkingConfig per model family (REFERENCE §9.7): Gemini 3 takes thinkingLevel, earlier
  /// models thinkingBudget (never both: that is a 400). Off means budget 0, except where the model
  /// cannot turn thinking off (Pro: its minimum; Gemini 3: its lowest level).
  std::string thinkingConfig() {
    if (!request_.reasoning) return {};
    Reasoning const& reasoning = *request_.reasoning;
    bool level_model = usesThinkingLevel(model_);
    bool pro = isProModel(model_);
    bool enabled = reasoning.enabled && reasoning.effort != "none";
    std::string out = "{";
    if (!enabled) {
      if (level_model) {
        out += pro ? "\"thinkingLevel\":\"low\"" : "\"thinkingLevel\":\"minimal\"";
      } else {
        out += pro ? "\"thinkingBudget\":128" : "\"thinkingBudget\":0";
      }
      return out + "}";
    }
    if (level_model) {
      std::string effort = reasoning.effort;
      if (effort.empty() && reasoning.budget_tokens) effort = effortForBudget(*reasoning.budget_tokens);
      std::string_view level;
      if (effort == "minimal") {
        level = pro ? "low" : "minimal";
      } else if (effort == "low") {
        level = "low";
      } else if (effort == "medium") {
        level = pro ? "high" : "medium";
      } else if (effort == "high" || effort == "xhigh" || effort == "max") {
        level = "high";
      }
      if (!level.empty()) {
        out += "\"thinkingLevel\":\"";
        out += level;
        out += '"';
      }
    } else {
      std::int64_t budget = -1;  // dynamic: the model decides
      if (reasoning.budget_tokens) {
        budget = *reasoning.budget_tokens;
      } else if (!reasoning.effort.empty()) {
        budget = budgetForEffort(reasoning.effort);
      }
      if (budget > 0) {
        std::int64_t low = pro ? 128 : isFlashLiteModel(model_) ? 512 : 1;
        std::int64_t high = pro ? 32768 : 24576;
        bool known = pro || bareModelName(model_).find("flash") != std::string_view::npos;
        if (known) budget = std::min(std::max(budget, low), high);
      }
      out += "\"thinkingBudget\":";
      out += std::to_string(budget);
    }
    if (reasoning.include_thoughts) out += out.size() > 1 ? ",\"includeThoughts\":true" : "\"includeThoughts\":true";
    if (out.size() == 1) return {};
    return out + "}";
  }

  void drop(std::string_view name) {
    if (std::find(dropped_.begin(), dropped_.end(), name) == dropped_.end()) {
      dropped_.emplace_back(name);
    }
  }

  Request const& request_;
  std::string_view model_;
  std::vector<std::string>& dropped_;
  std::vector<std::pair<std::string_view, std::string_view>> names_by_id_;
};

}  // namespace

Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model) {
  std::vector<std::string> dropped;
  return encodeRequestReporting(request, upstream_model, dropped);
}

Result<std::string> encodeRequestReporting(Request const& request, std::string_view upstream_model,
                                           std::vector<std::string>& dropped) {
  Encoder encoder(request, upstream_model, dropped);
  return encoder.run();
}

}  // namespace llmux::translate::gemini

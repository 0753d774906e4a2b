// The neutral request as an OpenAI Responses API body (REFERENCE.md §2.2, §9.3, §9.5).
//
// Deliberately left out (docs/translation.md): stop sequences and top_k (no such parameters),
// cache markers, thinking signatures minted by other protocols, reasoning items without their
// encrypted_content, another provider's file ids, audio and video, a `user` longer than OpenAI's
// 64 characters. The history is stateless (REFERENCE §9.5): `store: false`, and encrypted
// reasoning is asked for whenever reasoning is.
#include <algorithm>
#include <optional>
#include <string>
#include <unordered_set>

#include "translate/media.h"
#include "translate/openai_responses/codec.h"
#include "translate/openai_responses/json_out.h"
#include "translate/openai_responses/wire.h"
#include "translate/reasoning.h"
#include "translate/tool_pairing.h"

namespace llmux::translate::openai_responses {
namespace {

/// OpenAI rejects a smaller max_output_tokens ("integer below minimum value").
constexpr std::int64_t kMinOutputTokens = 16;
/// OpenAI rejects a longer `user` (Claude Code's metadata.user_id is ~150 characters).
constexpr std::size_t kMaxUserLength = 64;
/// OpenAI rejects a longer `call_id` ("string_above_max_length").
constexpr std::size_t kMaxCallIdLength = 64;

void addDropped(std::vector<std::string>& dropped, std::string_view name) {
  if (std::find(dropped.begin(), dropped.end(), name) == dropped.end()) dropped.emplace_back(name);
}

bool isContent(Block const& b) {
  return b.type == BlockType::Text || b.type == BlockType::Image || b.type == BlockType::Document;
}

std::string_view extensionFor(std::string_view media_type) {
  if (media_type == "application/pdf") return ".pdf";
  if (media_type == "text/plain") return ".txt";
  if (media_type == "text/csv") return ".csv";
  if (media_type == "application/json") return ".json";
  return "";
}

/// Appends one input part for a content block (input_text / input_image / input_file), preceded
/// by a comma unless it is the first; false (and nothing appended, its name in `dropped`) when the
/// block has nothing OpenAI can take: another provider's file id, audio or video (the Responses
/// API takes neither).
bool appendInputPart(std::string& out, Block const& b, bool& first,
                     std::vector<std::string>& dropped) {
  if (b.type == BlockType::Image || b.type == BlockType::Document) {
    MediaKind kind = mediaKind(b);
    if (kind == MediaKind::Audio || kind == MediaKind::Video) {
      addDropped(dropped, kind == MediaKind::Audio ? "audio" : "video");
      return false;
    }
    if (b.data.empty() && b.url.empty() && !fileIdUsable(b, Protocol::OpenAiResponses)) {
      addDropped(dropped, "file_id");
      return false;
    }
  }
  std::size_t mark = out.size();
  if (!first) out.push_back(',');
  ObjectWriter w(out);
  bool ok = true;
  switch (b.type) {
    case BlockType::Text:
      w.str("type", "input_text").str("text", b.text);
      break;
    case BlockType::Image:
      w.str("type", "input_image");
      if (!b.data.empty()) {
        appendDataUrl(w.key("image_url"), b.media_type.empty() ? "image/png" : b.media_type,
                      b.data);
      } else if (!b.url.empty()) {
        w.str("image_url", b.url);
      } else {
        w.str("file_id", b.file_id);
      }
      w.str("detail", b.detail.empty() ? "auto" : b.detail);
      break;
    case BlockType::Document:
      w.str("type", "input_file");
      if (!b.data.empty()) {
        // Both arms as views: a std::string arm would make the result a temporary copy.
        std::string_view media =
            b.media_type.empty() ? std::string_view("application/pdf") : std::string_view(b.media_type);
        w.str("filename", "document" + std::string(extensionFor(media)));
        appendDataUrl(w.key("file_data"), media, b.data);
      } else if (!b.url.empty()) {
        w.str("file_url", b.url);
      } else {
        w.str("file_id", b.file_id);
      }
      break;
    default:
      ok = false;
  }
  if (!ok) {
    out.resize(mark);
    return false;
  }
  w.close();
  first = false;
  return true;
}

std::string joinedText(std::vector<Block> const& blocks) {
  std::string text;
  for (Block const& b : blocks) {
    if (b.type != BlockType::Text) continue;
    if (!text.empty()) text += "\n";
    text += b.text;
  }
  return text;
}

class InputWriter {
 public:
  InputWriter(std::string& out, std::vector<std::string>& dropped) : out_(out), dropped_(dropped) {}

  void message(Message const& m);
  /// Whether a reasoning item was written (its encrypted content must then be asked for again).
  bool sentReasoning() const { return sent_reasoning_; }

 private:
  void beginItem() {
    if (!first_) out_.push_back(',');
    first_ = false;
  }
  void userTurn(Message const& m);
  void systemTurn(Message const& m);
  void assistantTurn(Message const& m);
  /// A user message item from the content blocks [begin, end).
  void contentItem(std::string_view role, std::vector<Block> const& blocks, std::size_t begin,
                   std::size_t end);
  void toolResult(Block const& b);
  void toolCall(Block const& b, bool keep_id);
  void assistantText(std::vector<Block const*> const& run, bool keep_id);
  void reasoning(Block const& b);
  std::string callId(Block const& b);

  std::string& out_;
  std::vector<std::string>& dropped_;
  bool first_ = true;
  bool sent_reasoning_ = false;
  std::unordered_set<std::string> calls_;  ///< call ids sent so far (a result must follow its call)
  std::vector<std::pair<std::string, std::string>> unnamed_;  ///< (name, made-up id) to pair
  int made_up_ = 0;
};

void InputWriter::message(Message const& m) {
  switch (m.role) {
    case Role::System:
      systemTurn(m);
      break;
    case Role::User:
      userTurn(m);
      break;
    case Role::Assistant:
      assistantTurn(m);
      break;
  }
}

void InputWriter::systemTurn(Message const& m) {
  std::vector<Block> texts;
  for (Block const& b : m.blocks) {
    if (b.type == BlockType::Text && !b.text.empty()) texts.push_back(b);
  }
  if (!texts.empty()) contentItem("system", texts, 0, texts.size());
}

void InputWriter::contentItem(std::string_view role, std::vector<Block> const& blocks,
                              std::size_t begin, std::size_t end) {
  std::size_t mark = out_.size();
  bool was_first = first_;
  beginItem();
  out_ += "{\"type\":\"message\",\"role\":";
  appendString(out_, role);
  out_ += ",\"content\":[";
  bool none = true;
  for (std::size_t i = begin; i < end; ++i) appendInputPart(out_, blocks[i], none, dropped_);
  if (none) {  // nothing OpenAI can take
    out_.resize(mark);
    first_ = was_first;
    return;
  }
  out_ += "]}";
}

void InputWriter::userTurn(Message const& m) {
  std::size_t run = 0;  // start of the current run of content blocks
  for (std::size_t i = 0; i < m.blocks.size(); ++i) {
    Block const& b = m.blocks[i];
    if (isContent(b)) continue;
    contentItem("user", m.blocks, run, i);
    run = i + 1;
    if (b.type == BlockType::ToolResult) toolResult(b);
  }
  contentItem("user", m.blocks, run, m.blocks.size());
}

std::string InputWriter::callId(Block const& b) {
  if (!b.id.empty()) return b.id;
  // A call without an id (some Gemini histories): make one up, and pair the result by name.
  std::string id = "call_" + std::to_string(++made_up_);
  unnamed_.emplace_back(b.name, id);
  return id;
}

void InputWriter::toolResult(Block const& b) {
  std::string id = b.id;
  if (id.empty()) {
    for (auto it = unnamed_.begin(); it != unnamed_.end(); ++it) {
      if (it->first == b.name) {
        id = it->second;
        unnamed_.erase(it);
        break;
      }
    }
  }
  std::string text = joinedText(b.content);
  if (b.is_error) text = "Error: " + text;  // Responses has no error flag on a result
  if (id.empty() || !calls_.contains(id)) {
    // OpenAI rejects an output without its call ("No tool call found"): keep the words as text.
    std::vector<Block> note{
        Block{.type = BlockType::Text,
              .text = "Result of tool " + (b.name.empty() ? id : b.name) + ":\n" + text}};
    contentItem("user", note, 0, 1);
    return;
  }
  beginItem();
  ObjectWriter w(out_);
  w.str("type", "function_call_output").str("call_id", id);
  bool media = false;
  for (Block const& c : b.content)
    media = media || c.type == BlockType::Image || c.type == BlockType::Document;
  if (!media) {
    w.str("output", text);
  } else {
    std::string& o = w.key("output");
    o.push_back('[');
    bool first = true;
    if (b.is_error) {
      Block flag{.type = BlockType::Text, .text = "Error:"};
      appendInputPart(o, flag, first, dropped_);
    }
    for (Block const& c : b.content) appendInputPart(o, c, first, dropped_);
    o.push_back(']');
  }
  w.close();
}

void InputWriter::toolCall(Block const& b, bool keep_id) {
  std::string id = callId(b);
  calls_.insert(id);
  beginItem();
  ObjectWriter w(out_);
  w.str("type", "function_call").str("call_id", id).str("name", b.name);
  w.str("arguments", b.arguments.empty() ? std::string_view("{}") : std::string_view(b.arguments));
  if (keep_id && b.item_id.starts_with("fc")) w.str("id", b.item_id);
  w.close();
}

void InputWriter::assistantText(std::vector<Block const*> const& run, bool keep_id) {
  if (run.empty()) return;
  beginItem();
  ObjectWriter w(out_);
  w.str("type", "message").str("role", "assistant");
  std::string const& item_id = run.front()->item_id;
  if (keep_id && item_id.starts_with("msg")) w.str("id", item_id).str("status", "completed");
  std::string& c = w.key("content");
  c.push_back('[');
  for (std::size_t i = 0; i < run.size(); ++i) {
    if (i > 0) c.push_back(',');
    c += "{\"type\":\"output_text\",\"text\":";
    appendString(c, run[i]->text);
    c += ",\"annotations\":[]}";
  }
  c.push_back(']');
  w.close();
}

void InputWriter::reasoning(Block const& b) {
  beginItem();
  sent_reasoning_ = true;
  ObjectWriter w(out_);
  w.str("type", "reasoning");
  // Stateless history (store: false) needs only the encrypted content; the id goes with it when
  // known (a Responses upstream's reasoning shown to an Anthropic client comes back without one).
  if (!b.item_id.empty()) w.str("id", b.item_id);
  std::string& s = w.key("summary");
  s.push_back('[');
  if (!b.text.empty()) {
    s += "{\"type\":\"summary_text\",\"text\":";
    appendString(s, b.text);
    s += '}';
  }
  s.push_back(']');
  w.str("encrypted_content", b.signature);
  w.close();
}

/// Reasoning goes back only to the protocol that minted it, and only with its encrypted_content
/// (an id alone refers to state OpenAI may not hold).
bool sendableReasoning(Block const& b) {
  return (b.type == BlockType::Thinking || b.type == BlockType::RedactedThinking) &&
         b.signature_origin == Protocol::OpenAiResponses && !b.signature.empty();
}

void InputWriter::assistantTurn(Message const& m) {
  // OpenAI pairs a reasoning item with the items that followed it by their ids; without reasoning
  // known by its id in the turn, ids are left out so that every item reads as client-provided.
  bool keep_ids = false;
  for (Block const& b : m.blocks) {
    keep_ids = keep_ids || (sendableReasoning(b) && !b.item_id.empty());
  }

  std::vector<Block const*> run;
  for (Block const& b : m.blocks) {
    if (b.type == BlockType::Text) {
      if (b.text.empty()) continue;
      if (!run.empty() && run.front()->item_id != b.item_id) {
        assistantText(run, keep_ids);
        run.clear();
      }
      run.push_back(&b);
      continue;
    }
    assistantText(run, keep_ids);
    run.clear();
    if (b.type == BlockType::ToolCall) {
      toolCall(b, keep_ids);
    } else if (sendableReasoning(b)) {
      reasoning(b);
    } else if (b.type == BlockType::ToolResult) {
      toolResult(b);  // misplaced, but still an answer
    }
    // Other thinking and assistant images have no Responses input form.
  }
  assistantText(run, keep_ids);
}

std::string_view responsesEffort(std::string_view effort) {
  // Responses efforts: none, minimal, low, medium, high, xhigh.
  if (effort == "max") return "xhigh";
  return effort;
}

/// Writes `reasoning` when there is something to say; whether it did.
bool writeReasoning(ObjectWriter& w, Reasoning const& r) {
  if (!r.enabled) return false;  // off: omit (never "none", which older models reject)
  std::string effort = r.effort;
  if (effort.empty() && r.budget_tokens) {
    if (*r.budget_tokens == 0) return false;  // a zero budget means off
    if (*r.budget_tokens > 0) effort = effortForBudget(*r.budget_tokens);
    // a negative budget (Gemini's -1) is "dynamic": no effort
  }
  if (effort.empty() && !r.include_thoughts) return false;  // nothing to say: omit, never {}
  std::string& o = w.key("reasoning");
  ObjectWriter rw(o);
  if (!effort.empty()) rw.str("effort", responsesEffort(effort));
  if (r.include_thoughts) rw.str("summary", "auto");
  rw.close();
  return true;
}

/// A format name OpenAI accepts (^[a-zA-Z0-9_-]{1,64}$).
std::string formatName(std::string_view name) {
  std::string out;
  for (char c : name) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    out.push_back(ok ? c : '_');
    if (out.size() == 64) break;
  }
  return out.empty() ? "response" : out;
}

void writeTextFormat(ObjectWriter& w, ResponseFormat const& f) {
  if (f.type == ResponseFormatType::Text) return;  // the default
  std::string& o = w.key("text");
  o += "{\"format\":";
  ObjectWriter fw(o);
  if (f.type == ResponseFormatType::JsonSchema && !f.schema.empty()) {
    fw.str("type", "json_schema").str("name", formatName(f.name)).raw("schema", f.schema);
    fw.boolean("strict", f.strict);
  } else {
    fw.str("type", "json_object");
  }
  fw.close();
  o.push_back('}');
}

void writeTools(ObjectWriter& w, Request const& request) {
  if (request.tools.empty()) return;
  std::string& o = w.key("tools");
  o.push_back('[');
  for (std::size_t i = 0; i < request.tools.size(); ++i) {
    ToolSpec const& t = request.tools[i];
    if (i > 0) o.push_back(',');
    ObjectWriter tw(o);
    tw.str("type", "function").str("name", t.name);
    if (!t.description.empty()) tw.str("description", t.description);
    tw.raw("parameters", t.parameters.empty()
                             ? std::string_view("{\"type\":\"object\",\"properties\":{}}")
                             : std::string_view(t.parameters));
    tw.boolean("strict", t.strict);
    tw.close();
  }
  o.push_back(']');
  if (request.tool_choice) {
    switch (request.tool_choice->mode) {
      case ToolChoiceMode::Auto:
        w.str("tool_choice", "auto");
        break;
      case ToolChoiceMode::None:
        w.str("tool_choice", "none");
        break;
      case ToolChoiceMode::Required:
        w.str("tool_choice", "required");
        break;
      case ToolChoiceMode::Named: {
        std::string& c = w.key("tool_choice");
        c += "{\"type\":\"function\",\"name\":";
        appendString(c, request.tool_choice->name);
        c.push_back('}');
        break;
      }
    }
  }
}

}  // namespace

Result<std::string> encodeRequest(Request const& request, std::string_view upstream_model) {
  std::vector<std::string> dropped;
  return encodeRequestReporting(request, upstream_model, dropped);
}

Result<std::string> encodeRequestReporting(Request const& original, std::string_view upstream_model,
                                           std::vector<std::string>& dropped) {
  // OpenAI refuses a call without its output and an output without its call.
  std::optional<Request> paired = pairToolCalls(original, kMaxCallIdLength, dropped);
  Request const& request = paired ? *paired : original;
  std::string out;
  std::size_t estimate = 256;
  for (Message const& m : request.messages) {
    for (Block const& b : m.blocks)
      estimate += b.text.size() + b.data.size() + b.arguments.size() + 64;
  }
  for (ToolSpec const& t : request.tools)
    estimate += t.parameters.size() + t.description.size() + 64;
  out.reserve(estimate + estimate / 8);

  ObjectWriter w(out);
  w.str("model", upstream_model.empty() ? std::string_view(request.model) : upstream_model);

  std::string instructions;
  for (Block const& b : request.system) {
    if (b.type != BlockType::Text || b.text.empty()) continue;
    if (!instructions.empty()) instructions += "\n\n";
    instructions += b.text;
  }
  if (!instructions.empty()) w.str("instructions", instructions);

  std::string& input = w.key("input");
  input.push_back('[');
  InputWriter items(input, dropped);
  for (Message const& m : request.messages) items.message(m);
  input.push_back(']');

  writeTools(w, request);
  if (request.parallel_tool_calls && !request.tools.empty()) {
    w.boolean("parallel_tool_calls", *request.parallel_tool_calls);
  }
  if (request.max_output_tokens) {
    w.integer("max_output_tokens", std::max(*request.max_output_tokens, kMinOutputTokens));
  }
  if (request.temperature) w.number("temperature", *request.temperature);
  if (request.top_p) w.number("top_p", *request.top_p);
  if (request.response_format) writeTextFormat(w, *request.response_format);
  bool reasoning = request.reasoning && writeReasoning(w, *request.reasoning);
  if (request.user.size() > kMaxUserLength) {
    addDropped(dropped, "user");
  } else if (!request.user.empty()) {
    w.str("user", request.user);
  }
  if (!request.prompt_cache_key.empty()) w.str("prompt_cache_key", request.prompt_cache_key);
  if (request.stream) w.boolean("stream", true);
  // A translated history is stateless (REFERENCE §9.5): nothing is stored upstream, and the
  // encrypted reasoning comes back so that a later turn can return it. Asked for only with
  // reasoning: models without it answer 400 "Encrypted content is not supported with this model".
  w.boolean("store", false);
  if (reasoning || items.sentReasoning()) {
    w.raw("include", "[\"reasoning.encrypted_content\"]");
  }
  w.close();
  return out;
}

}  // namespace llmux::translate::openai_responses

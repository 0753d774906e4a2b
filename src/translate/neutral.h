#pragma once

// The neutral model every cross-protocol translation goes through: decoders turn a protocol's
// request, response or stream into it, encoders turn it into another protocol's. 4 decoders + 4
// encoders per direction instead of 12 pairwise translators. Shaped after Anthropic Messages
// (alternating user/assistant turns of typed blocks, tool results inside user turns, the system
// prompt apart), with room for what the others carry (reasoning signatures, encrypted reasoning,
// Gemini thought signatures). See docs/translation.md for the mapping tables.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/token_usage.h"
#include "core/wire_protocol.h"

namespace llmux::translate {

/// What a content block is.
enum class BlockType {
  Text,              ///< `text`
  Image,             ///< `media_type` + base64 `data`, or `url`, or `file_id`
  Document,          ///< a file such as a PDF: like Image
  ToolCall,          ///< the model calls a tool: `id`, `name`, `arguments` (JSON object text)
  ToolResult,        ///< a tool's answer: `id` of the call, `name` of the tool, `content`, `is_error`
  Thinking,          ///< reasoning text (`text`), maybe with an opaque `signature`
  RedactedThinking,  ///< opaque reasoning only (`signature` holds the payload)
};

/// One piece of content. Only the fields of its type are meaningful.
struct Block {
  BlockType type = BlockType::Text;
  std::string text;  ///< Text, Thinking

  // Image, Document
  std::string media_type;  ///< "image/png", "application/pdf"
  std::string data;        ///< base64 payload, without a data: prefix
  std::string url;         ///< an http(s) URL instead of data
  std::string file_id;     ///< a provider-side file id instead of data
  /// Who issued `file_id`: a file id only means something to its provider's Files API (OpenAI
  /// Chat and Responses share one), so encoders of other providers drop it (translate/media.h).
  std::optional<Protocol> file_origin;
  std::string detail;      ///< OpenAI image detail ("low", "high", "auto")

  // ToolCall, ToolResult
  std::string id;         ///< the call's id; for a result, the id of the call it answers
  std::string name;       ///< the tool's name (Gemini pairs results with calls by name)
  std::string arguments;  ///< ToolCall: the arguments as JSON object text ("{}" when none)
  std::vector<Block> content;  ///< ToolResult: its content (Text and Image blocks)
  bool is_error = false;       ///< ToolResult: the tool failed

  /// Opaque material a provider needs back unchanged on a later turn: Anthropic's thinking
  /// signature or redacted-thinking data, Gemini's thoughtSignature (on any part), the Responses
  /// API's encrypted_content. Only meaningful to the protocol that minted it (`signature_origin`);
  /// encoders of other protocols drop it (and a Thinking block whose text is empty with it).
  std::string signature;
  /// Who minted `signature`; on an unsigned Thinking block of an answer, the protocol it came
  /// from (an Anthropic client still gets a tagged signature for it, translate/signature_tag.h).
  std::optional<Protocol> signature_origin;
  std::string item_id;  ///< Responses output item id (rs_…, fc_…, msg_…) when known

  bool cache_marker = false;  ///< Anthropic cache_control on this block (Anthropic only)
};

/// Who speaks a turn. System turns appear only where a protocol allows them mid-conversation;
/// the leading system prompt is `Request::system`.
enum class Role { System, User, Assistant };

struct Message {
  Role role = Role::User;
  std::vector<Block> blocks;
};

/// A function tool the model may call.
struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters;  ///< JSON Schema of the arguments, as JSON text ("" when none)
  bool strict = false;
};

enum class ToolChoiceMode { Auto, None, Required, Named };

struct ToolChoice {
  ToolChoiceMode mode = ToolChoiceMode::Auto;
  std::string name;  ///< Named: the tool that must be called
};

enum class ResponseFormatType { Text, JsonObject, JsonSchema };

struct ResponseFormat {
  ResponseFormatType type = ResponseFormatType::Text;
  std::string name;    ///< JsonSchema: the schema's name
  std::string schema;  ///< JsonSchema: the schema as JSON text
  bool strict = false;
};

/// What the client asked of reasoning. Effort and budget are kept as given; encoders convert with
/// the table in translate/reasoning.h.
struct Reasoning {
  bool enabled = true;             ///< false: explicitly off
  std::string effort;              ///< "minimal", "low", "medium", "high", "xhigh", "max" or ""
  std::optional<std::int64_t> budget_tokens;
  bool include_thoughts = false;   ///< the client wants reasoning text back (summaries, thoughts)
};

/// A generation request in no protocol.
struct Request {
  std::string model;
  bool stream = false;
  bool include_usage = false;  ///< stream usage asked for (Chat stream_options.include_usage)
  std::vector<Block> system;   ///< system / developer / instructions / systemInstruction
  std::vector<Message> messages;
  std::vector<ToolSpec> tools;
  std::optional<ToolChoice> tool_choice;
  std::optional<bool> parallel_tool_calls;
  std::optional<std::int64_t> max_output_tokens;
  std::optional<double> temperature;
  std::optional<double> top_p;
  std::optional<std::int64_t> top_k;
  std::vector<std::string> stop;
  std::optional<ResponseFormat> response_format;
  std::optional<Reasoning> reasoning;  ///< nullopt: the client said nothing about reasoning
  std::string user;                    ///< end-user id: OpenAI `user`, Anthropic metadata.user_id
  std::string prompt_cache_key;        ///< OpenAI prompt_cache_key
  /// Fields the decoder met that the neutral model does not carry (names, for logs and tests).
  std::vector<std::string> dropped;
};

/// Why generation stopped (REFERENCE.md §7).
enum class StopReason {
  EndTurn,        ///< natural end
  StopSequence,   ///< a stop sequence matched (`Response::stop_sequence`)
  MaxTokens,      ///< the output limit
  ToolUse,        ///< the model called tools
  ContentFilter,  ///< refusal / safety
  PauseTurn,      ///< Anthropic server-tool pause
  ContextWindow,  ///< the context window filled up
  Other,
};

/// Token usage in the canonical record (core/token_usage.h): input includes cache reads and
/// writes, output includes reasoning, total = input + output.
using Usage = TokenUsage;

/// A complete (non-streamed) answer.
struct Response {
  std::string id;
  std::string model;
  std::vector<Block> content;
  StopReason stop = StopReason::EndTurn;
  std::string stop_sequence;
  std::optional<Usage> usage;
};

/// What happens in a stream, in order: MessageStart; then for each block BlockStart, its deltas,
/// BlockStop (blocks do not interleave; `index` counts blocks from 0); Usage snapshots at any
/// point (cumulative: the last one wins); MessageStop; or an Error instead of what is left.
enum class EventType {
  MessageStart,    ///< `id`, `model`
  BlockStart,      ///< `index`, `block` (its type; a tool call's id and name; redacted data)
  TextDelta,       ///< `index`, `text`
  ThinkingDelta,   ///< `index`, `text`
  SignatureDelta,  ///< `index`, `text` = the (whole or partial) signature
  ArgumentsDelta,  ///< `index`, `text` = a fragment of the tool call's arguments JSON
  BlockStop,       ///< `index`
  UsageUpdate,     ///< `usage`
  MessageStop,     ///< `stop`, `stop_sequence`
  Error,           ///< `error_status`, `text` = message: the stream failed
};

struct Event {
  EventType type = EventType::TextDelta;
  int index = 0;
  Block block;  ///< BlockStart
  std::string text;
  std::string id, model;  ///< MessageStart
  Usage usage;            ///< UsageUpdate
  StopReason stop = StopReason::EndTurn;
  std::string stop_sequence;
  int error_status = 0;
};

}  // namespace llmux::translate

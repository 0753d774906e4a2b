#include "validators/gemini_validator.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <set>

namespace llmux::translate::validators::gemini {
namespace {

namespace json = boost::json;

using Problems = std::vector<std::string>;

constexpr std::string_view kFinishReasons[] = {
    "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "LANGUAGE",
    "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL",
    "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL", "TOO_MANY_TOOL_CALLS", "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION", "IMAGE_OTHER", "NO_IMAGE", "MALFORMED_RESPONSE",
    "MISSING_THOUGHT_SIGNATURE"};

template <std::size_t N>
bool oneOf(std::string_view const (&values)[N], std::string_view v) {
  return std::find(std::begin(values), std::end(values), v) != std::end(values);
}

bool isInt(json::value const* v) { return v && (v->is_int64() || v->is_uint64()); }
bool isNumber(json::value const* v) { return v && (isInt(v) || v->is_double()); }

std::int64_t intOf(json::value const* v) {
  if (v == nullptr) return 0;
  if (v->is_int64()) return v->get_int64();
  if (v->is_uint64()) return static_cast<std::int64_t>(v->get_uint64());
  return 0;
}

double numberOf(json::value const* v) {
  if (v == nullptr) return 0;
  if (v->is_double()) return v->get_double();
  return static_cast<double>(intOf(v));
}

std::string_view strOf(json::value const* v) {
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

bool isBase64(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '/' || c == '=' || c == '-' || c == '_';
  });
}

/// Gemini's function-name rule: a letter or underscore, then letters, digits, _ . : -, ≤ 64.
bool isFunctionName(std::string_view s) {
  if (s.empty() || s.size() > 64) return false;
  char first = s.front();
  if (!((first >= 'A' && first <= 'Z') || (first >= 'a' && first <= 'z') || first == '_')) {
    return false;
  }
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == ':' || c == '-';
  });
}

// ---------------------------------------------------------------------------------------------
// Parts

enum class PartContext { Response, UserTurn, ModelTurn, System };

constexpr std::string_view kDataKinds[] = {"text",         "inlineData",    "fileData",
                                           "functionCall", "functionResponse", "executableCode",
                                           "codeExecutionResult"};
constexpr std::string_view kPartExtras[] = {"thought", "thoughtSignature", "videoMetadata",
                                            "partMetadata", "mediaResolution"};

void checkPart(json::value const& value, std::string const& where, PartContext context,
               Problems& problems) {
  if (!value.is_object()) {
    problems.push_back(where + ": a part must be an object");
    return;
  }
  json::object const& part = value.get_object();
  int kinds = 0;
  for (auto const& entry : part) {
    std::string_view key = entry.key();
    if (oneOf(kDataKinds, key)) {
      ++kinds;
    } else if (!oneOf(kPartExtras, key)) {
      problems.push_back(where + ": unknown part member \"" + std::string(key) + "\"");
    }
  }
  if (kinds != 1) {
    problems.push_back(where + ": a part must hold exactly one of text, inlineData, fileData, "
                               "functionCall, functionResponse, … (found " +
                       std::to_string(kinds) + ")");
  }
  if (auto const* thought = part.if_contains("thought"); thought && !thought->is_bool()) {
    problems.push_back(where + ": thought must be a boolean");
  }
  if (auto const* signature = part.if_contains("thoughtSignature")) {
    if (!isBase64(strOf(signature))) {
      problems.push_back(where + ": thoughtSignature must be a non-empty base64 string");
    }
  }
  if (auto const* text = part.if_contains("text"); text && !text->is_string()) {
    problems.push_back(where + ": text must be a string");
  }
  if (auto const* media = part.if_contains("inlineData")) {
    json::object const* o = media->if_object();
    if (!o || strOf(o->if_contains("mimeType")).empty() || !isBase64(strOf(o->if_contains("data")))) {
      problems.push_back(where + ": inlineData needs a mimeType and base64 data");
    }
  }
  if (auto const* file = part.if_contains("fileData")) {
    json::object const* o = file->if_object();
    if (!o || strOf(o->if_contains("fileUri")).empty() ||
        strOf(o->if_contains("mimeType")).empty()) {
      problems.push_back(where + ": fileData needs a mimeType and a fileUri");
    }
  }
  if (auto const* call = part.if_contains("functionCall")) {
    json::object const* o = call->if_object();
    if (!o) {
      problems.push_back(where + ": functionCall must be an object");
    } else {
      if (!isFunctionName(strOf(o->if_contains("name")))) {
        problems.push_back(where + ": functionCall.name \"" + std::string(strOf(o->if_contains("name"))) +
                           "\" is not a valid Gemini function name");
      }
      if (auto const* args = o->if_contains("args"); args && !args->is_object()) {
        problems.push_back(where + ": functionCall.args must be a complete JSON object");
      }
      if (auto const* id = o->if_contains("id"); id && strOf(id).empty()) {
        problems.push_back(where + ": functionCall.id must be a non-empty string");
      }
      for (auto const& entry : *o) {
        std::string_view key = entry.key();
        if (key != "name" && key != "args" && key != "id") {
          problems.push_back(where + ": unexpected functionCall member \"" + std::string(key) + "\"");
        }
      }
    }
    if (context == PartContext::UserTurn || context == PartContext::System) {
      problems.push_back(where + ": a functionCall belongs in a model turn");
    }
  }
  if (auto const* response = part.if_contains("functionResponse")) {
    json::object const* o = response->if_object();
    if (!o) {
      problems.push_back(where + ": functionResponse must be an object");
    } else {
      if (strOf(o->if_contains("name")).empty()) {
        problems.push_back(where + ": functionResponse.name is required");
      }
      auto const* r = o->if_contains("response");
      if (!r || !r->is_object()) {
        problems.push_back(where + ": functionResponse.response must be a JSON object");
      }
    }
    if (context != PartContext::UserTurn) {
      problems.push_back(where + ": a functionResponse belongs in a user turn");
    }
  }
  if (context == PartContext::System && !part.contains("text")) {
    problems.push_back(where + ": systemInstruction parts must be text");
  }
}

// ---------------------------------------------------------------------------------------------
// Responses and stream chunks

constexpr std::string_view kChunkMembers[] = {"candidates", "usageMetadata", "modelVersion",
                                              "responseId", "promptFeedback", "createTime"};
constexpr std::string_view kCandidateMembers[] = {
    "content",     "finishReason",      "index",        "safetyRatings",   "citationMetadata",
    "groundingMetadata", "finishMessage", "avgLogprobs", "logprobsResult", "tokenCount",
    "urlContextMetadata"};
constexpr std::string_view kUsageCounts[] = {
    "promptTokenCount", "cachedContentTokenCount", "candidatesTokenCount",
    "toolUsePromptTokenCount", "thoughtsTokenCount", "totalTokenCount"};
constexpr std::string_view kUsageDetails[] = {"promptTokensDetails", "cacheTokensDetails",
                                              "candidatesTokensDetails",
                                              "toolUsePromptTokensDetails", "trafficType",
                                              "serviceTier"};

void checkUsage(json::value const& value, std::string const& where, Problems& problems) {
  json::object const* usage = value.if_object();
  if (!usage) {
    problems.push_back(where + ": usageMetadata must be an object");
    return;
  }
  for (auto const& entry : *usage) {
    std::string_view key = entry.key();
    if (oneOf(kUsageCounts, key)) {
      if (!isInt(&entry.value()) || intOf(&entry.value()) < 0) {
        problems.push_back(where + ": usageMetadata." + std::string(key) +
                           " must be a non-negative integer");
      }
    } else if (!oneOf(kUsageDetails, key)) {
      problems.push_back(where + ": unknown usageMetadata member \"" + std::string(key) + "\"");
    }
  }
  std::int64_t prompt = intOf(usage->if_contains("promptTokenCount"));
  std::int64_t sum = prompt + intOf(usage->if_contains("candidatesTokenCount")) +
                     intOf(usage->if_contains("thoughtsTokenCount")) +
                     intOf(usage->if_contains("toolUsePromptTokenCount"));
  if (auto const* total = usage->if_contains("totalTokenCount"); total && intOf(total) != sum) {
    problems.push_back(where + ": usageMetadata.totalTokenCount " + std::to_string(intOf(total)) +
                       " is not prompt + candidates + thoughts + toolUsePrompt = " +
                       std::to_string(sum));
  }
  if (intOf(usage->if_contains("cachedContentTokenCount")) > prompt) {
    problems.push_back(where + ": cachedContentTokenCount exceeds promptTokenCount (cached tokens "
                               "are part of the prompt)");
  }
}

void checkErrorBody(json::object const& body, std::string const& where, Problems& problems) {
  json::object const* error = body.at("error").if_object();
  if (!error) {
    problems.push_back(where + ": error must be an object");
    return;
  }
  std::int64_t code = intOf(error->if_contains("code"));
  if (!isInt(error->if_contains("code")) || code < 400 || code > 599) {
    problems.push_back(where + ": error.code must be an HTTP error status");
  }
  if (!error->contains("message") || !error->at("message").is_string()) {
    problems.push_back(where + ": error.message must be a string");
  }
  if (strOf(error->if_contains("status")).empty()) {
    problems.push_back(where + ": error.status must name a google.rpc code");
  }
}

/// Checks one GenerateContentResponse (a whole answer or a stream chunk); returns its
/// finishReason ("" when none).
std::string checkAnswer(json::object const& chunk, std::string const& where, bool final,
                        bool stream, Problems& problems) {
  for (auto const& entry : chunk) {
    if (!oneOf(kChunkMembers, entry.key())) {
      problems.push_back(where + ": unknown member \"" + std::string(entry.key()) + "\"");
    }
  }
  for (std::string_view key : {"responseId", "modelVersion"}) {
    if (!chunk.contains(key) || !chunk.at(key).is_string()) {
      problems.push_back(where + ": " + std::string(key) + " must be a string");
    }
  }
  if (auto const* usage = chunk.if_contains("usageMetadata")) checkUsage(*usage, where, problems);
  if (final && chunk.contains("candidates")) {  // a blocked prompt may come with no counts
    json::object const* usage =
        chunk.contains("usageMetadata") ? chunk.at("usageMetadata").if_object() : nullptr;
    if (!usage || !usage->contains("promptTokenCount") || !usage->contains("totalTokenCount")) {
      problems.push_back(where + ": the final answer must carry usageMetadata with "
                                 "promptTokenCount and totalTokenCount");
    }
  }
  json::array const* candidates =
      chunk.contains("candidates") ? chunk.at("candidates").if_array() : nullptr;
  if (!candidates) {
    if (!chunk.contains("promptFeedback")) {
      problems.push_back(where + ": no candidates (and no promptFeedback saying why)");
    }
    return chunk.contains("promptFeedback") ? "BLOCKED" : "";
  }
  if (candidates->size() != 1) {
    problems.push_back(where + ": exactly one candidate expected");
    if (candidates->empty()) return "";
  }
  json::object const* candidate = (*candidates)[0].if_object();
  if (!candidate) {
    problems.push_back(where + ": a candidate must be an object");
    return "";
  }
  for (auto const& entry : *candidate) {
    if (!oneOf(kCandidateMembers, entry.key())) {
      problems.push_back(where + ": unknown candidate member \"" + std::string(entry.key()) + "\"");
    }
  }
  if (auto const* index = candidate->if_contains("index"); index && intOf(index) != 0) {
    problems.push_back(where + ": candidate index must be 0");
  }
  std::string finish(strOf(candidate->if_contains("finishReason")));
  if (candidate->contains("finishReason") && !oneOf(kFinishReasons, finish)) {
    problems.push_back(where + ": unknown finishReason \"" + finish + "\"");
  }
  json::object const* content =
      candidate->contains("content") ? candidate->at("content").if_object() : nullptr;
  if (!content) {
    problems.push_back(where + ": candidate.content must be an object");
    return finish;
  }
  if (auto const* role = content->if_contains("role"); role && strOf(role) != "model") {
    problems.push_back(where + ": content.role must be \"model\"");
  }
  json::array const* parts = content->contains("parts") ? content->at("parts").if_array() : nullptr;
  if (!parts) {
    if (content->contains("parts") || finish.empty() || finish == "STOP") {
      problems.push_back(where + ": content.parts must be an array (only a filtered answer may "
                                 "come without parts)");
    }
    return finish;
  }
  if (parts->empty()) problems.push_back(where + ": content.parts must not be empty");
  for (std::size_t i = 0; i < parts->size(); ++i) {
    std::string part_where = where + " part " + std::to_string(i);
    checkPart((*parts)[i], part_where, PartContext::Response, problems);
    json::object const* part = (*parts)[i].if_object();
    if (stream && !final && part && strOf(part->if_contains("text")).empty() &&
        part->contains("text") && !part->contains("thoughtSignature")) {
      problems.push_back(part_where + ": an empty text part carries nothing before the last chunk");
    }
  }
  return finish;
}

/// Every chunk of a stream body, parsed; framing problems go to `problems`.
std::vector<json::value> streamChunks(std::string_view bytes, Problems& problems) {
  std::vector<json::value> chunks;
  std::size_t first = bytes.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) {
    problems.push_back("framing: the stream is empty");
    return chunks;
  }
  if (bytes[first] == '[') {
    boost::system::error_code ec;
    json::value all = json::parse(bytes, ec);
    if (ec || !all.is_array()) {
      problems.push_back("framing: the JSON-array stream is not one well-formed JSON array");
      return chunks;
    }
    for (auto& element : all.get_array()) chunks.push_back(element);
    return chunks;
  }
  std::size_t pos = 0;
  std::size_t frame_no = 0;
  while (pos < bytes.size()) {
    std::string where = "frame " + std::to_string(frame_no++);
    std::size_t end = bytes.find("\r\n\r\n", pos);
    if (end == std::string_view::npos) {
      problems.push_back("framing: the stream does not end with \\r\\n\\r\\n (trailing '" +
                         std::string(bytes.substr(pos, 40)) + "')");
      break;
    }
    std::string_view frame = bytes.substr(pos, end - pos);
    pos = end + 4;
    if (!frame.starts_with("data: ")) {
      problems.push_back(where + ": a frame must be one `data: ` line (the SDK drops anything "
                                 "else, event: lines included)");
      continue;
    }
    std::string_view data = frame.substr(6);
    if (data.find_first_of("\r\n") != std::string_view::npos) {
      problems.push_back(where + ": the JSON must fit on one data: line");
      continue;
    }
    boost::system::error_code ec;
    json::value value = json::parse(data, ec);
    if (ec || !value.is_object()) {
      problems.push_back(where + ": data is not a JSON object");
      continue;
    }
    chunks.push_back(std::move(value));
  }
  return chunks;
}

}  // namespace

std::vector<std::string> validateStream(std::string_view bytes) {
  Problems problems;
  std::vector<json::value> chunks = streamChunks(bytes, problems);
  if (chunks.empty()) {
    if (problems.empty()) problems.push_back("the stream holds no chunk");
    return problems;
  }
  std::string response_id, model;
  bool finished = false;
  std::int64_t generated = 0;
  std::set<std::string> call_ids;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    std::string where = "chunk " + std::to_string(i);
    json::object const* chunk = chunks[i].if_object();
    if (!chunk) {
      problems.push_back(where + ": not a JSON object");
      continue;
    }
    bool last = i + 1 == chunks.size();
    if (chunk->contains("error")) {
      checkErrorBody(*chunk, where, problems);
      if (!last) problems.push_back(where + ": an error must end the stream");
      if (finished) problems.push_back(where + ": an error after the finishReason chunk");
      return problems;
    }
    if (finished) problems.push_back(where + ": a chunk after the finishReason chunk");
    std::string finish = checkAnswer(*chunk, where, last, true, problems);
    if (!finish.empty()) finished = true;
    if (!finish.empty() && !last) problems.push_back(where + ": finishReason before the last chunk");
    std::string id(strOf(chunk->if_contains("responseId")));
    std::string version(strOf(chunk->if_contains("modelVersion")));
    if (i == 0) {
      response_id = id;
      model = version;
    } else {
      if (id != response_id) problems.push_back(where + ": responseId changed mid-stream");
      if (version != model) problems.push_back(where + ": modelVersion changed mid-stream");
    }
    if (auto const* usage = chunk->if_contains("usageMetadata"); usage && usage->is_object()) {
      std::int64_t now = intOf(usage->get_object().if_contains("candidatesTokenCount")) +
                         intOf(usage->get_object().if_contains("thoughtsTokenCount"));
      if (now < generated) problems.push_back(where + ": generated token counts went down");
      generated = std::max(generated, now);
    }
    if (auto const* cands = chunk->if_contains("candidates"); cands && cands->is_array()) {
      for (auto const& c : cands->get_array()) {
        auto const* content = c.is_object() ? c.get_object().if_contains("content") : nullptr;
        auto const* parts = content && content->is_object()
                                ? content->get_object().if_contains("parts")
                                : nullptr;
        if (!parts || !parts->is_array()) continue;
        for (auto const& p : parts->get_array()) {
          auto const* call = p.is_object() ? p.get_object().if_contains("functionCall") : nullptr;
          if (!call || !call->is_object()) continue;
          std::string call_id(strOf(call->get_object().if_contains("id")));
          if (!call_id.empty() && !call_ids.insert(call_id).second) {
            problems.push_back(where + ": function call id \"" + call_id + "\" is used twice");
          }
        }
      }
    }
  }
  if (!finished) {
    problems.push_back("the stream ends without finishReason (the SDK sees a truncated answer as "
                       "a success)");
  }
  return problems;
}

std::vector<std::string> validateResponse(std::string_view body) {
  Problems problems;
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) {
    problems.push_back("the body is not a JSON object");
    return problems;
  }
  json::object const& root = value.get_object();
  if (root.contains("error")) {
    checkErrorBody(root, "body", problems);
    return problems;
  }
  std::string finish = checkAnswer(root, "body", true, false, problems);
  if (finish.empty()) problems.push_back("body: the candidate has no finishReason");
  return problems;
}

namespace {

void summarizeAnswer(json::object const& chunk, Summary& summary) {
  if (summary.id.empty()) summary.id = std::string(strOf(chunk.if_contains("responseId")));
  if (summary.model.empty()) summary.model = std::string(strOf(chunk.if_contains("modelVersion")));
  if (auto const* usage = chunk.if_contains("usageMetadata"); usage && usage->is_object()) {
    json::object const& u = usage->get_object();
    if (u.contains("promptTokenCount") || u.contains("candidatesTokenCount")) {
      summary.has_usage = true;
      summary.prompt_tokens = intOf(u.if_contains("promptTokenCount"));
      summary.candidates_tokens = intOf(u.if_contains("candidatesTokenCount"));
      summary.thoughts_tokens = intOf(u.if_contains("thoughtsTokenCount"));
      summary.cached_tokens = intOf(u.if_contains("cachedContentTokenCount"));
      summary.total_tokens = intOf(u.if_contains("totalTokenCount"));
    }
  }
  if (chunk.contains("promptFeedback") && !chunk.contains("candidates")) {
    summary.finish_reason = "BLOCKED";
  }
  auto const* candidates = chunk.if_contains("candidates");
  if (!candidates || !candidates->is_array() || candidates->get_array().empty()) return;
  json::object const* candidate = candidates->get_array()[0].if_object();
  if (!candidate) return;
  if (auto const* finish = candidate->if_contains("finishReason")) {
    summary.finish_reason = std::string(strOf(finish));
  }
  auto const* content = candidate->if_contains("content");
  auto const* parts = content && content->is_object() ? content->get_object().if_contains("parts")
                                                      : nullptr;
  if (!parts || !parts->is_array()) return;
  for (auto const& p : parts->get_array()) {
    json::object const* part = p.if_object();
    if (!part) continue;
    std::string signature(strOf(part->if_contains("thoughtSignature")));
    if (!signature.empty()) summary.signatures.push_back(signature);
    if (auto const* call = part->if_contains("functionCall"); call && call->is_object()) {
      json::object const& fc = call->get_object();
      ToolCallSummary tool;
      tool.id = std::string(strOf(fc.if_contains("id")));
      tool.name = std::string(strOf(fc.if_contains("name")));
      auto const* args = fc.if_contains("args");
      tool.arguments = args ? json::serialize(*args) : "{}";
      tool.signature = signature;
      summary.tool_calls.push_back(std::move(tool));
    } else if (auto const* text = part->if_contains("text")) {
      auto const* thought = part->if_contains("thought");
      bool is_thought = thought && thought->is_bool() && thought->get_bool();
      (is_thought ? summary.thoughts : summary.text) += strOf(text);
    }
  }
}

void summarizeError(json::object const& body, Summary& summary) {
  auto const* error = body.if_contains("error");
  summary.error_message = error && error->is_object()
                              ? std::string(strOf(error->get_object().if_contains("message")))
                              : std::string();
}

}  // namespace

Summary summarizeStream(std::string_view bytes) {
  Summary summary;
  Problems ignored;
  for (auto const& chunk : streamChunks(bytes, ignored)) {
    json::object const* object = chunk.if_object();
    if (!object) continue;
    if (object->contains("error")) {
      summarizeError(*object, summary);
      break;
    }
    summarizeAnswer(*object, summary);
  }
  return summary;
}

Summary summarizeResponse(std::string_view body) {
  Summary summary;
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) return summary;
  if (value.get_object().contains("error")) {
    summarizeError(value.get_object(), summary);
  } else {
    summarizeAnswer(value.get_object(), summary);
  }
  return summary;
}

// ---------------------------------------------------------------------------------------------
// Requests

namespace {

/// What Gemini's `parameters` (OpenAPI 3.0 subset) accepts in a schema.
constexpr std::string_view kOpenApiKeys[] = {
    "type",      "format",    "title",     "description", "nullable",  "enum",
    "maxItems",  "minItems",  "properties", "required",   "minProperties", "maxProperties",
    "minLength", "maxLength", "pattern",   "example",     "anyOf",     "propertyOrdering",
    "default",   "items",     "minimum",   "maximum"};

void checkOpenApiSchema(json::value const& value, std::string const& where, int depth,
                        Problems& problems) {
  json::object const* schema = value.if_object();
  if (!schema || depth > 64) return;
  for (auto const& entry : *schema) {
    std::string_view key = entry.key();
    if (!oneOf(kOpenApiKeys, key)) {
      problems.push_back(where + ": `parameters` rejects \"" + std::string(key) +
                         "\" (use parametersJsonSchema for full JSON Schema)");
    }
  }
  if (auto const* props = schema->if_contains("properties"); props && props->is_object()) {
    for (auto const& p : props->get_object()) {
      checkOpenApiSchema(p.value(), where + "." + std::string(p.key()), depth + 1, problems);
    }
  }
  if (auto const* items = schema->if_contains("items")) {
    checkOpenApiSchema(*items, where + ".items", depth + 1, problems);
  }
  if (auto const* any = schema->if_contains("anyOf"); any && any->is_array()) {
    for (auto const& sub : any->get_array()) checkOpenApiSchema(sub, where + ".anyOf", depth + 1, problems);
  }
}

void checkContents(json::object const& root, Problems& problems) {
  json::array const* contents =
      root.contains("contents") ? root.at("contents").if_array() : nullptr;
  if (!contents || contents->empty()) {
    problems.push_back("contents must be a non-empty array");
    return;
  }
  std::string previous_role;
  std::multiset<std::string> open_calls;  // names of the previous model turn's calls
  std::set<std::string> open_ids;
  for (std::size_t i = 0; i < contents->size(); ++i) {
    std::string where = "contents[" + std::to_string(i) + "]";
    json::object const* content = (*contents)[i].if_object();
    if (!content) {
      problems.push_back(where + ": must be an object");
      continue;
    }
    std::string role(strOf(content->if_contains("role")));
    if (role != "user" && role != "model") {
      problems.push_back(where + ": role must be \"user\" or \"model\"");
    }
    if (role == previous_role) problems.push_back(where + ": two " + role + " turns in a row");
    json::array const* parts = content->contains("parts") ? content->at("parts").if_array() : nullptr;
    if (!parts || parts->empty()) {
      problems.push_back(where + ": parts must be a non-empty array");
      previous_role = role;
      continue;
    }
    std::multiset<std::string> calls, answers;
    std::set<std::string> call_ids;
    for (std::size_t j = 0; j < parts->size(); ++j) {
      std::string part_where = where + ".parts[" + std::to_string(j) + "]";
      checkPart((*parts)[j], part_where, role == "model" ? PartContext::ModelTurn : PartContext::UserTurn,
                problems);
      json::object const* part = (*parts)[j].if_object();
      if (!part) continue;
      if (auto const* c = part->if_contains("functionCall"); c && c->is_object()) {
        calls.insert(std::string(strOf(c->get_object().if_contains("name"))));
        std::string id(strOf(c->get_object().if_contains("id")));
        if (!id.empty()) call_ids.insert(id);
      }
      if (auto const* r = part->if_contains("functionResponse"); r && r->is_object()) {
        answers.insert(std::string(strOf(r->get_object().if_contains("name"))));
        std::string id(strOf(r->get_object().if_contains("id")));
        if (!id.empty() && !open_ids.empty() && !open_ids.contains(id)) {
          problems.push_back(part_where + ": functionResponse.id \"" + id +
                             "\" answers no call of the previous model turn");
        }
      }
    }
    if (role == "user" && answers != open_calls) {
      problems.push_back(where + ": " + std::to_string(answers.size()) +
                         " function responses for the previous turn's " +
                         std::to_string(open_calls.size()) +
                         " function calls (Gemini wants one per call, same names)");
    }
    open_calls = role == "model" ? calls : std::multiset<std::string>();
    open_ids = role == "model" ? call_ids : std::set<std::string>();
    previous_role = role;
  }
}

void checkTools(json::object const& root, Problems& problems) {
  std::set<std::string> names;
  if (auto const* tools = root.if_contains("tools")) {
    if (!tools->is_array()) problems.push_back("tools must be an array");
    for (auto const& t : tools->is_array() ? tools->get_array() : json::array()) {
      json::object const* tool = t.if_object();
      if (!tool) {
        problems.push_back("tools: each tool must be an object");
        continue;
      }
      auto const* decls = tool->if_contains("functionDeclarations");
      if (!decls) continue;
      if (!decls->is_array()) problems.push_back("tools.functionDeclarations must be an array");
      for (auto const& d : decls->is_array() ? decls->get_array() : json::array()) {
        json::object const* decl = d.if_object();
        std::string name(decl ? strOf(decl->if_contains("name")) : "");
        std::string where = "tools.functionDeclarations[" + name + "]";
        if (!isFunctionName(name)) problems.push_back(where + ": not a valid Gemini function name");
        if (!names.insert(name).second) problems.push_back(where + ": declared twice");
        if (!decl) continue;
        if (decl->contains("parameters") && decl->contains("parametersJsonSchema")) {
          problems.push_back(where + ": parameters and parametersJsonSchema are exclusive");
        }
        if (auto const* p = decl->if_contains("parameters")) {
          checkOpenApiSchema(*p, where + ".parameters", 0, problems);
        }
        if (auto const* p = decl->if_contains("parametersJsonSchema"); p && !p->is_object()) {
          problems.push_back(where + ": parametersJsonSchema must be an object");
        }
      }
    }
  }
  auto const* config = root.if_contains("toolConfig");
  auto const* calling = config && config->is_object()
                            ? config->get_object().if_contains("functionCallingConfig")
                            : nullptr;
  if (!calling || !calling->is_object()) return;
  std::string mode(strOf(calling->get_object().if_contains("mode")));
  constexpr std::string_view kModes[] = {"AUTO", "ANY", "NONE", "VALIDATED"};
  if (!oneOf(kModes, mode)) problems.push_back("toolConfig: unknown mode \"" + mode + "\"");
  if (auto const* allowed = calling->get_object().if_contains("allowedFunctionNames")) {
    if (mode != "ANY" && mode != "VALIDATED") {
      problems.push_back("toolConfig: allowedFunctionNames needs mode ANY or VALIDATED");
    }
    for (auto const& n : allowed->is_array() ? allowed->get_array() : json::array()) {
      if (!names.contains(std::string(strOf(&n)))) {
        problems.push_back("toolConfig: allowedFunctionNames names an undeclared function");
      }
    }
  }
}

void checkGenerationConfig(json::object const& root, Problems& problems) {
  auto const* value = root.if_contains("generationConfig");
  if (!value) return;
  json::object const* config = value->if_object();
  if (!config) {
    problems.push_back("generationConfig must be an object");
    return;
  }
  constexpr std::string_view kKeys[] = {
      "temperature", "topP", "topK", "maxOutputTokens", "stopSequences", "candidateCount",
      "responseMimeType", "responseSchema", "responseJsonSchema", "thinkingConfig",
      "presencePenalty", "frequencyPenalty", "seed", "responseModalities", "responseLogprobs",
      "logprobs", "mediaResolution", "speechConfig"};
  for (auto const& entry : *config) {
    if (!oneOf(kKeys, entry.key())) {
      problems.push_back("generationConfig: unknown member \"" + std::string(entry.key()) + "\"");
    }
  }
  auto range = [&](std::string_view key, double low, double high) {
    auto const* v = config->if_contains(key);
    if (v && (!isNumber(v) || numberOf(v) < low || numberOf(v) > high)) {
      problems.push_back("generationConfig." + std::string(key) + " out of range");
    }
  };
  range("temperature", 0, 2);
  range("topP", 0, 1);
  if (auto const* v = config->if_contains("topK"); v && (!isInt(v) || intOf(v) < 1)) {
    problems.push_back("generationConfig.topK must be a positive integer");
  }
  if (auto const* v = config->if_contains("maxOutputTokens"); v && (!isInt(v) || intOf(v) < 1)) {
    problems.push_back("generationConfig.maxOutputTokens must be a positive integer");
  }
  if (auto const* v = config->if_contains("stopSequences")) {
    if (!v->is_array() || v->get_array().size() > 5 ||
        !std::all_of(v->get_array().begin(), v->get_array().end(),
                     [](json::value const& s) { return s.is_string(); })) {
      problems.push_back("generationConfig.stopSequences must be at most 5 strings");
    }
  }
  bool schema = config->contains("responseSchema") || config->contains("responseJsonSchema");
  if (config->contains("responseSchema") && config->contains("responseJsonSchema")) {
    problems.push_back("generationConfig: responseSchema and responseJsonSchema are exclusive");
  }
  if (schema && strOf(config->if_contains("responseMimeType")) != "application/json") {
    problems.push_back("generationConfig: a response schema needs responseMimeType application/json");
  }
  auto const* thinking = config->if_contains("thinkingConfig");
  if (!thinking) return;
  json::object const* t = thinking->if_object();
  if (!t) {
    problems.push_back("generationConfig.thinkingConfig must be an object");
    return;
  }
  for (auto const& entry : *t) {
    std::string_view key = entry.key();
    if (key == "thinkingBudget") {
      if (!isInt(&entry.value()) || intOf(&entry.value()) < -1) {
        problems.push_back("thinkingConfig.thinkingBudget must be an integer >= -1");
      }
    } else if (key == "thinkingLevel") {
      constexpr std::string_view kLevels[] = {"minimal", "low", "medium", "high",
                                              "MINIMAL", "LOW", "MEDIUM", "HIGH"};
      if (!oneOf(kLevels, strOf(&entry.value()))) {
        problems.push_back("thinkingConfig.thinkingLevel must be minimal, low, medium or high");
      }
    } else if (key == "includeThoughts") {
      if (!entry.value().is_bool()) problems.push_back("thinkingConfig.includeThoughts must be a boolean");
    } else {
      problems.push_back("thinkingConfig: unknown member \"" + std::string(key) + "\"");
    }
  }
  if (t->contains("thinkingBudget") && t->contains("thinkingLevel")) {
    problems.push_back("thinkingConfig: thinkingBudget and thinkingLevel together are a 400");
  }
}

}  // namespace

std::vector<std::string> validateRequest(std::string_view body) {
  Problems problems;
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec || !value.is_object()) {
    problems.push_back("the request body is not a JSON object");
    return problems;
  }
  json::object const& root = value.get_object();
  constexpr std::string_view kMembers[] = {"contents", "systemInstruction", "tools",
                                           "toolConfig", "generationConfig", "safetySettings",
                                           "cachedContent", "labels"};
  for (auto const& entry : root) {
    if (!oneOf(kMembers, entry.key())) {
      problems.push_back("unknown request member \"" + std::string(entry.key()) + "\"");
    }
  }
  checkContents(root, problems);
  if (auto const* system = root.if_contains("systemInstruction")) {
    json::object const* s = system->if_object();
    auto const* parts = s ? s->if_contains("parts") : nullptr;
    if (!parts || !parts->is_array() || parts->get_array().empty()) {
      problems.push_back("systemInstruction.parts must be a non-empty array");
    } else {
      for (auto const& p : parts->get_array()) {
        checkPart(p, "systemInstruction", PartContext::System, problems);
      }
    }
  }
  checkTools(root, problems);
  checkGenerationConfig(root, problems);
  return problems;
}

}  // namespace llmux::translate::validators::gemini

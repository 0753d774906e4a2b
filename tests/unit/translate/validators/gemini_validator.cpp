#include "validators/gemini_validator.h"
#include "validators/gemini_validator_support.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <set>

namespace llmux::translate::validators::gemini {
namespace {

using namespace detail;

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

}  // namespace llmux::translate::validators::gemini

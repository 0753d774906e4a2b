// Requests in Gemini's shape (generateContent bodies): contents, tools, generation config.
#include "validators/gemini_validator.h"
#include "validators/gemini_validator_support.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <set>

namespace llmux::translate::validators::gemini {

using namespace detail;

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

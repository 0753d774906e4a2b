#include "conformance_support.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fstream>
#include <map>
#include <sstream>

#include "protocol/sse_parser.h"

namespace llmux::mock::testing {
namespace {

namespace json = boost::json;

std::string typeName(json::value const& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "bool";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "number";
    case json::kind::string:
      return "string";
    case json::kind::array:
      return "array";
    case json::kind::object:
      return "object";
  }
  return "?";
}

std::string_view str(json::value const* v) {
  return v && v->is_string() ? std::string_view(v->get_string()) : std::string_view();
}

json::value const* at(json::value const& v, std::string_view key) {
  return v.is_object() ? v.get_object().if_contains(key) : nullptr;
}

json::value const* firstElement(json::value const* v) {
  return v && v->is_array() && !v->get_array().empty() ? &v->get_array().front() : nullptr;
}

/// The "type" member of an object element, "" otherwise.
std::string elementType(json::value const& v) {
  return std::string(str(at(v, "type")));
}

void diff(json::value const& mock, json::value const& rec, std::string const& path,
          Tolerance const& tol, std::vector<std::string>& out);

void diffArrays(json::array const& mock, json::array const& rec, std::string const& path,
                Tolerance const& tol, std::vector<std::string>& out) {
  std::string child = path + "[]";
  if (mock.empty() || rec.empty()) {
    if (mock.empty() != rec.empty() && !tol.optional.count(child)) {
      out.push_back(child + ": " + (mock.empty() ? "empty in mock" : "empty in recording"));
    }
    return;
  }
  bool typed = !elementType(mock.front()).empty() && !elementType(rec.front()).empty();
  if (!typed) {
    for (std::size_t i = 0; i < mock.size(); ++i) {
      diff(mock[i], rec[std::min(i, rec.size() - 1)], child, tol, out);
    }
    return;
  }
  // Heterogeneous lists (content blocks, output items): match elements by their "type".
  std::set<std::string> mock_types, rec_types;
  for (auto const& e : rec) rec_types.insert(elementType(e));
  for (auto const& e : mock) {
    std::string type = elementType(e);
    if (!mock_types.insert(type).second) continue;
    auto it = std::find_if(rec.begin(), rec.end(),
                           [&](json::value const& r) { return elementType(r) == type; });
    if (it == rec.end()) {
      if (!tol.optional.count(child + "=" + type)) {
        out.push_back(child + ": element of type '" + type + "' not in recording");
      }
      continue;
    }
    diff(e, *it, child + "=" + type, tol, out);
  }
  for (auto const& type : rec_types) {
    if (!mock_types.count(type) && !tol.optional.count(child + "=" + type)) {
      out.push_back(child + ": recorded element of type '" + type + "' missing in mock");
    }
  }
}

void diff(json::value const& mock, json::value const& rec, std::string const& path,
          Tolerance const& tol, std::vector<std::string>& out) {
  if (tol.opaque.count(path)) return;
  std::string mt = typeName(mock), rt = typeName(rec);
  if (mt != rt) {
    if (!tol.any_type.count(path)) out.push_back(path + ": mock " + mt + ", recorded " + rt);
    return;
  }
  if (mock.is_object()) {
    auto const& m = mock.get_object();
    auto const& r = rec.get_object();
    for (auto const& kv : r) {
      std::string child = path.empty() ? std::string(kv.key()) : path + "." + std::string(kv.key());
      if (!m.contains(kv.key())) {
        if (!tol.optional.count(child)) out.push_back(child + ": missing in mock");
        continue;
      }
      diff(m.at(kv.key()), kv.value(), child, tol, out);
    }
    for (auto const& kv : m) {
      std::string child = path.empty() ? std::string(kv.key()) : path + "." + std::string(kv.key());
      if (!r.contains(kv.key()) && !tol.optional.count(child)) {
        out.push_back(child + ": not in recording");
      }
    }
  } else if (mock.is_array()) {
    diffArrays(mock.get_array(), rec.get_array(), path, tol, out);
  }
}

std::string chatKind(json::value const& j) {
  if (at(j, "error")) return "error";
  json::value const* choice = firstElement(at(j, "choices"));
  if (choice == nullptr) return "usage";
  std::vector<std::string> parts;
  json::value const* delta = at(*choice, "delta");
  if (at(*delta, "role")) parts.push_back("role");
  json::value const* reasoning = at(*delta, "reasoning_content");
  json::value const* content = at(*delta, "content");
  if (!at(*delta, "role")) {
    if (reasoning && reasoning->is_string()) parts.push_back("reasoning");
    if (content && content->is_string()) parts.push_back("content");
  }
  if (json::value const* call = firstElement(at(*delta, "tool_calls"))) {
    parts.push_back(at(*call, "id") ? "tool_call.start" : "tool_call.args");
  }
  if (json::value const* finish = at(*choice, "finish_reason"); finish && finish->is_string()) {
    parts.push_back("finish");
  }
  if (json::value const* usage = at(j, "usage"); usage && usage->is_object())
    parts.push_back("usage");
  if (parts.empty()) return "empty";
  std::string kind;
  for (auto const& p : parts) kind += (kind.empty() ? "" : "+") + p;
  return kind;
}

std::string geminiKind(json::value const& j) {
  json::value const* candidate = firstElement(at(j, "candidates"));
  if (candidate == nullptr) return at(j, "error") ? "error" : "no-candidates";
  std::string kind;
  if (json::value const* parts = at(*at(*candidate, "content"), "parts");
      parts && parts->is_array()) {
    for (auto const& part : parts->get_array()) {
      std::string p = at(part, "functionCall")         ? "functionCall"
                      : at(part, "thought") != nullptr ? "thought"
                                                       : "text";
      if (at(part, "thoughtSignature")) p += "/sig";
      if (kind.find(p) == std::string::npos) kind += (kind.empty() ? "" : ",") + p;
    }
  }
  if (at(*candidate, "finishReason")) kind += "+finish";
  return kind;
}

}  // namespace

std::string readFixture(std::string_view folder, std::string_view name) {
  std::string path = std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/" + std::string(folder) + "/" +
                     std::string(name);
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

MockRequest makeRequest(Protocol protocol, std::string path, std::string body, std::string query) {
  MockRequest request;
  request.method = "POST";
  request.path = std::move(path);
  request.query = std::move(query);
  request.body = std::move(body);
  request.headers.add("content-type", "application/json");
  switch (protocol) {
    case Protocol::Anthropic:
      request.headers.add("x-api-key", "sk-ant-test");
      request.headers.add("anthropic-version", "2023-06-01");
      break;
    case Protocol::Gemini:
      request.headers.add("x-goog-api-key", "AIza-test");
      break;
    default:
      request.headers.add("authorization", "Bearer sk-test");
      break;
  }
  return request;
}

json::value parseJson(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  EXPECT_FALSE(ec) << "invalid JSON: " << text.substr(0, 300);
  return v;
}

std::vector<StreamEvent> parseSse(std::string_view bytes) {
  protocol::SseParser parser;
  std::vector<protocol::SseEvent> raw;
  parser.feed(bytes, raw);
  parser.finish(raw);
  std::vector<StreamEvent> events;
  for (auto& e : raw) {
    StreamEvent event{e.event, e.data, {}};
    if (e.data != "[DONE]") event.json = parseJson(e.data);
    events.push_back(std::move(event));
  }
  return events;
}

std::vector<StreamEvent> parseJsonLines(std::string_view text) {
  std::vector<StreamEvent> events;
  while (!text.empty()) {
    auto eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty()) continue;
    json::value v = parseJson(line);
    std::string type(str(at(v, "type")));
    events.push_back(StreamEvent{type, std::string(line), std::move(v)});
  }
  return events;
}

std::vector<StreamEvent> parseJsonArray(std::string_view text) {
  std::vector<StreamEvent> events;
  json::value v = parseJson(text);
  EXPECT_TRUE(v.is_array());
  if (!v.is_array()) return events;
  for (auto const& element : v.get_array()) {
    events.push_back(StreamEvent{"", json::serialize(element), element});
  }
  return events;
}

Framing framingOf(std::string_view bytes) {
  Framing framing;
  bool crlf = bytes.find("\r\n\r\n") != std::string_view::npos;
  bool lf = false;
  for (std::size_t pos = bytes.find("\n\n"); pos != std::string_view::npos;
       pos = bytes.find("\n\n", pos + 1)) {
    if (pos == 0 || bytes[pos - 1] != '\r') lf = true;
  }
  framing.separator = crlf && lf ? "mixed" : crlf ? "\\r\\n\\r\\n" : "\\n\\n";
  std::string_view sep = crlf ? "\r\n\r\n" : "\n\n";
  std::string_view last_data;
  while (!bytes.empty()) {
    auto end = bytes.find(sep);
    std::string_view block = bytes.substr(0, end);
    bytes = end == std::string_view::npos ? std::string_view() : bytes.substr(end + sep.size());
    if (block.empty()) continue;
    std::string layout;
    while (!block.empty()) {
      auto eol = block.find('\n');
      std::string_view line = block.substr(0, eol);
      block = eol == std::string_view::npos ? std::string_view() : block.substr(eol + 1);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      std::string_view name = line.substr(0, line.find(':'));
      if (name == "data") last_data = line.substr(5);
      layout += (layout.empty() ? "" : ",") + std::string(name);
    }
    framing.field_layouts.insert(layout);
  }
  if (!last_data.empty() && last_data.front() == ' ') last_data.remove_prefix(1);
  framing.done_sentinel = last_data == "[DONE]";
  return framing;
}

std::string describe(Framing const& f) {
  std::string out = "separator " + f.separator + ", layouts {";
  for (auto const& l : f.field_layouts) out += " " + l;
  out += " }, [DONE] ";
  out += f.done_sentinel ? "yes" : "no";
  return out;
}

std::string kindOf(Protocol protocol, StreamEvent const& event) {
  if (event.data == "[DONE]") return "[DONE]";
  json::value const& j = event.json;
  switch (protocol) {
    case Protocol::OpenAiChat:
      return chatKind(j);
    case Protocol::OpenAiResponses: {
      std::string type(str(at(j, "type")));
      if (type == "response.output_item.added" || type == "response.output_item.done") {
        type += ":" + std::string(str(at(*at(j, "item"), "type")));
      }
      return type;
    }
    case Protocol::Anthropic: {
      std::string type(str(at(j, "type")));
      if (type == "content_block_start")
        type += ":" + std::string(str(at(*at(j, "content_block"), "type")));
      if (type == "content_block_delta")
        type += ":" + std::string(str(at(*at(j, "delta"), "type")));
      return type;
    }
    case Protocol::Gemini:
      return geminiKind(j);
  }
  return "?";
}

std::vector<std::string> kindSequence(Protocol protocol, std::vector<StreamEvent> const& events) {
  std::vector<std::string> kinds;
  for (auto const& e : events) {
    std::string kind = kindOf(protocol, e);
    if (kinds.empty() || kinds.back() != kind) kinds.push_back(std::move(kind));
  }
  return kinds;
}

std::string join(std::vector<std::string> const& items) {
  std::string out;
  for (auto const& item : items) out += (out.empty() ? "" : " | ") + item;
  return out;
}

std::vector<std::string> shapeDiff(json::value const& mock, json::value const& recorded,
                                   Tolerance const& tolerance) {
  std::vector<std::string> out;
  diff(mock, recorded, "", tolerance, out);
  return out;
}

std::vector<std::string> eventShapeDiff(Protocol protocol, std::vector<StreamEvent> const& mock,
                                        std::vector<StreamEvent> const& recorded,
                                        Tolerance const& tolerance) {
  std::map<std::string, StreamEvent const*> first_recorded;
  for (auto const& e : recorded) first_recorded.emplace(kindOf(protocol, e), &e);
  std::set<std::string> seen;
  std::vector<std::string> out;
  for (auto const& e : mock) {
    std::string kind = kindOf(protocol, e);
    if (!seen.insert(kind).second || e.data == "[DONE]") continue;
    auto it = first_recorded.find(kind);
    if (it == first_recorded.end()) {
      if (!tolerance.optional.count("kind:" + kind))
        out.push_back("event kind '" + kind + "' not in recording");
      continue;
    }
    for (auto& d : shapeDiff(e.json, it->second->json, tolerance))
      out.push_back("[" + kind + "] " + d);
  }
  return out;
}

}  // namespace llmux::mock::testing

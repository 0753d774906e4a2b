#include "mock/schema_values.h"

#include <algorithm>
#include <array>
#include <boost/json/value.hpp>
#include <utility>

#include "core/strings.h"
#include "mock/json_writer.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;

constexpr int kMaxDepth = 8;

json::value const* member(json::value const* v, std::string_view key) {
  if (v == nullptr || !v->is_object()) return nullptr;
  return v->get_object().if_contains(key);
}

bool containsWord(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

/// A string that fits the property's name or format.
std::string_view stringFor(std::string_view lower_name, std::string_view format) {
  if (format == "date-time") return "2025-01-01T12:00:00Z";
  if (format == "date") return "2025-01-01";
  if (format == "email") return "user@example.com";
  if (format == "uri" || format == "url") return "https://example.com";
  if (format == "uuid") return "123e4567-e89b-12d3-a456-426614174000";
  if (lower_name == "id" || lower_name.ends_with("_id")) return "id_123";
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 21> kByName = {{
      {"email", "user@example.com"},
      {"url", "https://example.com"},
      {"uri", "https://example.com"},
      {"link", "https://example.com"},
      {"city", "Paris"},
      {"country", "France"},
      {"location", "Paris, France"},
      {"address", "1 Rue de Rivoli, Paris"},
      {"path", "/tmp/llmux-mock/example.txt"},
      {"file", "/tmp/llmux-mock/example.txt"},
      {"dir", "/tmp/llmux-mock"},
      {"date", "2025-01-01"},
      {"time", "12:00"},
      {"command", "echo hello"},
      {"cmd", "echo hello"},
      {"query", "example query"},
      {"unit", "celsius"},
      {"lang", "en"},
      {"code", "print('hello')"},
      {"name", "Alice"},
      {"content", "Hello from the mock provider"},
  }};
  for (auto const& [word, value] : kByName) {
    if (containsWord(lower_name, word)) return value;
  }
  return "example";
}

double numberFor(std::string_view lower_name) {
  if (containsWord(lower_name, "temp") || containsWord(lower_name, "celsius")) return 21;
  if (containsWord(lower_name, "age")) return 30;
  if (containsWord(lower_name, "year")) return 2025;
  if (containsWord(lower_name, "limit") || containsWord(lower_name, "count") ||
      containsWord(lower_name, "max")) {
    return 10;
  }
  return 1;
}

double clampToSchema(double v, json::value const* schema, bool integer) {
  auto bound = [&](std::string_view key) -> std::optional<double> {
    json::value const* b = member(schema, key);
    if (b == nullptr || !b->is_number()) return std::nullopt;
    return b->to_number<double>();
  };
  double step = integer ? 1 : 0.5;
  if (auto m = bound("minimum")) v = std::max(v, *m);
  if (auto m = bound("exclusiveMinimum")) v = std::max(v, *m + step);
  if (auto m = bound("maximum")) v = std::min(v, *m);
  if (auto m = bound("exclusiveMaximum")) v = std::min(v, *m - step);
  return v;
}

class ArgumentWriter {
 public:
  ArgumentWriter(JsonWriter& w, json::value const* root) : w_(w), root_(root) {}

  void write(json::value const* schema, std::string_view name, int depth) {
    schema = resolve(schema, depth);
    if (json::value const* c = member(schema, "const")) {
      w_.value(*c);
      return;
    }
    if (json::value const* e = member(schema, "enum");
        e && e->is_array() && !e->get_array().empty()) {
      w_.value(e->get_array().front());
      return;
    }
    std::string type = typeOf(schema);
    std::string lower_name = toLower(name);
    if (type == "object") {
      writeObject(schema, depth);
    } else if (type == "array") {
      writeArray(schema, name, depth);
    } else if (type == "integer") {
      w_.num(static_cast<std::int64_t>(clampToSchema(numberFor(lower_name), schema, true)));
    } else if (type == "number") {
      w_.num(clampToSchema(numberFor(lower_name), schema, false));
    } else if (type == "boolean") {
      w_.boolean(true);
    } else if (type == "null") {
      w_.null();
    } else {
      std::string_view format;
      if (json::value const* f = member(schema, "format"); f && f->is_string())
        format = f->get_string();
      std::string text(stringFor(lower_name, format));
      if (json::value const* n = member(schema, "minLength"); n && n->is_int64()) {
        if (static_cast<std::int64_t>(text.size()) < n->get_int64()) {
          text.append(static_cast<std::size_t>(n->get_int64()) - text.size(), 'x');
        }
      }
      if (json::value const* n = member(schema, "maxLength");
          n && n->is_int64() && n->get_int64() >= 0) {
        if (static_cast<std::int64_t>(text.size()) > n->get_int64()) {
          text.resize(static_cast<std::size_t>(n->get_int64()));
        }
      }
      w_.str(text);
    }
  }

  void writeObject(json::value const* schema, int depth) {
    w_.beginObject();
    json::value const* props = member(schema, "properties");
    json::value const* required = member(schema, "required");
    if (depth < kMaxDepth && required != nullptr && required->is_array()) {
      auto isRequired = [&](std::string_view key) {
        for (auto const& r : required->get_array()) {
          if (r.is_string() && r.get_string() == key) return true;
        }
        return false;
      };
      // Properties order first (what a model tends to follow), then required names without a
      // schema of their own.
      if (props != nullptr && props->is_object()) {
        for (auto const& p : props->get_object()) {
          if (isRequired(p.key())) {
            w_.key(p.key());
            write(&p.value(), p.key(), depth + 1);
          }
        }
      }
      for (auto const& r : required->get_array()) {
        if (!r.is_string()) continue;
        if (member(props, r.get_string()) != nullptr) continue;
        w_.key(r.get_string());
        write(nullptr, r.get_string(), depth + 1);
      }
    }
    w_.endObject();
  }

  void writeArray(json::value const* schema, std::string_view name, int depth) {
    w_.beginArray();
    std::int64_t count = 1;
    if (json::value const* n = member(schema, "minItems"); n && n->is_int64()) {
      count = std::max<std::int64_t>(n->get_int64(), 1);
    }
    if (json::value const* n = member(schema, "maxItems"); n && n->is_int64()) {
      count = std::min(count, n->get_int64());
    }
    json::value const* items = member(schema, "items");
    if (depth < kMaxDepth) {
      if (items != nullptr && items->is_array()) {  // tuple form
        for (auto const& item : items->get_array()) write(&item, name, depth + 1);
      } else {
        for (std::int64_t i = 0; i < std::min<std::int64_t>(count, 8); ++i) {
          write(items, name, depth + 1);
        }
      }
    }
    w_.endArray();
  }

 private:
  /// Follows local $refs and picks the first branch of anyOf / oneOf / allOf.
  json::value const* resolve(json::value const* schema, int depth) {
    for (int hops = 0; schema != nullptr && hops < kMaxDepth && depth < kMaxDepth; ++hops) {
      if (json::value const* ref = member(schema, "$ref"); ref && ref->is_string()) {
        schema = lookupRef(ref->get_string());
        continue;
      }
      json::value const* branch = nullptr;
      for (std::string_view key : {"anyOf", "oneOf", "allOf"}) {
        json::value const* list = member(schema, key);
        if (list == nullptr || !list->is_array()) continue;
        for (auto const& option : list->get_array()) {
          if (typeOf(&option) != "null") {
            branch = &option;
            break;
          }
        }
        if (branch != nullptr) break;
      }
      if (branch == nullptr || member(schema, "properties") != nullptr) return schema;
      schema = branch;
    }
    return schema;
  }

  json::value const* lookupRef(std::string_view ref) {
    if (!ref.starts_with("#/")) return nullptr;
    json::value const* node = root_;
    ref.remove_prefix(2);
    while (node != nullptr && !ref.empty()) {
      auto slash = ref.find('/');
      node = member(node, ref.substr(0, slash));
      ref = slash == std::string_view::npos ? std::string_view() : ref.substr(slash + 1);
    }
    return node;
  }

  static std::string typeOf(json::value const* schema) {
    json::value const* type = member(schema, "type");
    if (type != nullptr && type->is_string()) return toLower(type->get_string());
    if (type != nullptr && type->is_array()) {
      for (auto const& t : type->get_array()) {
        if (t.is_string() && toLower(t.get_string()) != "null") return toLower(t.get_string());
      }
      return "null";
    }
    if (member(schema, "properties") != nullptr) return "object";
    if (member(schema, "items") != nullptr) return "array";
    return schema == nullptr ? "string" : "";
  }

  JsonWriter& w_;
  json::value const* root_;
};

}  // namespace

std::string argumentsFromSchema(json::value const* schema) {
  std::string out;
  JsonWriter w(out);
  ArgumentWriter writer(w, schema);
  writer.writeObject(schema, 0);
  return out;
}

}  // namespace llmux::mock

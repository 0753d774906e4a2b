#include "config/yaml_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>

namespace llmux::config::detail {
namespace {

/// A limit as people write it: "0.15", "1000000" (no exponent, no trailing zeros).
std::string formatNumber(double value) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  std::string text(buffer, ec == std::errc() ? end : buffer);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text;
}

bool isPlainKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '-';
}

std::string joinAllowed(std::initializer_list<std::string_view> allowed) {
  std::string out;
  for (auto name : allowed) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

}  // namespace

std::string fieldPath(std::string_view parent, std::string_view key) {
  bool plain = !key.empty() && std::all_of(key.begin(), key.end(), isPlainKeyChar);
  std::string out(parent);
  if (plain) {
    if (!out.empty()) out += '.';
    out += key;
  } else {
    out += "[\"";
    out += key;
    out += "\"]";
  }
  return out;
}

std::string indexPath(std::string_view parent, std::size_t index) {
  return std::string(parent) + "[" + std::to_string(index) + "]";
}

std::string_view describeNode(YAML::Node const& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Scalar: return "a scalar";
    case YAML::NodeType::Null: return "an empty value";
    case YAML::NodeType::Undefined: break;
  }
  return "nothing";
}

YAML::Node const* Fields::find(std::string_view key) const {
  for (auto const& [name, value] : entries_) {
    if (name == key) return value.IsNull() ? nullptr : &value;
  }
  return nullptr;
}

void YamlReader::fail(std::string path, std::string message) {
  issues_.push_back(ConfigIssue{std::move(path), std::move(message)});
}

std::optional<std::vector<std::pair<std::string, YAML::Node>>> YamlReader::anyMap(
    YAML::Node const& node, std::string const& path) {
  if (!node.IsMap()) {
    fail(path, "expected a mapping, got " + std::string(describeNode(node)));
    return std::nullopt;
  }
  std::vector<std::pair<std::string, YAML::Node>> entries;
  for (auto const& item : node) {
    if (!item.first.IsScalar()) {
      fail(path, "mapping keys must be plain strings");
      continue;
    }
    std::string key = item.first.Scalar();
    bool duplicate = std::any_of(entries.begin(), entries.end(),
                                 [&](auto const& entry) { return entry.first == key; });
    if (duplicate) {
      fail(fieldPath(path, key), "duplicate key");
      continue;
    }
    entries.emplace_back(std::move(key), item.second);
  }
  return entries;
}

std::optional<Fields> YamlReader::strictMap(YAML::Node const& node, std::string const& path,
                                            std::initializer_list<std::string_view> allowed) {
  auto entries = anyMap(node, path);
  if (!entries) return std::nullopt;
  std::vector<std::pair<std::string, YAML::Node>> known;
  for (auto& entry : *entries) {
    if (std::find(allowed.begin(), allowed.end(), entry.first) == allowed.end()) {
      fail(fieldPath(path, entry.first), "unknown key (expected one of " + joinAllowed(allowed) + ")");
      continue;
    }
    known.push_back(std::move(entry));
  }
  return Fields(path, std::move(known));
}

YAML::Node const* YamlReader::require(Fields const& fields, std::string_view key) {
  YAML::Node const* node = fields.find(key);
  if (node == nullptr) fail(fields.path(key), "required field is missing");
  return node;
}

std::optional<std::vector<YAML::Node>> YamlReader::list(YAML::Node const& node,
                                                        std::string const& path) {
  if (!node.IsSequence()) {
    fail(path, "expected a list, got " + std::string(describeNode(node)));
    return std::nullopt;
  }
  std::vector<YAML::Node> items;
  for (auto const& item : node) items.push_back(item);
  return items;
}

std::optional<std::string> YamlReader::string(YAML::Node const& node, std::string const& path) {
  if (!node.IsScalar()) {
    fail(path, "expected a string, got " + std::string(describeNode(node)));
    return std::nullopt;
  }
  return node.Scalar();
}

std::optional<std::string> YamlReader::nonEmptyString(YAML::Node const& node,
                                                      std::string const& path) {
  auto value = string(node, path);
  if (value && value->empty()) {
    fail(path, "must not be empty");
    return std::nullopt;
  }
  return value;
}

std::optional<long long> YamlReader::integer(YAML::Node const& node, std::string const& path,
                                             long long min, long long max) {
  std::string const range = "from " + std::to_string(min) + " to " + std::to_string(max);
  if (!node.IsScalar()) {
    fail(path, "expected an integer " + range + ", got " + std::string(describeNode(node)));
    return std::nullopt;
  }
  std::string const& text = node.Scalar();
  long long value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) {
    fail(path, "expected an integer " + range);
    return std::nullopt;
  }
  if (value < min || value > max) {
    fail(path, "must be " + range);
    return std::nullopt;
  }
  return value;
}

std::optional<double> YamlReader::number(YAML::Node const& node, std::string const& path,
                                         double min, double max) {
  std::string const range = "from " + formatNumber(min) + " to " + formatNumber(max);
  if (!node.IsScalar()) {
    fail(path, "expected a number " + range + ", got " + std::string(describeNode(node)));
    return std::nullopt;
  }
  std::string const& text = node.Scalar();
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    fail(path, "expected a number " + range);
    return std::nullopt;
  }
  if (value < min || value > max) {
    fail(path, "must be " + range);
    return std::nullopt;
  }
  return value;
}

std::optional<bool> YamlReader::boolean(YAML::Node const& node, std::string const& path) {
  if (node.IsScalar()) {
    std::string const& text = node.Scalar();
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
  }
  fail(path, "expected true or false");
  return std::nullopt;
}

std::optional<std::vector<std::string>> YamlReader::stringList(YAML::Node const& node,
                                                               std::string const& path) {
  auto items = list(node, path);
  if (!items) return std::nullopt;
  std::vector<std::string> out;
  for (std::size_t i = 0; i < items->size(); ++i) {
    auto value = nonEmptyString((*items)[i], indexPath(path, i));
    if (value) out.push_back(std::move(*value));
  }
  return out;
}

}  // namespace llmux::config::detail

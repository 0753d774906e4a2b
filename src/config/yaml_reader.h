#pragma once

// Typed, path-aware reading of yaml-cpp nodes for the configuration parsers of this module (not
// meant for other modules). Every problem is recorded as a ConfigIssue and reading goes on, so
// one pass reports all errors.

#include <yaml-cpp/yaml.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/issues.h"

namespace llmux::config::detail {

/// "parent.key" ("key" at the top); keys outside [A-Za-z0-9_-] are quoted: parent["a.b"].
std::string fieldPath(std::string_view parent, std::string_view key);
/// "parent[index]".
std::string indexPath(std::string_view parent, std::size_t index);

/// The fields of one mapping, in document order, after the strict key check.
class Fields {
 public:
  Fields(std::string path, std::vector<std::pair<std::string, YAML::Node>> entries)
      : path_(std::move(path)), entries_(std::move(entries)) {}

  /// The value of `key`, or nullptr when it is absent or written without a value (null).
  YAML::Node const* find(std::string_view key) const;
  std::string path(std::string_view key) const { return fieldPath(path_, key); }
  std::string const& path() const { return path_; }

 private:
  std::string path_;
  std::vector<std::pair<std::string, YAML::Node>> entries_;
};

/// Reads typed values, reporting each problem under its path.
class YamlReader {
 public:
  explicit YamlReader(std::vector<ConfigIssue>& issues) : issues_(issues) {}

  void fail(std::string path, std::string message);
  std::size_t issueCount() const { return issues_.size(); }

  /// A mapping whose keys are all in `allowed`, unique and scalar; each offending key is reported
  /// (unknown keys as "unknown key (expected one of ...)"). nullopt only when `node` is not a
  /// mapping; the known fields are still returned when some keys were rejected.
  std::optional<Fields> strictMap(YAML::Node const& node, std::string const& path,
                                  std::initializer_list<std::string_view> allowed);
  /// A mapping with free-form scalar keys (headers, model_map), in document order.
  std::optional<std::vector<std::pair<std::string, YAML::Node>>> anyMap(YAML::Node const& node,
                                                                      std::string const& path);

  /// `fields[key]`, reporting "required field is missing" when absent or null.
  YAML::Node const* require(Fields const& fields, std::string_view key);

  std::optional<std::vector<YAML::Node>> list(YAML::Node const& node, std::string const& path);
  std::optional<std::string> string(YAML::Node const& node, std::string const& path);
  /// A non-empty string.
  std::optional<std::string> nonEmptyString(YAML::Node const& node, std::string const& path);
  /// A whole number within [min, max].
  std::optional<long long> integer(YAML::Node const& node, std::string const& path, long long min,
                                   long long max);
  std::optional<bool> boolean(YAML::Node const& node, std::string const& path);
  /// A finite decimal number within [min, max].
  std::optional<double> number(YAML::Node const& node, std::string const& path, double min,
                               double max);
  /// A list of non-empty strings; bad items are reported one by one and skipped.
  std::optional<std::vector<std::string>> stringList(YAML::Node const& node,
                                                     std::string const& path);

 private:
  std::vector<ConfigIssue>& issues_;
};

/// "a mapping", "a list", "a scalar", "an empty value": for "expected X, got Y" messages.
std::string_view describeNode(YAML::Node const& node);

}  // namespace llmux::config::detail

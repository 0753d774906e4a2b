#include "config/inspection_parser.h"

#include "config/routing_parser.h"
#include "config/row_paths_parser.h"

namespace llmux::config::detail {
namespace {

constexpr Millis kMinInterval{10'000};
constexpr Millis kMaxInterval{7LL * 86'400'000};
constexpr double kMaxScale = 1e12;

/// `interval:` — a duration (90s, 15m, 2h, 1d) from 10 s to 7 d, or `off`. False when invalid
/// (reported).
bool readInterval(YamlReader& reader, Fields const& fields, std::optional<Millis>& interval) {
  YAML::Node const* node = fields.find("interval");
  if (node == nullptr) return true;
  std::string const path = fields.path("interval");
  auto text = reader.string(*node, path);
  if (!text) return false;
  if (*text == "off") {
    interval.reset();
    return true;
  }
  auto duration = parseFreezeDuration(*text);
  if (!duration || *duration < kMinInterval || *duration > kMaxInterval) {
    reader.fail(path, "expected a duration from 10s to 7d (such as 90s, 15m, 1h) or off");
    return false;
  }
  interval = *duration;
  return true;
}

/// A path on the row's host; "" when absent or invalid (reported).
std::string readPath(YamlReader& reader, Fields const& fields) {
  YAML::Node const* node = fields.find("path");
  if (node == nullptr) return {};
  std::string const path = fields.path("path");
  auto text = reader.string(*node, path);
  if (!text) return {};
  if (auto problem = upstreamPathProblem(*text, false); !problem.empty()) {
    reader.fail(path, problem);
    return {};
  }
  return std::move(*text);
}

void readModelList(YamlReader& reader, YAML::Node const& node, std::string const& path,
                   ModelListInspection& models) {
  if (node.IsScalar() && node.Scalar() == "off") {
    models.interval.reset();
    return;
  }
  auto fields = reader.strictMap(node, path, {"path", "interval", "auto_update"});
  if (!fields) return;
  models.path = readPath(reader, *fields);
  readInterval(reader, *fields, models.interval);
  if (YAML::Node const* value = fields->find("auto_update")) {
    if (auto on = reader.boolean(*value, fields->path("auto_update"))) models.auto_update = *on;
  }
}

std::optional<BalanceInspection> readBalance(YamlReader& reader, YAML::Node const& node,
                                             std::string const& path) {
  BalanceInspection balance;
  if (node.IsScalar()) {
    if (node.Scalar() == "openai") {
      balance.style = BalanceStyle::OpenAiBilling;
      return balance;
    }
    reader.fail(path, "expected openai or a mapping {path, pointer, interval, scale, min}");
    return std::nullopt;
  }
  auto fields =
      reader.strictMap(node, path, {"style", "path", "pointer", "interval", "scale", "min"});
  if (!fields) return std::nullopt;
  std::size_t const issues_before = reader.issueCount();
  if (YAML::Node const* style = fields->find("style")) {
    if (auto text = reader.string(*style, fields->path("style"))) {
      if (*text == "openai") {
        balance.style = BalanceStyle::OpenAiBilling;
      } else if (*text != "pointer") {
        reader.fail(fields->path("style"), "unknown style \"" + *text + "\" (expected pointer or openai)");
      }
    }
  }
  readInterval(reader, *fields, balance.interval);
  if (YAML::Node const* min = fields->find("min")) {
    balance.min = reader.number(*min, fields->path("min"), -kMaxScale, kMaxScale);
  }
  if (balance.style == BalanceStyle::OpenAiBilling) {
    for (std::string_view key : {"path", "pointer", "scale"}) {
      if (fields->find(key)) {
        reader.fail(fields->path(key), "not used by the openai style (its endpoints are fixed)");
      }
    }
    return reader.issueCount() == issues_before ? std::optional(balance) : std::nullopt;
  }
  if (reader.require(*fields, "path")) balance.path = readPath(reader, *fields);
  if (YAML::Node const* pointer = reader.require(*fields, "pointer")) {
    if (auto text = reader.string(*pointer, fields->path("pointer"))) {
      if (isJsonPointer(*text) && !text->empty()) {
        balance.pointer = std::move(*text);
      } else {
        reader.fail(fields->path("pointer"),
                    "expected an RFC 6901 JSON pointer such as /data/balance");
      }
    }
  }
  if (YAML::Node const* scale = fields->find("scale")) {
    if (auto value = reader.number(*scale, fields->path("scale"), -kMaxScale, kMaxScale)) {
      if (*value == 0) {
        reader.fail(fields->path("scale"), "must not be 0");
      } else {
        balance.scale = *value;
      }
    }
  }
  return reader.issueCount() == issues_before ? std::optional(balance) : std::nullopt;
}

}  // namespace

bool isJsonPointer(std::string_view pointer) {
  if (pointer.empty()) return true;
  if (pointer.front() != '/') return false;
  for (std::size_t i = 0; i < pointer.size(); ++i) {
    if (pointer[i] != '~') continue;
    if (i + 1 >= pointer.size() || (pointer[i + 1] != '0' && pointer[i + 1] != '1')) return false;
  }
  return true;
}

void readInspection(YamlReader& reader, Fields const& fields, Channel& channel) {
  YAML::Node const* node = fields.find("inspection");
  if (node == nullptr) return;
  auto inspection = reader.strictMap(*node, fields.path("inspection"), {"models", "balance"});
  if (!inspection) return;
  InspectionSettings settings;
  if (YAML::Node const* models = inspection->find("models")) {
    readModelList(reader, *models, inspection->path("models"), settings.models);
  }
  if (YAML::Node const* balance = inspection->find("balance")) {
    settings.balance = readBalance(reader, *balance, inspection->path("balance"));
  }
  channel.inspection = std::move(settings);
}

}  // namespace llmux::config::detail

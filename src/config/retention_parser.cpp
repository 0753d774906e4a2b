#include "config/retention_parser.h"

#include <string>

namespace llmux::config::detail {

void readRetention(YamlReader& reader, Fields const& root, std::optional<int> log_alias,
                   Settings& settings) {
  YAML::Node const* node = root.find("retention");
  if (node == nullptr) return;
  auto fields = reader.strictMap(*node, root.path("retention"),
                                 {"request_log_days", "video_jobs_days", "payloads_days"});
  if (!fields) return;
  auto days = [&](std::string_view key, long long min, long long max) -> std::optional<int> {
    YAML::Node const* value = fields->find(key);
    if (value == nullptr) return std::nullopt;
    auto read = reader.integer(*value, fields->path(key), min, max);
    if (!read) return std::nullopt;
    return static_cast<int>(*read);
  };
  RetentionSettings& retention = settings.retention;
  if (auto v = days("request_log_days", 0, kMaxRetentionDays)) {
    if (log_alias && *log_alias != *v) {
      reader.fail(fields->path("request_log_days"),
                  "differs from log.request_log_retention_days (" + std::to_string(*log_alias) +
                      "), the same setting: give one of them");
    } else {
      retention.request_log_days = *v;
    }
  }
  // A job must outlive its generation and download; a year bounds the table's memory.
  if (auto v = days("video_jobs_days", 1, 365)) retention.video_jobs_days = *v;
  if (auto v = days("payloads_days", 0, kMaxRetentionDays)) retention.payloads_days = *v;
}

}  // namespace llmux::config::detail

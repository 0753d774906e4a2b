#include "config/routing_parser.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "config/channel_parser.h"

namespace llmux::config {

std::vector<FreezeRule> defaultFreezeRules() {
  auto rule = [](std::string name, int status, std::string body, FreezePeriod period,
                 FreezeObject object = FreezeObject::Key) {
    FreezeRule r;
    r.name = std::move(name);
    r.status = status;
    r.body_contains = std::move(body);
    r.object = object;
    r.period = period;
    return r;
  };
  return {
      // OpenAI: the account's credit or monthly budget is gone; retrying another minute won't help.
      rule("quota-exhausted-openai", 429, "insufficient_quota", FreezePeriod::UpstreamReset),
      // Gemini: a per-day quota (e.g. GenerateRequestsPerDayPerProjectPerModel) is used up. Its
      // quotas are per model: the key's other models still have theirs.
      rule("quota-exhausted-gemini-daily", 429, "PerDay", FreezePeriod::UpstreamReset,
           FreezeObject::KeyModel),
      // Anthropic: "Your credit balance is too low to access the Anthropic API".
      rule("credit-exhausted-anthropic", 400, "credit balance is too low", FreezePeriod::Today),
      // A key the upstream refuses (revoked, region-blocked) stays refused for a while.
      rule("forbidden", 403, "", FreezePeriod::Today),
  };
}

namespace detail {
namespace {

constexpr long long kMaxFreezeMs = 366LL * 24 * 3600 * 1000;  // a year
constexpr long long kMaxDeadlineMs = 24LL * 3600 * 1000;
constexpr long long kMaxKeyPauseMs = 24LL * 3600 * 1000;  // past a day, freeze the key instead

std::string joined(std::vector<std::string> const& names) {
  std::string out;
  for (auto const& name : names) out += (out.empty() ? "" : ", ") + name;
  return out;
}

bool anyChannelServes(Settings const& settings, std::string const& model) {
  return std::any_of(settings.channels.begin(), settings.channels.end(),
                     [&](Channel const& c) { return c.serves(model); });
}

Channel const* channelNamed(Settings const& settings, std::string const& name) {
  for (auto const& channel : settings.channels) {
    if (channel.name == name) return &channel;
  }
  return nullptr;
}

/// A bearer token of the operator's (`admin_token`, `metrics_token`, or its `_env` form) into
/// `target`; it must differ from every gateway key (a tenant holding that key would otherwise
/// have the operator's access).
void readOperatorToken(YamlReader& reader, Fields const& root, EnvLookup const& env,
                       Settings const& settings, std::string const& name, std::string& target) {
  std::string const env_name = name + "_env";
  YAML::Node const* literal = root.find(name);
  YAML::Node const* from_env = root.find(env_name);
  if (literal == nullptr && from_env == nullptr) return;  // the token stays unset
  if (literal != nullptr && from_env != nullptr) {
    reader.fail(root.path(name), "set either " + name + " or " + env_name + ", not both");
    return;
  }
  std::string path;
  auto token = readSecret(reader, literal, root.path(name), from_env, root.path(env_name), env, path);
  if (!token) return;
  for (std::size_t i = 0; i < settings.gateway_keys.size(); ++i) {
    if (settings.gateway_keys[i].secret == *token) {
      reader.fail(path, "must differ from every gateway key (same secret as " +
                            indexPath("gateway_keys", i) + ")");
      return;
    }
  }
  target = std::move(*token);
}

/// `admin_tokens:` — named tokens with a role, after `admin_token` (named "admin").
void readAdminTokenList(YamlReader& reader, Fields const& root, EnvLookup const& env,
                        Settings& settings) {
  YAML::Node const* node = root.find("admin_tokens");
  if (node == nullptr) return;
  std::string const path = root.path("admin_tokens");
  auto items = reader.list(*node, path);
  if (!items) return;
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const item_path = indexPath(path, i);
    auto fields = reader.strictMap((*items)[i], item_path, {"name", "token", "token_env", "role"});
    if (!fields) continue;
    AdminToken token;
    if (YAML::Node const* name = reader.require(*fields, "name")) {
      if (auto text = reader.string(*name, fields->path("name"))) {
        if (!isValidName(*text)) {
          reader.fail(fields->path("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
        } else if (std::any_of(settings.admin_tokens.begin(), settings.admin_tokens.end(),
                               [&](AdminToken const& other) { return other.name == *text; })) {
          reader.fail(fields->path("name"),
                      "duplicate admin token name \"" + *text + "\"" +
                          (*text == "admin" ? " (admin_token is named \"admin\")" : ""));
        } else {
          token.name = std::move(*text);
        }
      }
    }
    if (YAML::Node const* role = reader.require(*fields, "role")) {
      if (auto text = reader.string(*role, fields->path("role"))) {
        if (*text == "read_only") {
          token.read_only = true;
        } else if (*text != "admin") {
          reader.fail(fields->path("role"), "must be \"admin\" or \"read_only\"");
        }
      }
    }
    std::string secret_path;
    auto secret = readSecretFields(reader, *fields, "token", "token_env", env, secret_path);
    if (!secret) continue;
    for (std::size_t k = 0; k < settings.gateway_keys.size(); ++k) {
      if (settings.gateway_keys[k].secret == *secret) {
        reader.fail(secret_path, "must differ from every gateway key (same secret as " +
                                     indexPath("gateway_keys", k) + ")");
      }
    }
    bool const reused =
        *secret == settings.metrics_token ||
        std::any_of(settings.admin_tokens.begin(), settings.admin_tokens.end(),
                    [&](AdminToken const& other) { return other.secret == *secret; });
    if (reused) {
      reader.fail(secret_path, "must differ from every other admin token and the metrics token");
    }
    if (token.name.empty() || reused) continue;
    token.secret = std::move(*secret);
    settings.admin_tokens.push_back(std::move(token));
  }
}

void readAdminToken(YamlReader& reader, Fields const& root, EnvLookup const& env,
                    Settings& settings) {
  readOperatorToken(reader, root, env, settings, "admin_token", settings.admin_token);
  readOperatorToken(reader, root, env, settings, "metrics_token", settings.metrics_token);
  if (!settings.admin_token.empty()) {
    settings.admin_tokens.push_back({"admin", settings.admin_token, false});
  }
  readAdminTokenList(reader, root, env, settings);
}

/// One group member: "model" or {model, channel}.
std::optional<GroupMember> readMember(YamlReader& reader, YAML::Node const& node,
                                      std::string const& path, std::string const& group,
                                      Settings const& settings) {
  GroupMember member;
  std::string model_path = path;
  if (node.IsMap()) {
    auto fields = reader.strictMap(node, path, {"model", "channel"});
    if (!fields) return std::nullopt;
    YAML::Node const* model = reader.require(*fields, "model");
    model_path = fields->path("model");
    auto name = model ? reader.nonEmptyString(*model, model_path) : std::nullopt;
    std::optional<std::string> channel;
    if (YAML::Node const* node_channel = fields->find("channel")) {
      channel = reader.nonEmptyString(*node_channel, fields->path("channel"));
      if (!channel) return std::nullopt;
      if (channelNamed(settings, *channel) == nullptr) {
        reader.fail(fields->path("channel"), "no channel named \"" + *channel + "\"");
        return std::nullopt;
      }
      member.channel = std::move(*channel);
    }
    if (!name) return std::nullopt;
    member.model = std::move(*name);
  } else {
    auto name = reader.nonEmptyString(node, path);
    if (!name) return std::nullopt;
    member.model = std::move(*name);
  }
  if (member.model == group) {
    reader.fail(model_path, "a group cannot contain itself");
    return std::nullopt;
  }
  if (!member.channel.empty()) {
    if (!channelNamed(settings, member.channel)->serves(member.model)) {
      reader.fail(model_path, "channel \"" + member.channel + "\" does not serve model \"" +
                                  member.model + "\"");
      return std::nullopt;
    }
  } else if (!anyChannelServes(settings, member.model)) {
    reader.fail(model_path, "no channel serves model \"" + member.model + "\"");
    return std::nullopt;
  }
  return member;
}

void readModelGroups(YamlReader& reader, Fields const& root, Settings& settings) {
  YAML::Node const* node = root.find("model_groups");
  if (node == nullptr) return;
  std::string const path = root.path("model_groups");
  auto entries = reader.anyMap(*node, path);
  if (!entries) return;
  for (auto& [name, value] : *entries) {
    std::string const group_path = fieldPath(path, name);
    if (name.empty()) {
      reader.fail(group_path, "group name must not be empty");
      continue;
    }
    auto serving = std::find_if(settings.channels.begin(), settings.channels.end(),
                                [&](Channel const& c) { return c.serves(name); });
    if (serving != settings.channels.end()) {
      // The client's request would be ambiguous: the model itself, or the group?
      reader.fail(group_path, "\"" + name + "\" is a model served by channel \"" + serving->name +
                                  "\"; a group needs a name of its own");
      continue;
    }
    auto items = reader.list(value, group_path);
    if (!items) continue;
    if (items->empty()) {
      reader.fail(group_path, "at least one member is required");
      continue;
    }
    ModelGroup group;
    group.name = name;
    for (std::size_t i = 0; i < items->size(); ++i) {
      std::string const member_path = indexPath(group_path, i);
      auto member = readMember(reader, (*items)[i], member_path, name, settings);
      if (!member) continue;
      if (std::find(group.members.begin(), group.members.end(), *member) != group.members.end()) {
        reader.fail(member_path, "duplicate member \"" + member->model + "\"");
        continue;
      }
      group.members.push_back(std::move(*member));
    }
    settings.model_groups.push_back(std::move(group));
  }
}

bool isGroup(Settings const& settings, std::string const& name) {
  return std::any_of(settings.model_groups.begin(), settings.model_groups.end(),
                     [&](ModelGroup const& g) { return g.name == name; });
}

void readFallbacks(YamlReader& reader, Fields const& root, Settings& settings) {
  YAML::Node const* node = root.find("fallbacks");
  if (node == nullptr) return;
  std::string const path = root.path("fallbacks");
  auto entries = reader.anyMap(*node, path);
  if (!entries) return;
  auto known = [&](std::string const& model) {
    return anyChannelServes(settings, model) || isGroup(settings, model);
  };
  for (auto& [model, value] : *entries) {
    std::string const entry_path = fieldPath(path, model);
    if (!known(model)) {
      reader.fail(entry_path, "no channel serves model \"" + model + "\" and no model group has that name");
      continue;
    }
    auto targets = reader.stringList(value, entry_path);
    if (!targets) continue;
    if (value.size() == 0) {
      reader.fail(entry_path, "at least one fallback model is required");
      continue;
    }
    std::vector<std::string> accepted;
    for (std::size_t i = 0; i < targets->size(); ++i) {
      std::string const& target = (*targets)[i];
      std::string const target_path = indexPath(entry_path, i);
      if (target == model) {
        reader.fail(target_path, "a model cannot fall back to itself");
      } else if (!known(target)) {
        reader.fail(target_path, "no channel serves model \"" + target +
                                     "\" and no model group has that name");
      } else if (std::find(accepted.begin(), accepted.end(), target) != accepted.end()) {
        reader.fail(target_path, "duplicate fallback \"" + target + "\"");
      } else {
        accepted.push_back(target);
      }
    }
    settings.fallbacks.emplace(model, std::move(accepted));
  }
}

/// `period:` — a duration or one of today, week, month, forever, reset.
bool readPeriod(YamlReader& reader, YAML::Node const& node, std::string const& path,
                FreezeRule& rule) {
  auto text = reader.string(node, path);
  if (!text) return false;
  for (FreezePeriod period : {FreezePeriod::Today, FreezePeriod::Week, FreezePeriod::Month,
                              FreezePeriod::Forever, FreezePeriod::UpstreamReset}) {
    if (freezePeriodName(period) == *text) {
      rule.period = period;
      return true;
    }
  }
  if (auto duration = parseFreezeDuration(*text); duration && duration->count() <= kMaxFreezeMs) {
    rule.period = FreezePeriod::Fixed;
    rule.duration = *duration;
    return true;
  }
  reader.fail(path, "unknown period \"" + *text +
                        "\" (expected a duration such as 90s, 15m, 2h or 1d, up to 366d, or "
                        "one of today, week, month, forever, reset)");
  return false;
}

std::optional<FreezeRule> readFreezeRule(YamlReader& reader, Fields const& fields) {
  std::size_t const issues_before = reader.issueCount();
  FreezeRule rule;
  if (YAML::Node const* node = fields.find("name")) {
    if (auto name = reader.string(*node, fields.path("name"))) {
      if (isValidName(*name)) {
        rule.name = std::move(*name);
      } else {
        reader.fail(fields.path("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
      }
    }
  }
  if (YAML::Node const* node = reader.require(fields, "status")) {
    if (auto status = reader.integer(*node, fields.path("status"), 100, 599)) {
      rule.status = static_cast<int>(*status);
    }
  }
  if (YAML::Node const* node = fields.find("body_contains")) {
    if (auto text = reader.nonEmptyString(*node, fields.path("body_contains"))) {
      rule.body_contains = std::move(*text);
    }
  }
  if (YAML::Node const* node = fields.find("header")) {
    if (auto name = reader.string(*node, fields.path("header"))) {
      if (isHeaderName(*name)) {
        rule.header = std::move(*name);
      } else {
        reader.fail(fields.path("header"), "not an HTTP header name");
      }
    }
  }
  if (YAML::Node const* node = fields.find("header_value")) {
    if (auto text = reader.nonEmptyString(*node, fields.path("header_value"))) {
      if (fields.find("header") == nullptr) {
        reader.fail(fields.path("header_value"), "needs header (the header whose value to match)");
      } else {
        rule.header_value = std::move(*text);
      }
    }
  }
  if (YAML::Node const* node = fields.find("object")) {
    if (auto text = reader.string(*node, fields.path("object"))) {
      if (auto object = freezeObjectNamed(*text)) {
        rule.object = *object;
      } else {
        reader.fail(fields.path("object"), "unknown object \"" + *text +
                                               "\" (expected key, key+model, channel, channel+model)");
      }
    }
  }
  if (YAML::Node const* node = fields.find("period")) {
    readPeriod(reader, *node, fields.path("period"), rule);
  }
  if (reader.issueCount() != issues_before) return std::nullopt;
  return rule;
}

void readFreezeRules(YamlReader& reader, Fields const& root, Settings& settings) {
  bool defaults = true;
  if (YAML::Node const* node = root.find("default_freeze_rules")) {
    if (auto on = reader.boolean(*node, root.path("default_freeze_rules"))) defaults = *on;
  }
  std::vector<FreezeRule> const builtin = defaults ? defaultFreezeRules() : std::vector<FreezeRule>{};
  if (YAML::Node const* node = root.find("freeze_rules")) {
    std::string const path = root.path("freeze_rules");
    if (auto items = reader.list(*node, path)) {
      std::vector<std::pair<std::size_t, std::string>> seen;  // index, name
      for (std::size_t i = 0; i < items->size(); ++i) {
        std::string const item_path = indexPath(path, i);
        auto fields = reader.strictMap((*items)[i], item_path,
                                       {"name", "status", "body_contains", "header",
                                        "header_value", "object", "period"});
        if (!fields) continue;
        auto rule = readFreezeRule(reader, *fields);
        if (!rule) continue;
        if (rule->name.empty()) rule->name = "rule#" + std::to_string(i);
        auto same = std::find_if(seen.begin(), seen.end(),
                                 [&](auto const& entry) { return entry.second == rule->name; });
        bool is_default = std::any_of(builtin.begin(), builtin.end(),
                                      [&](FreezeRule const& r) { return r.name == rule->name; });
        if (same != seen.end()) {
          reader.fail(fields->path("name"), "duplicate freeze rule name \"" + rule->name +
                                                "\" (also " + indexPath(path, same->first) + ")");
          continue;
        }
        if (is_default) {
          reader.fail(fields->path("name"), "\"" + rule->name +
                                                "\" is the name of a default freeze rule (choose "
                                                "another, or set default_freeze_rules: false)");
          continue;
        }
        seen.emplace_back(i, rule->name);
        settings.freeze_rules.push_back(std::move(*rule));
      }
    }
  }
  settings.freeze_rules.insert(settings.freeze_rules.end(), builtin.begin(), builtin.end());
}

void readRetry(YamlReader& reader, Fields const& root, Settings& settings) {
  YAML::Node const* node = root.find("retry");
  if (node == nullptr) return;
  auto fields = reader.strictMap(*node, root.path("retry"),
                                 {"max_attempts", "deadline_ms", "max_key_pause_ms"});
  if (!fields) return;
  if (YAML::Node const* value = fields->find("max_attempts")) {
    if (auto n = reader.integer(*value, fields->path("max_attempts"), 1, 100)) {
      settings.retry.max_attempts = static_cast<int>(*n);
    }
  }
  if (YAML::Node const* value = fields->find("deadline_ms")) {
    if (auto ms = reader.integer(*value, fields->path("deadline_ms"), 1, kMaxDeadlineMs)) {
      settings.retry.deadline = Millis(*ms);
    }
  }
  if (YAML::Node const* value = fields->find("max_key_pause_ms")) {
    if (auto ms = reader.integer(*value, fields->path("max_key_pause_ms"), 1, kMaxKeyPauseMs)) {
      settings.retry.max_key_pause = Millis(*ms);
    }
  }
}

void readRacing(YamlReader& reader, Fields const& root, Settings& settings) {
  YAML::Node const* node = root.find("racing");
  if (node == nullptr) return;
  auto fields = reader.strictMap(*node, root.path("racing"),
                                 {"enabled", "cost_preference", "max_shadows_in_flight",
                                  "hedge_budget"});
  if (!fields) return;
  RacingSettings& racing = settings.racing;
  if (YAML::Node const* value = fields->find("enabled")) {
    if (auto on = reader.boolean(*value, fields->path("enabled"))) racing.enabled = *on;
  }
  if (YAML::Node const* value = fields->find("cost_preference")) {
    if (auto preference = readCostPreference(reader, *value, fields->path("cost_preference"))) {
      racing.cost_preference = *preference;
    }
  }
  if (YAML::Node const* value = fields->find("max_shadows_in_flight")) {
    if (auto n = reader.integer(*value, fields->path("max_shadows_in_flight"), 0, 10'000)) {
      racing.max_shadows_in_flight = static_cast<int>(*n);
    }
  }
  if (YAML::Node const* value = fields->find("hedge_budget")) {
    if (auto share = reader.number(*value, fields->path("hedge_budget"), 0.0, 1.0)) {
      racing.hedge_budget = *share;
    }
  }
}

}  // namespace

std::optional<CostPreference> readCostPreference(YamlReader& reader, YAML::Node const& node,
                                                 std::string const& path) {
  auto name = reader.string(node, path);
  if (!name) return std::nullopt;
  auto preference = parseCostPreference(*name);
  if (!preference) {
    reader.fail(path, "unknown cost preference \"" + *name +
                          "\" (expected quality_first, balanced, cost_first)");
  }
  return preference;
}

std::string strategyChoices() {
  std::vector<std::string> names;
  for (Strategy s : {Strategy::Sequential, Strategy::Random, Strategy::ModelRandom,
                     Strategy::GlobalRandom, Strategy::Intelligent, Strategy::Fast}) {
    names.emplace_back(strategyName(s));
  }
  return joined(names);
}

std::optional<Millis> parseFreezeDuration(std::string_view text) {
  if (text.size() < 2) return std::nullopt;
  long long unit_ms = 0;
  switch (text.back()) {
    case 's': unit_ms = 1000; break;
    case 'm': unit_ms = 60'000; break;
    case 'h': unit_ms = 3'600'000; break;
    case 'd': unit_ms = 86'400'000; break;
    default: return std::nullopt;
  }
  std::string_view digits = text.substr(0, text.size() - 1);
  long long count = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (ec != std::errc() || end != digits.data() + digits.size() || count <= 0) return std::nullopt;
  if (count > kMaxFreezeMs / unit_ms + 1) return std::nullopt;  // overflow guard; range checked by caller
  return Millis(count * unit_ms);
}

void readRoutingSettings(YamlReader& reader, Fields const& root, EnvLookup const& env,
                         Settings& settings) {
  readAdminToken(reader, root, env, settings);
  readModelGroups(reader, root, settings);
  readFallbacks(reader, root, settings);
  readFreezeRules(reader, root, settings);
  readRetry(reader, root, settings);
  readRacing(reader, root, settings);
}

}  // namespace detail
}  // namespace llmux::config

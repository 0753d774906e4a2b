#include "config/probes_parser.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "config/channel_parser.h"
#include "config/routing_parser.h"
#include "core/json_text.h"

namespace llmux::config::detail {
namespace {

/// "chat, stream, …": the names a scenario list may use, for messages.
std::string builtinNames() {
  std::string names;
  for (BuiltinProbe probe : kAllBuiltinProbes) {
    names += (names.empty() ? "" : ", ") + std::string(builtinProbeName(probe));
  }
  return names;
}

std::optional<Millis> duration(YamlReader& reader, YAML::Node const& node, std::string const& path) {
  auto text = reader.nonEmptyString(node, path);
  if (!text) return std::nullopt;
  auto value = parseFreezeDuration(*text);
  if (!value) reader.fail(path, "expected a duration such as \"30s\", \"10m\", \"1h\"");
  return value;
}

bool plainNumber(std::string const& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  double value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value) && text.find_first_of("xX") == std::string::npos;
}

/// `expect:` of a custom scenario.
void readExpectation(YamlReader& reader, YAML::Node const& node, std::string const& path,
                     CustomProbeScenario& scenario) {
  auto fields = reader.strictMap(node, path, {"status", "pointer", "equals", "contains"});
  if (!fields) return;
  if (YAML::Node const* status = fields->find("status")) {
    std::string const status_path = fields->path("status");
    auto text = reader.string(*status, status_path);
    if (text && text->size() == 3 && (*text)[1] == 'x' && (*text)[2] == 'x' && (*text)[0] >= '1' &&
        (*text)[0] <= '5') {
      scenario.status_min = ((*text)[0] - '0') * 100;
      scenario.status_max = scenario.status_min + 99;
    } else if (auto code = text ? reader.integer(*status, status_path, 100, 599) : std::nullopt) {
      scenario.status_min = scenario.status_max = static_cast<int>(*code);
    }
  }
  if (YAML::Node const* pointer = fields->find("pointer")) {
    if (auto text = reader.string(*pointer, fields->path("pointer"))) {
      if (!text->empty() && text->front() != '/') {
        reader.fail(fields->path("pointer"), "a JSON pointer starts with '/' (\"/choices/0\")");
      }
      scenario.pointer = std::move(*text);
    }
  }
  if (YAML::Node const* equals = fields->find("equals")) {
    if (scenario.pointer.empty()) {
      reader.fail(fields->path("equals"), "needs a pointer to compare with");
    } else if (auto text = reader.string(*equals, fields->path("equals"))) {
      scenario.equals = std::move(*text);
    }
  }
  if (YAML::Node const* contains = fields->find("contains")) {
    if (auto text = reader.nonEmptyString(*contains, fields->path("contains"))) {
      scenario.contains = std::move(*text);
    }
  }
}

std::optional<CustomProbeScenario> parseScenario(YamlReader& reader, YAML::Node const& node,
                                                 std::string const& path) {
  auto fields = reader.strictMap(node, path, {"name", "protocol", "body", "stream", "expect"});
  if (!fields) return std::nullopt;
  CustomProbeScenario scenario;
  std::size_t const issues = reader.issueCount();
  if (YAML::Node const* name = reader.require(*fields, "name")) {
    if (auto text = reader.nonEmptyString(*name, fields->path("name"))) {
      if (parseBuiltinProbe(*text)) {
        reader.fail(fields->path("name"), "\"" + *text + "\" is a built-in scenario");
      }
      scenario.name = std::move(*text);
    }
  }
  if (YAML::Node const* protocol = reader.require(*fields, "protocol")) {
    if (auto parsed = readProtocol(reader, *protocol, fields->path("protocol"))) scenario.protocol = *parsed;
  }
  if (YAML::Node const* body = reader.require(*fields, "body")) {
    if (body->IsMap()) {
      scenario.body = yamlToJson(*body);
    } else if (auto text = reader.nonEmptyString(*body, fields->path("body"))) {
      YAML::Node parsed;
      try {
        parsed = YAML::Load(*text);
      } catch (YAML::Exception const&) {
      }
      if (!parsed.IsMap()) {
        reader.fail(fields->path("body"), "expected a JSON object (a mapping or its JSON text)");
      } else {
        scenario.body = std::move(*text);
      }
    }
  }
  if (YAML::Node const* stream = fields->find("stream")) {
    if (auto value = reader.boolean(*stream, fields->path("stream"))) scenario.stream = *value;
  }
  if (YAML::Node const* expect = fields->find("expect")) {
    readExpectation(reader, *expect, fields->path("expect"), scenario);
  }
  if (reader.issueCount() != issues) return std::nullopt;
  return scenario;
}

/// Reads `file` (YAML or JSON) into `settings.probes.custom`.
void readScenariosFile(YamlReader& reader, std::string const& file, std::string const& path,
                       ProbeSettings& probes) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    reader.fail(path, "cannot read the scenarios file");
    return;
  }
  std::stringstream text;
  text << in.rdbuf();
  YAML::Node document;
  try {
    document = YAML::Load(text.str());  // JSON is YAML
  } catch (YAML::Exception const& e) {
    std::string where = e.mark.is_null() ? std::string()
                                         : " at line " + std::to_string(e.mark.line + 1);
    reader.fail(path, "the scenarios file does not parse" + where + ": " + e.msg);
    return;
  }
  probes.custom = parseProbeScenarios(reader, document, path);
}

}  // namespace

std::string yamlToJson(YAML::Node const& node) {
  std::string out;
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      out += '{';
      bool first = true;
      for (auto const& entry : node) {
        if (!first) out += ',';
        first = false;
        appendJsonString(out, entry.first.Scalar());
        out += ':';
        out += yamlToJson(entry.second);
      }
      out += '}';
      return out;
    }
    case YAML::NodeType::Sequence: {
      out += '[';
      for (std::size_t i = 0; i < node.size(); ++i) {
        if (i) out += ',';
        out += yamlToJson(node[i]);
      }
      out += ']';
      return out;
    }
    case YAML::NodeType::Scalar: {
      std::string const& text = node.Scalar();
      bool quoted = node.Tag() == "!";
      if (!quoted && (text == "true" || text == "false" || text == "null" || plainNumber(text))) {
        return text;
      }
      appendJsonString(out, text);
      return out;
    }
    default:
      return "null";
  }
}

std::vector<CustomProbeScenario> parseProbeScenarios(YamlReader& reader, YAML::Node const& node,
                                                     std::string const& path) {
  std::vector<CustomProbeScenario> scenarios;
  YAML::Node list = node;
  std::string list_path = path;
  if (node.IsMap()) {
    auto fields = reader.strictMap(node, path, {"scenarios"});
    if (!fields) return scenarios;
    YAML::Node const* inner = reader.require(*fields, "scenarios");
    if (inner == nullptr) return scenarios;
    list = *inner;
    list_path = fields->path("scenarios");
  }
  auto items = reader.list(list, list_path);
  if (!items) return scenarios;
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const item_path = indexPath(list_path, i);
    auto scenario = parseScenario(reader, (*items)[i], item_path);
    if (!scenario) continue;
    bool duplicate = false;
    for (auto const& seen : scenarios) duplicate = duplicate || seen.name == scenario->name;
    if (duplicate) {
      reader.fail(item_path, "duplicate scenario name \"" + scenario->name + "\"");
      continue;
    }
    scenarios.push_back(std::move(*scenario));
  }
  return scenarios;
}

std::optional<ChannelProbes> parseChannelProbes(YamlReader& reader, YAML::Node const& node,
                                                std::string const& path, Channel const& channel) {
  auto fields = reader.strictMap(node, path,
                                 {"scenarios", "models", "protocol", "preset", "interval", "jitter"});
  if (!fields) return std::nullopt;
  ChannelProbes probes;
  if (YAML::Node const* scenarios = fields->find("scenarios")) {
    std::string const list_path = fields->path("scenarios");
    if (auto names = reader.stringList(*scenarios, list_path)) {
      if (names->empty()) reader.fail(list_path, "name at least one scenario");
      for (std::size_t i = 0; i < names->size(); ++i) {
        auto builtin = parseBuiltinProbe((*names)[i]);
        auto modality = builtin ? probeModality(*builtin) : std::nullopt;
        if (modality && !channel.media.enables(*modality)) {
          reader.fail(indexPath(list_path, i),
                      "the channel's media: does not enable " + std::string(modalityName(*modality)));
        }
      }
      probes.scenarios = std::move(*names);
    }
  }
  if (YAML::Node const* models = fields->find("models")) {
    std::string const list_path = fields->path("models");
    if (auto names = reader.stringList(*models, list_path)) {
      for (std::size_t i = 0; i < names->size(); ++i) {
        if (!channel.serves((*names)[i])) {
          reader.fail(indexPath(list_path, i),
                      "the channel does not serve model \"" + (*names)[i] + "\"");
        }
      }
      probes.models = std::move(*names);
    }
  }
  // The row's protocol: `protocol`, else the preset's. (Tracked without std::optional, which
  // GCC misreads as maybe-uninitialized here.)
  Protocol protocol = Protocol::OpenAiChat;
  bool chosen = false;
  if (YAML::Node const* node_protocol = fields->find("protocol")) {
    std::string const protocol_path = fields->path("protocol");
    if (auto parsed = readProtocol(reader, *node_protocol, protocol_path)) {
      if (channel.rowFor(*parsed) == nullptr) {
        reader.fail(protocol_path, "the channel has no " + std::string(protocolName(*parsed)) + " row");
      } else {
        protocol = *parsed;
        chosen = true;
      }
    }
  }
  if (YAML::Node const* preset = fields->find("preset")) {
    std::string const preset_path = fields->path("preset");
    probes.preset = presetNamed(reader, *preset, preset_path);
    if (probes.preset) {
      Protocol spoken = presetProtocol(*probes.preset);
      if (chosen && protocol != spoken) {
        reader.fail(preset_path, "the preset speaks " + std::string(protocolName(spoken)) +
                                     ", not the probes' protocol");
      } else if (channel.rowFor(spoken) == nullptr) {
        reader.fail(preset_path, "the channel has no " + std::string(protocolName(spoken)) +
                                     " row for this preset");
      } else {
        protocol = spoken;
        chosen = true;
      }
    }
  }
  if (chosen) {
    for (std::size_t i = 0; i < channel.rows.size(); ++i) {
      if (channel.rows[i].protocol == protocol && !channel.rows[i].preset_only) {
        probes.row = i;
        break;
      }
    }
  }
  if (YAML::Node const* interval = fields->find("interval")) {
    probes.interval = duration(reader, *interval, fields->path("interval"));
  }
  if (YAML::Node const* jitter = fields->find("jitter")) {
    if (!fields->find("interval")) {
      reader.fail(fields->path("jitter"), "only applies with an interval");
    } else if (auto value = duration(reader, *jitter, fields->path("jitter"))) {
      probes.jitter = *value;
    }
  }
  return probes;
}

void readProbeSettings(YamlReader& reader, Fields const& root, Settings& settings) {
  if (YAML::Node const* node = root.find("probes")) {
    std::string const path = root.path("probes");
    if (auto fields = reader.strictMap(*node, path, {"max_concurrent", "max_per_hour", "scenarios_file"})) {
      if (YAML::Node const* value = fields->find("max_concurrent")) {
        if (auto n = reader.integer(*value, fields->path("max_concurrent"), 1, 1000)) {
          settings.probes.max_concurrent = static_cast<unsigned>(*n);
        }
      }
      if (YAML::Node const* value = fields->find("max_per_hour")) {
        if (auto n = reader.integer(*value, fields->path("max_per_hour"), 1, 1'000'000)) {
          settings.probes.max_per_hour = static_cast<unsigned>(*n);
        }
      }
      if (YAML::Node const* value = fields->find("scenarios_file")) {
        std::string const file_path = fields->path("scenarios_file");
        if (auto file = reader.nonEmptyString(*value, file_path)) {
          settings.probes.scenarios_file = *file;
          readScenariosFile(reader, *file, file_path, settings.probes);
        }
      }
    }
  }
  // Every channel's scenario names: built-in, or defined in the scenarios file for a protocol the
  // channel speaks in its probes' row.
  for (std::size_t c = 0; c < settings.channels.size(); ++c) {
    Channel const& channel = settings.channels[c];
    if (!channel.probes) continue;
    std::string const list_path = fieldPath(fieldPath(indexPath("channels", c), "probes"), "scenarios");
    for (std::size_t i = 0; i < channel.probes->scenarios.size(); ++i) {
      std::string const& name = channel.probes->scenarios[i];
      if (parseBuiltinProbe(name)) continue;
      CustomProbeScenario const* custom = settings.probes.customNamed(name);
      if (custom == nullptr) {
        reader.fail(indexPath(list_path, i), "unknown scenario \"" + name + "\" (expected " +
                                                 builtinNames() + " or one of probes.scenarios_file)");
      } else if (channel.rowFor(custom->protocol) == nullptr) {
        reader.fail(indexPath(list_path, i), "scenario \"" + name + "\" speaks " +
                                                 std::string(protocolName(custom->protocol)) +
                                                 ", which the channel has no row for");
      }
    }
  }
}

}  // namespace llmux::config::detail

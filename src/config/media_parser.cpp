#include "config/media_parser.h"

#include <array>
#include <optional>
#include <vector>

#include "config/row_paths_parser.h"

namespace llmux::config::detail {
namespace {

constexpr std::array<Modality, kModalityCount> kModalities = {
    Modality::Images, Modality::Videos, Modality::Speech, Modality::Transcriptions,
    Modality::Embeddings};

/// `path:` or `edits_path:` of a modality's mapping into `target`, when present and valid.
void readMediaPath(YamlReader& reader, Fields const& fields, std::string_view key,
                   std::string& target) {
  YAML::Node const* node = fields.find(key);
  if (node == nullptr) return;
  std::string const path = fields.path(key);
  auto text = reader.string(*node, path);
  if (!text) return;
  if (std::string problem = upstreamPathProblem(*text, false); !problem.empty()) {
    reader.fail(path, std::move(problem));
    return;
  }
  target = std::move(*text);
}

/// One modality: `true`, `false`, or a mapping of its paths (enabled unless `enabled: false`).
MediaEndpoint readEndpoint(YamlReader& reader, YAML::Node const& node, std::string const& path,
                           Modality modality) {
  MediaEndpoint endpoint;
  bool const images = modality == Modality::Images;
  if (!node.IsMap()) {
    // Read quietly, so a bad value gets one message naming both forms.
    std::vector<ConfigIssue> ignored;
    YamlReader quiet(ignored);
    if (auto on = quiet.boolean(node, path)) {
      endpoint.enabled = *on;
    } else {
      reader.fail(path, images ? "expected true, false or a mapping of enabled, path, edits_path"
                               : "expected true, false or a mapping of enabled, path");
    }
    return endpoint;
  }
  auto fields = images ? reader.strictMap(node, path, {"enabled", "path", "edits_path"})
                       : reader.strictMap(node, path, {"enabled", "path"});
  if (!fields) return endpoint;
  endpoint.enabled = true;
  if (YAML::Node const* on = fields->find("enabled")) {
    if (auto value = reader.boolean(*on, fields->path("enabled"))) endpoint.enabled = *value;
  }
  readMediaPath(reader, *fields, "path", endpoint.path);
  if (images) readMediaPath(reader, *fields, "edits_path", endpoint.edits_path);
  return endpoint;
}

/// The row media requests go to: the media endpoints are OpenAI's API, so an openai-chat row,
/// else an openai-responses one. Never a preset's row: it is the first row's address spoken in
/// the preset's protocol, not an endpoint the operator named.
std::optional<std::size_t> mediaRow(Channel const& channel) {
  for (Protocol wanted : {Protocol::OpenAiChat, Protocol::OpenAiResponses}) {
    for (std::size_t i = 0; i < channel.rows.size(); ++i) {
      if (!channel.rows[i].preset_only && channel.rows[i].protocol == wanted) return i;
    }
  }
  return std::nullopt;
}

/// "anthropic, gemini": the protocols of the channel's written rows, for the message.
std::string spokenProtocols(Channel const& channel) {
  std::string out;
  for (ProtocolRow const& row : channel.rows) {
    if (row.preset_only) continue;
    if (!out.empty()) out += ", ";
    out += protocolName(row.protocol);
  }
  return out;
}

}  // namespace

void readMedia(YamlReader& reader, Fields const& fields, Channel& channel) {
  YAML::Node const* node = fields.find("media");
  if (node == nullptr) return;
  std::string const path = fields.path("media");
  auto entries = reader.strictMap(*node, path,
                                  {"images", "videos", "speech", "transcriptions", "embeddings"});
  if (!entries) return;
  for (Modality modality : kModalities) {
    std::string_view const key = modalityName(modality);
    if (YAML::Node const* value = entries->find(key)) {
      channel.media[modality] = readEndpoint(reader, *value, entries->path(key), modality);
    }
  }
  if (!channel.media.any() || channel.rows.empty()) return;  // no rows: reported already
  if (auto row = mediaRow(channel)) {
    channel.media.row = *row;
    return;
  }
  reader.fail(path, "the media endpoints are OpenAI's API: they need an openai-chat or "
                    "openai-responses row (this channel speaks " + spokenProtocols(channel) +
                        "; add one with protocols:)");
}

}  // namespace llmux::config::detail

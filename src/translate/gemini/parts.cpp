#include "translate/gemini/parts.h"

#include <boost/json/serialize.hpp>

#include "core/strings.h"
#include "translate/gemini/common.h"

namespace llmux::translate::gemini::detail {

namespace json = boost::json;

std::string_view partSignature(json::object const& part) {
  return stringMember(part, "thoughtSignature", "thought_signature").value_or("");
}

bool needsForeignCallSignature(std::string_view model) {
  int major = geminiMajorVersion(model);
  return major == 0 || major >= 3;
}

bool isGeminiFileUri(std::string_view uri) {
  return uri.starts_with("gs://") ||
         uri.starts_with("https://generativelanguage.googleapis.com/") ||
         uri.starts_with("files/");
}

std::string guessMediaType(std::string_view data, std::string_view url) {
  if (!data.empty()) {
    if (data.starts_with("iVBOR")) return "image/png";
    if (data.starts_with("/9j/")) return "image/jpeg";
    if (data.starts_with("R0lGOD")) return "image/gif";
    if (data.starts_with("UklGR")) return "image/webp";
    if (data.starts_with("JVBER")) return "application/pdf";
    return "";
  }
  std::string_view path = url;
  if (auto q = path.find_first_of("?#"); q != std::string_view::npos) path = path.substr(0, q);
  auto dot = path.rfind('.');
  if (dot == std::string_view::npos || path.find('/', dot) != std::string_view::npos) return "";
  std::string ext = toLower(path.substr(dot + 1));
  if (ext == "png") return "image/png";
  if (ext == "jpg" || ext == "jpeg") return "image/jpeg";
  if (ext == "gif") return "image/gif";
  if (ext == "webp") return "image/webp";
  if (ext == "heic") return "image/heic";
  if (ext == "pdf") return "application/pdf";
  if (ext == "txt") return "text/plain";
  if (ext == "mp3") return "audio/mp3";
  if (ext == "wav") return "audio/wav";
  if (ext == "mp4") return "video/mp4";
  return "";
}

std::optional<std::pair<std::string, std::string>> splitDataUrl(std::string_view url) {
  if (!url.starts_with("data:")) return std::nullopt;
  auto comma = url.find(',');
  if (comma == std::string_view::npos) return std::nullopt;
  std::string_view head = url.substr(5, comma - 5);
  if (!head.ends_with(";base64")) return std::nullopt;
  head.remove_suffix(7);
  return std::make_pair(std::string(head), std::string(url.substr(comma + 1)));
}

std::optional<Result<Block>> mediaBlock(json::object const& part) {
  json::object const* inline_data = objectMember(part, "inlineData", "inline_data");
  json::object const* file_data = objectMember(part, "fileData", "file_data");
  if (!inline_data && !file_data) return std::nullopt;
  Block block;
  if (inline_data) {
    block.media_type = std::string(stringMember(*inline_data, "mimeType", "mime_type").value_or(""));
    auto data = stringMember(*inline_data, "data", "");
    if (!data || data->empty()) {
      return Result<Block>(
          makeError(ErrorKind::InvalidRequest, "inlineData.data must be a non-empty string"));
    }
    block.data = std::string(*data);
    if (block.media_type.empty()) block.media_type = guessMediaType(block.data, "");
  } else {
    block.media_type = std::string(stringMember(*file_data, "mimeType", "mime_type").value_or(""));
    auto uri = stringMember(*file_data, "fileUri", "file_uri");
    if (!uri || uri->empty()) {
      return Result<Block>(
          makeError(ErrorKind::InvalidRequest, "fileData.fileUri must be a non-empty string"));
    }
    if (isGeminiFileUri(*uri)) {
      block.file_id = std::string(*uri);
      block.file_origin = Protocol::Gemini;
    } else {
      block.url = std::string(*uri);
    }
    if (block.media_type.empty()) block.media_type = guessMediaType("", *uri);
  }
  block.type = block.media_type.starts_with("image/") || block.media_type.empty()
                   ? BlockType::Image
                   : BlockType::Document;
  std::string_view signature = partSignature(part);
  if (!signature.empty()) {
    block.signature = std::string(signature);
    block.signature_origin = Protocol::Gemini;
  }
  return Result<Block>(std::move(block));
}

namespace {

/// The text a result value stands for: strings as they are, anything else as JSON.
std::string resultText(json::value const& value) {
  if (value.is_string()) return std::string(value.get_string());
  return json::serialize(value);
}

}  // namespace

Result<Block> toolResultBlock(json::object const& function_response) {
  Block block;
  block.type = BlockType::ToolResult;
  auto name = stringMember(function_response, "name", "");
  if (!name || name->empty()) {
    return makeError(ErrorKind::InvalidRequest, "functionResponse.name must be a non-empty string");
  }
  block.name = std::string(*name);
  block.id = std::string(stringMember(function_response, "id", "").value_or(""));
  json::value const* response = function_response.if_contains("response");
  std::string text;
  if (response == nullptr || response->is_null()) {
    text = "";
  } else if (response->is_object()) {
    json::object const& object = response->get_object();
    if (object.size() == 1) {
      auto const& only = *object.begin();
      std::string_view key = only.key();
      if (key == "error") {
        block.is_error = true;
        text = resultText(only.value());
      } else if (key == "output" || key == "result" || key == "content" ||
                 key == "return_value") {
        text = resultText(only.value());
      } else {
        text = json::serialize(*response);
      }
    } else if (object.contains("error") && !object.contains("output")) {
      block.is_error = true;
      text = json::serialize(*response);
    } else {
      text = json::serialize(*response);
    }
  } else {
    text = resultText(*response);
  }
  if (!text.empty()) {
    Block content;
    content.type = BlockType::Text;
    content.text = std::move(text);
    block.content.push_back(std::move(content));
  }
  // Gemini 3 multimodal function responses carry media in functionResponse.parts.
  if (json::array const* parts = arrayMember(function_response, "parts", "")) {
    for (auto const& p : *parts) {
      if (!p.is_object()) continue;
      if (auto media = mediaBlock(p.get_object())) {
        if (!media->ok()) return media->takeError();
        block.content.push_back(std::move(media->value()));
      }
    }
  }
  return block;
}

bool appendMediaMember(std::string& out, Block const& block) {
  std::string media_type = block.media_type;
  if (!block.data.empty()) {
    if (media_type.empty()) media_type = guessMediaType(block.data, "");
    if (media_type.empty()) {
      media_type = block.type == BlockType::Document ? "application/pdf" : "image/png";
    }
    out += "\"inlineData\":{\"mimeType\":";
    appendJsonText(out, media_type);
    out += ",\"data\":";
    appendJsonText(out, block.data);
    out += '}';
    return true;
  }
  std::string_view uri = block.url;
  if (uri.empty() && isGeminiFileUri(block.file_id)) uri = block.file_id;
  if (uri.empty()) return false;
  if (auto data_url = splitDataUrl(uri)) {
    Block inline_block = block;
    inline_block.url.clear();
    inline_block.media_type = data_url->first.empty() ? media_type : data_url->first;
    inline_block.data = std::move(data_url->second);
    return appendMediaMember(out, inline_block);
  }
  if (media_type.empty()) media_type = guessMediaType("", uri);
  if (media_type.empty()) {
    media_type = block.type == BlockType::Document ? "application/pdf" : "image/jpeg";
  }
  out += "\"fileData\":{\"mimeType\":";
  appendJsonText(out, media_type);
  out += ",\"fileUri\":";
  appendJsonText(out, uri);
  out += '}';
  return true;
}

void appendTextPart(std::string& out, std::string_view text, bool thought,
                    std::string_view signature) {
  out += "{\"text\":";
  appendJsonText(out, text);
  if (thought) out += ",\"thought\":true";
  if (!signature.empty()) {
    out += ",\"thoughtSignature\":";
    appendJsonText(out, signature);
  }
  out += '}';
}

void appendCallPart(std::string& out, std::string_view name, std::string_view args_object,
                    std::string_view id, std::string_view signature) {
  out += "{\"functionCall\":{\"name\":";
  appendJsonText(out, name);
  out += ",\"args\":";
  out += args_object;
  if (!id.empty()) {
    out += ",\"id\":";
    appendJsonText(out, id);
  }
  out += '}';
  if (!signature.empty()) {
    out += ",\"thoughtSignature\":";
    appendJsonText(out, signature);
  }
  out += '}';
}

std::string_view geminiSignature(Block const& block) {
  if (block.signature_origin != Protocol::Gemini) return {};
  return block.signature;
}

}  // namespace llmux::translate::gemini::detail

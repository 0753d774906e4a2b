#include "translate/tool_names.h"

#include <cstdint>
#include <unordered_set>

namespace llmux::translate {
namespace {

bool isAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool allowedChar(char c, Protocol target) {
  if (isAlnum(c) || c == '_' || c == '-') return true;
  return target == Protocol::Gemini && (c == '.' || c == ':');
}

/// Gemini names start with a letter or an underscore.
bool startsGeminiName(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

std::size_t maxLength(Protocol target) {
  return target == Protocol::Anthropic ? 128 : 64;
}

/// 8 hex digits of a 64-bit FNV-1a hash of `text` and `salt`.
std::string shortHash(std::string_view text, unsigned salt) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  for (char c : text) mix(static_cast<unsigned char>(c));
  for (unsigned s = salt; s != 0; s >>= 8) mix(static_cast<unsigned char>(s & 0xff));
  auto folded = static_cast<std::uint32_t>(h ^ (h >> 32));
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(8, '0');
  for (int i = 7; i >= 0; --i, folded >>= 4) out[static_cast<std::size_t>(i)] = kHex[folded & 0xf];
  return out;
}

/// The name's characters the target accepts (others become '_'), cut so that "_" + the hash
/// still fits; Gemini names must not start with a digit or a dash.
std::string sanitisedPrefix(std::string_view name, Protocol target) {
  std::size_t room = maxLength(target) - 9;
  std::string out;
  if (target == Protocol::Gemini && (name.empty() || !startsGeminiName(name[0]))) {
    out.push_back('_');
  }
  for (char c : name) {
    if (out.size() == room) break;
    out.push_back(allowedChar(c, target) ? c : '_');
  }
  return out;
}

template <class F>
void forEachName(Request const& request, F&& f) {
  for (ToolSpec const& t : request.tools) f(t.name);
  if (request.tool_choice && request.tool_choice->mode == ToolChoiceMode::Named) {
    f(request.tool_choice->name);
  }
  for (Message const& m : request.messages) {
    for (Block const& b : m.blocks) {
      if (b.type == BlockType::ToolCall || b.type == BlockType::ToolResult) f(b.name);
    }
  }
}

void rename(std::string& name, ToolNameMap const& map) {
  std::string_view upstream = map.upstream(name);
  if (upstream.data() != name.data()) name = std::string(upstream);
}

}  // namespace

std::string_view ToolNameMap::upstream(std::string_view name) const {
  for (auto const& [original, sent] : renames_) {
    if (original == name) return sent;
  }
  return name;
}

std::string_view ToolNameMap::original(std::string_view name) const {
  for (auto const& [original, sent] : renames_) {
    if (sent == name) return original;
  }
  return name;
}

void ToolNameMap::add(std::string original, std::string upstream) {
  renames_.emplace_back(std::move(original), std::move(upstream));
}

bool validToolName(std::string_view name, Protocol target) {
  if (name.empty() || name.size() > maxLength(target)) return false;
  if (target == Protocol::Gemini && !startsGeminiName(name[0])) return false;
  for (char c : name) {
    if (!allowedChar(c, target)) return false;
  }
  return true;
}

ToolNameMap planToolNames(Request const& request, Protocol target) {
  ToolNameMap map;
  bool any_invalid = false;
  forEachName(request, [&](std::string const& name) {
    any_invalid = any_invalid || (!name.empty() && !validToolName(name, target));
  });
  if (!any_invalid) return map;

  // Every valid name is taken, so that a new name can never be mistaken for another tool.
  std::unordered_set<std::string> taken;
  forEachName(request, [&](std::string const& name) {
    if (validToolName(name, target)) taken.insert(name);
  });
  forEachName(request, [&](std::string const& name) {
    if (name.empty() || validToolName(name, target)) return;
    if (map.upstream(name).data() != name.data()) return;  // renamed already
    std::string prefix = sanitisedPrefix(name, target);
    std::string candidate;
    for (unsigned salt = 0;; ++salt) {
      candidate = prefix + "_" + shortHash(name, salt);
      if (taken.insert(candidate).second) break;
    }
    map.add(name, std::move(candidate));
  });
  return map;
}

void applyToolNames(Request& request, ToolNameMap const& map) {
  if (map.empty()) return;
  for (ToolSpec& t : request.tools) rename(t.name, map);
  if (request.tool_choice) rename(request.tool_choice->name, map);
  for (Message& m : request.messages) {
    for (Block& b : m.blocks) {
      if (b.type == BlockType::ToolCall || b.type == BlockType::ToolResult) rename(b.name, map);
    }
  }
}

ToolNameMap rewriteToolNames(Request& request, Protocol target) {
  ToolNameMap map = planToolNames(request, target);
  applyToolNames(request, map);
  return map;
}

void restoreToolNames(Response& response, ToolNameMap const& map) {
  if (map.empty()) return;
  for (Block& b : response.content) {
    if (b.type != BlockType::ToolCall) continue;
    std::string_view original = map.original(b.name);
    if (original.data() != b.name.data()) b.name = std::string(original);
  }
}

void restoreToolNames(Event& event, ToolNameMap const& map) {
  if (map.empty() || event.type != EventType::BlockStart ||
      event.block.type != BlockType::ToolCall) {
    return;
  }
  std::string_view original = map.original(event.block.name);
  if (original.data() != event.block.name.data()) event.block.name = std::string(original);
}

}  // namespace llmux::translate

#include "racing/model_family.h"

#include <algorithm>
#include <array>
#include <string>

#include "core/strings.h"

namespace llmux::racing {
namespace {

bool startsWithAny(std::string_view text, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view prefix) { return text.starts_with(prefix); });
}

bool containsAny(std::string_view text, std::initializer_list<std::string_view> parts) {
  return std::any_of(parts.begin(), parts.end(), [&](std::string_view part) {
    return text.find(part) != std::string_view::npos;
  });
}

}  // namespace

ModelFamily familyOf(std::string_view model) {
  if (auto slash = model.rfind('/'); slash != std::string_view::npos) model.remove_prefix(slash + 1);
  std::string const name = toLower(model);
  if (containsAny(name, {"claude", "sonnet", "opus", "haiku"})) return ModelFamily::Claude;
  if (startsWithAny(name, {"gpt", "chatgpt", "o1", "o3", "o4"}) || containsAny(name, {"codex"})) {
    return ModelFamily::Gpt;
  }
  if (name.starts_with("gemini")) return ModelFamily::Gemini;
  return ModelFamily::Other;
}

std::string_view familyName(ModelFamily family) {
  switch (family) {
    case ModelFamily::Claude: return "claude";
    case ModelFamily::Gpt: return "gpt";
    case ModelFamily::Gemini: return "gemini";
    case ModelFamily::Other: return "other";
  }
  return "other";
}

}  // namespace llmux::racing

#include "config/channel_keys.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <charconv>
#include <optional>

namespace llmux::config {
namespace json = boost::json;

namespace {

constexpr std::string_view kMasked = "***";

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

std::optional<std::size_t> indexOf(std::string_view text) {
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

/// The position of the key `which` names in `keys`.
std::optional<std::size_t> findKey(json::array const& keys, std::string_view channel,
                                   std::string_view which) {
  // A whole label: "<channel>#<i>" or "<channel>/<name>".
  if (which.size() > channel.size() + 1 && which.starts_with(channel) &&
      (which[channel.size()] == '#' || which[channel.size()] == '/')) {
    which.remove_prefix(channel.size() + 1);
  }
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (!keys[i].is_object()) continue;
    auto const* name = keys[i].get_object().if_contains("name");
    if (name && name->is_string() && name->get_string() == which) return i;
  }
  if (auto index = indexOf(which); index && *index < keys.size()) return index;
  return std::nullopt;
}

bool hasSecret(json::value const& key) {
  if (key.is_string()) return !key.get_string().empty() && key.get_string() != kMasked;
  if (!key.is_object()) return false;
  auto const* secret = key.get_object().if_contains("key");
  return secret && secret->is_string() && !secret->get_string().empty() && secret->get_string() != kMasked;
}

}  // namespace

Result<std::string> editChannelKey(std::string const& channel_json, std::string_view channel_name,
                                   KeyEdit edit, std::string_view which, std::string_view body) {
  boost::system::error_code ec;
  json::value channel = json::parse(channel_json, ec);
  if (ec || !channel.is_object()) return makeError(ErrorKind::Internal, "the channel's entry is not an object");
  json::value& keys_value = channel.get_object()["keys"];
  if (!keys_value.is_array()) keys_value = json::array();
  json::array& keys = keys_value.get_array();

  json::value given;
  if (edit != KeyEdit::Remove) {
    given = json::parse(body, ec);
    if (ec) return invalid("the body is not JSON");
  }
  if (edit == KeyEdit::Add) {
    if (!given.is_string() && !given.is_object()) {
      return invalid(R"(the body is a key: "sk-..." or {"key": "sk-...", "name": ...})");
    }
    if (!hasSecret(given)) return invalid("key: a new key needs its secret");
    keys.push_back(std::move(given));
    return json::serialize(channel);
  }
  auto index = findKey(keys, channel_name, which);
  if (!index) {
    return makeError(ErrorKind::NotFound, "channel \"" + std::string(channel_name) +
                                              "\" has no key \"" + std::string(which) + "\"");
  }
  if (edit == KeyEdit::Remove) {
    keys.erase(keys.begin() + static_cast<std::ptrdiff_t>(*index));
    return json::serialize(channel);
  }
  if (!given.is_object()) return invalid(R"(the body is an object of the key's members, e.g. {"enabled": false})");
  json::value& key = keys[*index];
  if (key.is_string()) key = json::object{{"key", key}};
  if (!key.is_object()) return makeError(ErrorKind::Internal, "the key's entry is neither a string nor an object");
  json::object& fields = key.get_object();
  for (auto const& [name, value] : given.get_object()) {
    if (name == "key" && value.is_string() && value.get_string() == kMasked) continue;  // kept
    if (name == "key") fields.erase("key_env");  // a new secret replaces the variable's
    fields[name] = value;
  }
  return json::serialize(channel);
}

}  // namespace llmux::config

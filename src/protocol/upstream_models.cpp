#include "protocol/upstream_models.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <charconv>

#include "protocol/percent_encoding.h"

namespace llmux::protocol {
namespace {

namespace json = boost::json;

Result<json::value> parseJson(std::string_view body) {
  boost::system::error_code ec;
  json::value value = json::parse(body, ec);
  if (ec) return makeError(ErrorKind::UpstreamStatus, "the answer is not JSON");
  return value;
}

Error notAList(std::string_view what) {
  return makeError(ErrorKind::UpstreamStatus, "the answer is not a model list (" +
                                                  std::string(what) + ")");
}

std::string_view stringAt(json::object const& object, std::string_view key) {
  auto const* value = object.if_contains(key);
  if (value == nullptr || !value->is_string()) return {};
  return value->get_string();
}

}  // namespace

Result<ModelListPage> parseModelListPage(Protocol protocol, std::string_view body) {
  auto document = parseJson(body);
  if (!document) return document.error();
  auto const* root = document->if_object();
  if (root == nullptr) return notAList("not an object");
  bool const gemini = protocol == Protocol::Gemini;
  std::string_view const list_key = gemini ? "models" : "data";
  std::string_view const id_key = gemini ? "name" : "id";
  ModelListPage page;
  auto const* list = root->if_contains(list_key);
  if (list == nullptr) {
    // Gemini leaves `models` out of an empty list.
    if (gemini) return page;
    return notAList("no data array");
  }
  if (!list->is_array()) return notAList(std::string(list_key) + " is not an array");
  for (json::value const& item : list->get_array()) {
    auto const* entry = item.if_object();
    std::string_view id = entry ? stringAt(*entry, id_key) : std::string_view();
    if (id.empty()) continue;
    if (gemini && id.starts_with("models/")) id.remove_prefix(7);
    page.ids.emplace_back(id);
  }
  if (gemini) {
    std::string_view token = stringAt(*root, "nextPageToken");
    if (!token.empty()) page.next_query = "pageToken=" + percentEncodeSegment(token);
  } else if (protocol == Protocol::Anthropic) {
    auto const* more = root->if_contains("has_more");
    std::string_view last = stringAt(*root, "last_id");
    if (more && more->is_bool() && more->get_bool() && !last.empty()) {
      page.next_query = "after_id=" + percentEncodeSegment(last);
    }
  }
  return page;
}

Result<double> numberAtPointer(std::string_view body, std::string_view pointer) {
  auto document = parseJson(body);
  if (!document) return document.error();
  boost::system::error_code ec;
  json::value const* found = document->find_pointer(pointer, ec);
  if (found == nullptr) {
    return makeError(ErrorKind::UpstreamStatus,
                     "the answer has nothing at " + std::string(pointer));
  }
  if (found->is_number()) return found->to_number<double>();
  if (found->is_string()) {
    std::string_view text = found->get_string();
    double value = 0;
    auto [end, parse_ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (parse_ec == std::errc() && end == text.data() + text.size()) return value;
  }
  return makeError(ErrorKind::UpstreamStatus,
                   "the value at " + std::string(pointer) + " is not a number");
}

Result<double> openAiBillingBalance(std::string_view subscription_body,
                                    std::string_view usage_body) {
  auto limit = numberAtPointer(subscription_body, "/hard_limit_usd");
  if (!limit) return makeError(ErrorKind::UpstreamStatus, "subscription: " + limit.error().message);
  auto used = numberAtPointer(usage_body, "/total_usage");
  if (!used) return makeError(ErrorKind::UpstreamStatus, "usage: " + used.error().message);
  return *limit - *used / 100;
}

}  // namespace llmux::protocol

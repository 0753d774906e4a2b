#include "mock/model_catalog.h"

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <charconv>

#include "core/strings.h"
#include "mock/json_writer.h"
#include "mock/mock_errors.h"
#include "mock/mock_provider.h"
#include "mock/protocol_mock.h"
#include "mock/query_param.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;

constexpr std::size_t kAnthropicDefaultLimit = 20;  // the API's default `limit`
constexpr std::size_t kGeminiDefaultPageSize = 50;  // the API's default `pageSize`
constexpr std::size_t kMaxPageSize = 1000;          // both APIs' maximum

std::size_t pageSizeParam(std::string_view query, std::string_view name, std::size_t fallback) {
  std::string_view text = queryParam(query, name);
  std::size_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || value == 0) {
    return fallback;
  }
  return std::min(value, kMaxPageSize);
}

/// "a, b ,c" -> {"a","b","c"}.
std::vector<std::string> splitNames(std::string_view text) {
  std::vector<std::string> names;
  while (!text.empty()) {
    auto comma = text.find(',');
    std::string_view name = trimSpaces(text.substr(0, comma));
    if (!name.empty()) names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return names;
}

MockReply jsonReply(int status, std::string body, Vendor vendor, IdSource& ids) {
  MockReply reply;
  setJsonBody(reply, status, std::move(body), "application/json");
  addRequestId(reply, vendor, ids);
  return reply;
}

MockReply stateReply(CatalogState const& state, IdSource& ids) {
  std::string body;
  JsonWriter w(body);
  w.beginObject();
  if (state.models) {
    w.beginArray("models");
    for (auto const& id : *state.models) w.str(id);
    w.endArray();
  } else {
    w.null("models");
  }
  if (state.page_size) {
    w.num("page_size", static_cast<std::int64_t>(*state.page_size));
  } else {
    w.null("page_size");
  }
  w.num("hard_limit_usd", state.hard_limit_usd).num("total_usage", state.total_usage_cents);
  w.num("balance", state.balance).endObject();
  return jsonReply(200, std::move(body), Vendor::OpenAi, ids);
}

}  // namespace

bool isBillingPath(std::string_view path) {
  return path.ends_with("/dashboard/billing/subscription") ||
         path.ends_with("/dashboard/billing/usage") || path == "/api/balance";
}

CatalogState ModelCatalog::snapshot() const {
  std::lock_guard lock(mutex_);
  return state_;
}

std::optional<MockReply> ModelCatalog::control(MockRequest const& request) {
  IdSource ids(hashBytes(request.body, hashBytes(request.path)));
  bool const models = request.path == "/mock/models";
  bool const balance = request.path == "/mock/balance";
  if (!models && !balance && request.path != "/mock/state") return std::nullopt;
  if (request.method == "GET") return stateReply(snapshot(), ids);
  if (request.method != "PUT" || request.path == "/mock/state") {
    return invalidRequestError(Vendor::OpenAi, ids, "use GET /mock/state, PUT /mock/models or "
                                                    "PUT /mock/balance");
  }
  boost::system::error_code ec;
  json::value document = json::parse(request.body, ec);
  if (ec || !document.is_object()) return invalidJsonError(Vendor::OpenAi, ids);
  json::object const& body = document.get_object();
  std::lock_guard lock(mutex_);
  if (models) {
    if (auto const* list = body.if_contains("models")) {
      if (list->is_null()) {
        state_.models.reset();
      } else if (list->is_array()) {
        std::vector<std::string> names;
        for (auto const& item : list->get_array()) {
          if (item.is_string()) names.emplace_back(item.get_string());
        }
        state_.models = std::move(names);
      }
    }
    if (auto const* size = body.if_contains("page_size")) {
      if (size->is_int64() && size->get_int64() > 0) {
        state_.page_size = static_cast<std::size_t>(size->get_int64());
      } else {
        state_.page_size.reset();
      }
    }
  } else {
    auto number = [&](std::string_view name, double& target) {
      if (auto const* value = body.if_contains(name); value && value->is_number()) {
        target = value->to_number<double>();
      }
    };
    number("hard_limit_usd", state_.hard_limit_usd);
    number("total_usage", state_.total_usage_cents);
    number("balance", state_.balance);
  }
  return stateReply(state_, ids);
}

MockReply ModelCatalog::list(MockRequest const& request, Protocol protocol, IdSource& ids) {
  CatalogState const state = snapshot();
  std::vector<std::string> all;
  if (auto header = request.headers.find("x-mock-models")) {
    all = splitNames(*header);
  } else {
    all = state.models ? *state.models : catalog::defaultModelIds(protocol);
  }
  std::size_t const cap = state.page_size.value_or(kMaxPageSize);
  if (protocol == Protocol::Anthropic) {
    std::size_t const limit =
        std::min(pageSizeParam(request.query, "limit", kAnthropicDefaultLimit), cap);
    std::size_t begin = 0;
    if (std::string_view after = queryParam(request.query, "after_id"); !after.empty()) {
      auto it = std::find(all.begin(), all.end(), after);
      begin = it == all.end() ? all.size() : static_cast<std::size_t>(it - all.begin()) + 1;
    }
    std::size_t const end = std::min(all.size(), begin + limit);
    return catalog::anthropicModels(std::span(all).subspan(begin, end - begin), end < all.size(),
                                    ids);
  }
  if (protocol == Protocol::Gemini) {
    std::size_t const size =
        std::min(pageSizeParam(request.query, "pageSize", kGeminiDefaultPageSize), cap);
    // The token is the index of the page's first model: opaque to the client, as Google's are.
    std::size_t begin = 0;
    std::string_view token = queryParam(request.query, "pageToken");
    if (!token.empty()) std::from_chars(token.data(), token.data() + token.size(), begin);
    begin = std::min(begin, all.size());
    std::size_t const end = std::min(all.size(), begin + size);
    std::string next = end < all.size() ? std::to_string(end) : std::string();
    return catalog::geminiModels(std::span(all).subspan(begin, end - begin), next);
  }
  return catalog::openAiModels(all, ids);
}

std::optional<MockReply> ModelCatalog::billing(MockRequest const& request, IdSource& ids) {
  if (request.method != "GET" || !isBillingPath(request.path)) return std::nullopt;
  CatalogState const state = snapshot();
  std::string body;
  JsonWriter w(body);
  if (request.path.ends_with("/subscription")) {
    w.beginObject().str("object", "billing_subscription").boolean("has_payment_method", true);
    w.num("soft_limit_usd", state.hard_limit_usd).num("hard_limit_usd", state.hard_limit_usd);
    w.num("system_hard_limit_usd", state.hard_limit_usd).num("access_until", std::int64_t{0});
    w.endObject();
  } else if (request.path.ends_with("/usage")) {
    w.beginObject().str("object", "list").num("total_usage", state.total_usage_cents).endObject();
  } else {
    w.beginObject().boolean("success", true).str("message", "").key("data").beginObject();
    w.num("balance", state.balance).str("currency", "USD").endObject().endObject();
  }
  return jsonReply(200, std::move(body), Vendor::OpenAi, ids);
}

}  // namespace llmux::mock

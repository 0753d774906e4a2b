// docs/admin-openapi.json (served at GET /admin/openapi.json) against the routes the gateway
// actually matches: every admin and console route with each of its methods, and no dangling $ref.

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cctype>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/routes.h"

namespace llmux::protocol {
namespace {

namespace json = boost::json;

json::value loadDocument() {
  std::ifstream in(LLMUX_TEST_DATA_DIR "/../../docs/admin-openapi.json");
  EXPECT_TRUE(in) << "docs/admin-openapi.json cannot be read";
  std::stringstream text;
  text << in.rdbuf();
  boost::system::error_code ec;
  json::value document = json::parse(text.str(), ec);
  EXPECT_FALSE(ec) << "docs/admin-openapi.json is not JSON: " << ec.message();
  return document;
}

/// "GET, PUT" → {"get", "put"}.
std::vector<std::string> methodsOf(std::string_view list) {
  std::vector<std::string> methods;
  std::string method;
  for (char c : list) {
    if (c == ',') {
      methods.push_back(method);
      method.clear();
    } else if (c != ' ') {
      method += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!method.empty()) methods.push_back(method);
  return methods;
}

/// The value a local reference ("#/components/schemas/Error") names, nullptr when none (the
/// document's names hold no `~` or `/` to escape).
json::value const* resolve(json::value const& document, std::string_view ref) {
  if (!ref.starts_with("#/")) return nullptr;
  json::value const* at = &document;
  std::string_view rest = ref.substr(2);
  while (at != nullptr) {
    auto slash = rest.find('/');
    json::object const* object = at->if_object();
    at = object != nullptr ? object->if_contains(rest.substr(0, slash)) : nullptr;
    if (slash == std::string_view::npos) break;
    rest = rest.substr(slash + 1);
  }
  return at;
}

/// Every "$ref" string found anywhere under `value`.
void collectRefs(json::value const& value, std::vector<std::string>& refs) {
  if (auto const* object = value.if_object()) {
    for (auto const& [key, member] : *object) {
      if (key == "$ref" && member.is_string()) refs.emplace_back(member.get_string());
      collectRefs(member, refs);
    }
  } else if (auto const* array = value.if_array()) {
    for (auto const& element : *array) collectRefs(element, refs);
  }
}

/// Every admin and console route: the kinds up to the last one (RouteKind keeps ConsoleSession
/// last), so a route added later is checked without being listed here.
std::vector<RouteKind> adminAndConsoleRoutes() {
  std::vector<RouteKind> kinds;
  for (int k = 0; k <= static_cast<int>(RouteKind::ConsoleSession); ++k) {
    auto kind = static_cast<RouteKind>(k);
    if (isAdminRoute(kind) || isConsoleRoute(kind)) kinds.push_back(kind);
  }
  return kinds;
}

TEST(AdminOpenApiTest, IsOpenApi31) {
  json::value document = loadDocument();
  ASSERT_TRUE(document.is_object());
  json::value const* version = document.get_object().if_contains("openapi");
  ASSERT_NE(version, nullptr);
  ASSERT_TRUE(version->is_string());
  EXPECT_EQ(version->get_string(), "3.1.0");
}

TEST(AdminOpenApiTest, DescribesEveryAdminAndConsoleRouteWithItsMethods) {
  json::value document = loadDocument();
  ASSERT_TRUE(document.is_object());
  json::object const* paths = document.get_object().at("paths").if_object();
  ASSERT_NE(paths, nullptr);
  auto const kinds = adminAndConsoleRoutes();
  ASSERT_GE(kinds.size(), 31u);
  for (RouteKind kind : kinds) {
    std::string path(routeLabel(Route{kind}));
    json::value const* item = paths->if_contains(path);
    ASSERT_NE(item, nullptr) << "no path " << path;
    ASSERT_TRUE(item->is_object()) << path;
    for (std::string const& method : methodsOf(routeMethod(kind))) {
      EXPECT_TRUE(item->get_object().contains(method)) << path << " lacks " << method;
    }
  }
}

TEST(AdminOpenApiTest, EveryReferenceResolvesToAComponent) {
  json::value document = loadDocument();
  std::vector<std::string> refs;
  collectRefs(document, refs);
  EXPECT_FALSE(refs.empty());
  for (std::string const& ref : refs) {
    EXPECT_TRUE(ref.starts_with("#/components/")) << ref;
    EXPECT_NE(resolve(document, ref), nullptr) << "dangling " << ref;
  }
}

}  // namespace
}  // namespace llmux::protocol

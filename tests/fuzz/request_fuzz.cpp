// The request path end to end on arbitrary input: route, inspect, splice, upstream path and the
// client key helpers must never crash, and a spliced body must stay valid JSON with the new model.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "protocol/client_auth.h"
#include "protocol/inspect.h"
#include "protocol/json_scan.h"
#include "protocol/model_splice.h"
#include "protocol/upstream_path.h"

using namespace llmux::protocol;

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view input(reinterpret_cast<char const*>(data), size);
  // First line: a path (and query); the rest: the body.
  auto newline = input.find('\n');
  std::string_view target = input.substr(0, newline);
  std::string_view body =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);
  std::string_view path = target.substr(0, target.find('?'));
  std::string_view query =
      path.size() < target.size() ? target.substr(path.size() + 1) : std::string_view();

  std::string rest = queryWithoutClientKey(query);
  if (rest.size() > query.size()) std::abort();
  if (findClientKey({}, rest).has_value()) std::abort();  // no key survives the stripping

  RouteLookup lookup = matchRoute("POST", path);
  if (lookup.match != RouteMatch::Found) return 0;
  (void)upstreamPath("/prefix/v1", lookup.route, lookup.route.gemini_model);
  auto profile = inspectRequest(lookup.route, body);
  if (!profile.ok()) return 0;
  SplicedBody spliced = spliceModel(body, *profile, "fuzz-\"model\"");
  std::string out = spliced.joined();
  if (profile->model_end != 0) {
    auto again = inspectRequest(lookup.route, out);
    if (!again.ok() || again->model != "fuzz-\"model\"" || again->stream != profile->stream)
      std::abort();
  } else if (out != body) {
    std::abort();
  }
  return 0;
}

#include "http/server_request.h"

namespace llmux::http {

std::string_view ServerRequest::path() const {
  std::string_view t = target;
  return t.substr(0, t.find('?'));
}

std::string_view ServerRequest::query() const {
  std::string_view t = target;
  auto q = t.find('?');
  return q == std::string_view::npos ? std::string_view() : t.substr(q + 1);
}

}  // namespace llmux::http

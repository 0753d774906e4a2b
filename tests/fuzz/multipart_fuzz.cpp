// multipart/form-data from a client: the first line is the Content-Type value, the rest the body.
// Whatever the parser accepts must view the body, stay within its limits and survive a round
// trip: the parts written again with the same boundary parse back to the same parts.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "protocol/multipart.h"

using llmux::protocol::MultipartLimits;
using llmux::protocol::MultipartPart;

namespace {

void check(bool condition) {
  if (!condition) std::abort();
}

bool inside(std::string_view part, std::string_view whole) {
  return part.empty() ||
         (part.data() >= whole.data() && part.data() + part.size() <= whole.data() + whole.size());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  std::string_view input(reinterpret_cast<char const*>(data), size);
  std::size_t newline = input.find('\n');
  std::string_view content_type = input.substr(0, newline);
  std::string_view body = newline == std::string_view::npos ? "" : input.substr(newline + 1);

  auto boundary = llmux::protocol::multipartBoundary(content_type);
  if (!boundary) return 0;
  check(!boundary->empty() && boundary->size() <= 70);
  MultipartLimits limits;
  limits.max_parts = 64;
  limits.max_part_head_bytes = 1024;
  auto parts = llmux::protocol::parseMultipart(body, *boundary, limits);
  if (!parts) return 0;
  check(parts->size() <= limits.max_parts);
  std::string again;
  for (MultipartPart const& part : *parts) {
    check(inside(part.body, body) && inside(part.content_type, body));
    llmux::protocol::appendMultipartPart(again, *boundary, part.name, part.body, part.is_file,
                                         part.filename, part.content_type);
  }
  llmux::protocol::closeMultipart(again, *boundary);
  // Written headers may be longer than the ones read (escapes): give them room.
  limits.max_part_head_bytes = 4 * 1024 + 64;
  auto reread = llmux::protocol::parseMultipart(again, *boundary, limits);
  check(reread && reread->size() == parts->size());
  for (std::size_t i = 0; i < parts->size(); ++i) {
    MultipartPart const& a = (*parts)[i];
    MultipartPart const& b = (*reread)[i];
    check(a.name == b.name && a.filename == b.filename && a.is_file == b.is_file &&
          a.content_type == b.content_type && a.body == b.body);
  }
  return 0;
}

#pragma once

// Writing the content blocks of an Anthropic request: text, media sources, tool calls and
// results, signed thinking, cache breakpoints.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "translate/anthropic/json_out.h"
#include "translate/neutral.h"

namespace llmux::translate::anthropic {

/// A block's inline media: its media type (given, taken from a data: URL, or recognised from the
/// first bytes) and base64 data.
struct Inline {
  std::string_view media_type;
  std::string_view data;
};
std::optional<Inline> inlineData(Block const& b);

/// Documents Anthropic takes: PDF (base64 or URL) and plain text (sent as a text source).
bool sendableDocument(Block const& b);

/// Appends request content blocks to a body. Writes cache_control on marked blocks except the
/// first `cache_skip` ones (Anthropic takes at most four breakpoints); what it cannot write is
/// named in `dropped`.
class BodyWriter {
 public:
  BodyWriter(std::string& body, std::vector<std::string>& dropped, int cache_skip)
      : out_(body), dropped_(dropped), cache_skip_(cache_skip) {}

  JsonOut& out() { return out_; }

  void block(Block const& b);
  void text(Block const& b);

 private:
  void cacheControl(Block const& b);
  bool image(Block const& b);
  bool document(Block const& b);
  void toolResult(Block const& b);

  JsonOut out_;
  std::vector<std::string>& dropped_;
  int cache_skip_;
};

}  // namespace llmux::translate::anthropic

#include "proxy/secret_redactor.h"

#include <algorithm>

#include "protocol/percent_encoding.h"

namespace llmux::proxy {
namespace {

std::string lowerHexEscapes(std::string text) {
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] != '%') continue;
    for (std::size_t j = i + 1; j <= i + 2; ++j) {
      if (text[j] >= 'A' && text[j] <= 'F') text[j] = static_cast<char>(text[j] - 'A' + 'a');
    }
  }
  return text;
}

std::string jsonEscapedSlashes(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '/') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

SecretRedactor::SecretRedactor(std::string_view secret) {
  if (secret.size() < kMinRedactedBytes) return;
  std::string encoded = protocol::percentEncodeSegment(secret);
  for (std::string form : {std::string(secret), encoded, lowerHexEscapes(encoded),
                           jsonEscapedSlashes(secret)}) {
    if (std::find(forms_.begin(), forms_.end(), form) == forms_.end()) forms_.push_back(form);
  }
  // Longest first: an encoded form may contain the plain one's prefix, never the reverse.
  std::sort(forms_.begin(), forms_.end(),
            [](std::string const& a, std::string const& b) { return a.size() > b.size(); });
}

bool SecretRedactor::redact(std::string& text) const {
  bool changed = false;
  for (auto const& form : forms_) {
    for (auto at = text.find(form); at != std::string::npos; at = text.find(form, at)) {
      text.replace(at, form.size(), kMask);
      at += kMask.size();
      changed = true;
    }
  }
  return changed;
}

HeaderList SecretRedactor::redacted(HeaderList const& headers) const {
  if (forms_.empty()) return headers;
  HeaderList out;
  out.reserve(headers.size(), 512);
  for (auto const& field : headers) {
    std::string value(field.value);
    redact(value);
    out.add(field.name, value);
  }
  return out;
}

}  // namespace llmux::proxy

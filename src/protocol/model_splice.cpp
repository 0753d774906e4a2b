#include "protocol/model_splice.h"

#include <cassert>

#include "core/json_text.h"

namespace llmux::protocol {

std::string SplicedBody::joined() const {
  std::string out;
  out.reserve(size());
  out.append(before).append(model_token).append(after);
  return out;
}

SplicedBody spliceModel(std::string_view body, RequestProfile const& profile,
                        std::string_view upstream_model) {
  bool in_body = profile.model_end != 0;
  if (!in_body || upstream_model == profile.model) return SplicedBody{body, {}, {}};
  bool span_ok = profile.model_begin < profile.model_end && profile.model_end <= body.size();
  assert(span_ok && "profile was not made from this body");
  if (!span_ok) return SplicedBody{body, {}, {}};  // never throw from substr on the data plane
  std::string token = profile.model_raw ? std::string(upstream_model) : jsonQuote(upstream_model);
  return SplicedBody{body.substr(0, profile.model_begin), std::move(token),
                     body.substr(profile.model_end)};
}

}  // namespace llmux::protocol

#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "protocol/inspect.h"

namespace llmux::protocol {

/// A request body with its model value replaced, as three pieces to write one after the other
/// (scatter/gather) so the body itself is never copied. `before` and `after` view the original
/// body, which must outlive this.
struct SplicedBody {
  std::string_view before;
  /// The new model as a JSON string literal (as written for a form field: RequestProfile::model_raw);
  /// "" when nothing changed.
  std::string model_token;
  std::string_view after;

  std::size_t size() const { return before.size() + model_token.size() + after.size(); }
  /// The pieces joined (a copy: for tests and writers without scatter/gather).
  std::string joined() const;
};

/// Replaces the model token located by `profile` with `upstream_model`. When the model is not in
/// the body (Gemini) or keeps its name, the body is returned whole in `before` and the bytes sent
/// upstream are exactly the client's.
SplicedBody spliceModel(std::string_view body, RequestProfile const& profile,
                        std::string_view upstream_model);

}  // namespace llmux::protocol

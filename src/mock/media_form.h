#pragma once

// The fields of a request to OpenAI's media endpoints, read the same way whether the client sent
// JSON or a multipart form, and the checks the API makes on them (with its wording).

#include <boost/json/object.hpp>
#include <boost/json/storage_ptr.hpp>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "mock/mock_ids.h"
#include "mock/mock_provider.h"
#include "mock/openai_param_errors.h"
#include "protocol/multipart.h"

namespace llmux::mock {

/// How an endpoint takes its body.
enum class BodyKind {
  Json,             ///< a JSON object (embeddings, image generations, speech)
  Multipart,        ///< multipart/form-data (image edits, transcriptions)
  JsonOrMultipart,  ///< either, as the Content-Type says (video jobs)
};

/// A media request's fields. From a form, text fields become JSON strings (a field sent several
/// times, or named `name[]`, becomes an array of them under `name`) and files are kept aside.
struct MediaForm {
  boost::json::object fields;
  std::vector<protocol::MultipartPart> files;  ///< views into the request body
  bool multipart = false;

  /// The files sent as `name` or `name[]`, in order.
  std::vector<protocol::MultipartPart const*> filesNamed(std::string_view name) const;
};

/// Reads `request`'s body as `kind` says into `form` (its fields allocated from `storage`). A
/// refusal in OpenAI's words when the body is not what the endpoint takes: a multipart body sent
/// to a JSON endpoint or the other way round, invalid JSON, a broken form.
std::optional<MockReply> readForm(MockRequest const& request, BodyKind kind,
                                  boost::json::storage_ptr storage, MediaForm& form, IdSource& ids);

// Field readers: each leaves `out` untouched when the field is absent or null and returns
// OpenAI's refusal when its type or value is wrong. Form fields are text, so numbers and booleans
// are read from it.

/// A required, non-empty string.
std::optional<MockReply> readRequiredText(MediaForm const& form, std::string_view name,
                                          std::string_view& out, IdSource& ids);
/// An optional string.
std::optional<MockReply> readText(MediaForm const& form, std::string_view name,
                                  std::string_view& out, IdSource& ids);
/// An integer within [min, max].
std::optional<MockReply> readInteger(MediaForm const& form, std::string_view name, std::int64_t min,
                                     std::int64_t max, std::int64_t& out, IdSource& ids);
/// A number within [min, max].
std::optional<MockReply> readDecimal(MediaForm const& form, std::string_view name, double min,
                                     double max, double& out, IdSource& ids);
/// One of `supported`.
std::optional<MockReply> readChoice(MediaForm const& form, std::string_view name,
                                    openai::Choices supported, std::string_view& out,
                                    IdSource& ids);
/// A boolean ("true" / "false" in a form).
std::optional<MockReply> readBool(MediaForm const& form, std::string_view name, bool& out,
                                  IdSource& ids);

}  // namespace llmux::mock

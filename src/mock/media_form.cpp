#include "mock/media_form.h"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/strings.h"
#include "mock/json_writer.h"
#include "mock/mock_errors.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;

constexpr std::size_t kShownTypeBytes = 100;  // a Content-Type quoted back stays short

/// The Content-Type's media type, parameters left out.
std::string_view mediaType(HeaderList const& headers) {
  std::string_view value = headers.get("content-type");
  return trimSpaces(value.substr(0, value.find(';'))).substr(0, kShownTypeBytes);
}

bool isMultipartType(std::string_view type) {
  return type.size() >= 10 && equalsIgnoreCase(type.substr(0, 10), "multipart/");
}

/// The field's value unless it is absent or null.
json::value const* present(MediaForm const& form, std::string_view name) {
  json::value const* value = form.fields.if_contains(name);
  return value != nullptr && !value->is_null() ? value : nullptr;
}

/// Adds a form's text field; repeated names (or `name[]`) gather into an array.
void addTextField(json::object& fields, std::string_view name, std::string_view text,
                  json::storage_ptr const& storage) {
  bool listed = name.ends_with("[]");
  if (listed) name.remove_suffix(2);
  json::value value(json::string_view(text.data(), text.size()), storage);
  json::value* existing = fields.if_contains(name);
  if (existing == nullptr) {
    if (listed) {
      json::array list(storage);
      list.push_back(std::move(value));
      fields.emplace(name, std::move(list));
    } else {
      fields.emplace(name, std::move(value));
    }
  } else if (existing->is_array()) {
    existing->get_array().push_back(std::move(value));
  } else {
    json::array both(storage);
    both.push_back(std::move(*existing));
    both.push_back(std::move(value));
    *existing = std::move(both);
  }
}

template <class Number>
bool parseWhole(std::string_view text, Number& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::vector<protocol::MultipartPart const*> MediaForm::filesNamed(std::string_view name) const {
  std::vector<protocol::MultipartPart const*> out;
  for (auto const& file : files) {
    std::string_view sent = file.name;
    if (sent.ends_with("[]")) sent.remove_suffix(2);
    if (sent == name) out.push_back(&file);
  }
  return out;
}

std::optional<MockReply> readForm(MockRequest const& request, BodyKind kind,
                                  json::storage_ptr storage, MediaForm& form, IdSource& ids) {
  std::string_view type = mediaType(request.headers);
  bool multipart = equalsIgnoreCase(type, "multipart/form-data");
  form.fields = json::object(storage);
  if (kind == BodyKind::Json || (kind == BodyKind::JsonOrMultipart && !multipart)) {
    if (isMultipartType(type)) return openai::unsupportedContentType(ids, "application/json", type);
    json::parse_options options;
    options.max_depth = 64;
    boost::system::error_code ec;
    json::value document = json::parse(request.body, ec, storage, options);
    if (ec || !document.is_object()) return invalidJsonError(Vendor::OpenAi, ids);
    form.fields = std::move(document.get_object());
    return std::nullopt;
  }
  if (!multipart) return openai::unsupportedContentType(ids, "multipart/form-data", type);
  auto boundary = protocol::multipartBoundary(request.headers.get("content-type"));
  if (!boundary) return invalidRequestError(Vendor::OpenAi, ids, boundary.error().message);
  auto parts = protocol::parseMultipart(request.body, *boundary);
  if (!parts) return invalidRequestError(Vendor::OpenAi, ids, parts.error().message);
  form.multipart = true;
  for (auto& part : *parts) {
    if (part.is_file) {
      form.files.push_back(std::move(part));
    } else {
      addTextField(form.fields, part.name, part.body, storage);
    }
  }
  return std::nullopt;
}

std::optional<MockReply> readRequiredText(MediaForm const& form, std::string_view name,
                                          std::string_view& out, IdSource& ids) {
  json::value const* value = present(form, name);
  if (value == nullptr) return missingFieldError(Vendor::OpenAi, ids, name);
  if (!value->is_string())
    return openai::invalidType(ids, name, "a string", openai::typeName(*value));
  if (value->get_string().empty()) return openai::emptyString(ids, name);
  out = value->get_string();
  return std::nullopt;
}

std::optional<MockReply> readText(MediaForm const& form, std::string_view name,
                                  std::string_view& out, IdSource& ids) {
  json::value const* value = present(form, name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string())
    return openai::invalidType(ids, name, "a string", openai::typeName(*value));
  out = value->get_string();
  return std::nullopt;
}

std::optional<MockReply> readInteger(MediaForm const& form, std::string_view name, std::int64_t min,
                                     std::int64_t max, std::int64_t& out, IdSource& ids) {
  json::value const* value = present(form, name);
  if (value == nullptr) return std::nullopt;
  std::int64_t number = 0;
  std::string shown;
  if (form.multipart && value->is_string()) {
    std::string_view text = value->get_string();
    if (!parseWhole(text, number)) return openai::invalidType(ids, name, "an integer", "a string");
    shown = std::string(text);
  } else if (value->is_int64()) {
    number = value->get_int64();
    shown = std::to_string(number);
  } else if (value->is_uint64()) {
    number = std::numeric_limits<std::int64_t>::max();  // past any limit the API has
    shown = std::to_string(value->get_uint64());
  } else {
    return openai::invalidType(ids, name, "an integer", openai::typeName(*value));
  }
  if (number < min || number > max) {
    bool below = number < min;
    return openai::outOfRange(ids, name, true, below, static_cast<double>(below ? min : max),
                              shown);
  }
  out = number;
  return std::nullopt;
}

std::optional<MockReply> readDecimal(MediaForm const& form, std::string_view name, double min,
                                     double max, double& out, IdSource& ids) {
  json::value const* value = present(form, name);
  if (value == nullptr) return std::nullopt;
  double number = 0;
  std::string shown;
  if (form.multipart && value->is_string()) {
    std::string_view text = value->get_string();
    if (!parseWhole(text, number) || !std::isfinite(number)) {
      return openai::invalidType(ids, name, "a decimal", "a string");
    }
    shown = std::string(text);
  } else if (value->is_number()) {
    number = value->to_number<double>();
    shown = toJsonText(*value);
  } else {
    return openai::invalidType(ids, name, "a decimal", openai::typeName(*value));
  }
  if (number < min || number > max) {
    bool below = number < min;
    return openai::outOfRange(ids, name, false, below, below ? min : max, shown);
  }
  out = number;
  return std::nullopt;
}

std::optional<MockReply> readChoice(MediaForm const& form, std::string_view name,
                                    openai::Choices supported, std::string_view& out,
                                    IdSource& ids) {
  json::value const* value = present(form, name);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) {
    return openai::invalidType(ids, name, openai::oneOf(supported), openai::typeName(*value));
  }
  std::string_view text = value->get_string();
  for (std::string_view choice : supported) {
    if (choice == text) {
      out = text;
      return std::nullopt;
    }
  }
  return openai::invalidValue(ids, name, text, supported);
}

std::optional<MockReply> readBool(MediaForm const& form, std::string_view name, bool& out,
                                  IdSource& ids) {
  json::value const* value = present(form, name);
  if (value == nullptr) return std::nullopt;
  if (value->is_bool()) {
    out = value->get_bool();
  } else if (form.multipart && value->is_string() &&
             (value->get_string() == "true" || value->get_string() == "false")) {
    out = value->get_string() == "true";
  } else {
    return openai::invalidType(ids, name, "a boolean", openai::typeName(*value));
  }
  return std::nullopt;
}

}  // namespace llmux::mock

#include "server/api/input.hpp"

#include <boost/json/parse.hpp>
#include <boost/url/parse.hpp>

#include <cctype>

#include "ledger/store/ids.hpp"
#include "ledger/base/time_format.hpp"
#include "ledger/base/utf8.hpp"
#include "server/api/errors.hpp"

namespace corridor {
namespace json = boost::json;

std::string join(const std::vector<std::string_view>& values, std::string_view separator) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += separator;
        out += values[i];
    }
    return out;
}

bool is_clean_text(std::string_view text) {
    return text.find('\0') == std::string_view::npos && is_valid_utf8(text);
}

json::object parse_json_body(const http_request& request) {
    if (auto type = request.header("content-type")) {
        // Media types are case-insensitive (RFC 9110 section 8.3.1): "Application/JSON" is JSON.
        std::string media(type->substr(0, type->find(';')));
        while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
        for (auto& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (!media.empty() && media != "application/json" && !media.ends_with("+json")) {
            fail(error_code::unsupported_media_type,
                 "request bodies must be JSON (Content-Type: application/json)");
        }
    }
    if (request.body.empty()) fail(error_code::invalid_input, "request body is required");
    json::parse_options options;
    options.max_depth = 32;
    boost::system::error_code ec;
    json::value value = json::parse(request.body, ec, {}, options);
    if (ec) fail(error_code::invalid_input, "request body is not valid JSON");
    if (!value.is_object()) fail(error_code::invalid_input, "request body must be a JSON object");
    return std::move(value.as_object());
}

std::string json_fields::path(std::string_view key) const {
    return prefix_.empty() ? std::string(key) : prefix_ + "." + std::string(key);
}

const json::value* json_fields::find(std::string_view key) const {
    const json::value* value = object_.if_contains(key);
    if (!value || value->is_null()) return nullptr;
    return value;
}

bool json_fields::has(std::string_view key) const { return find(key) != nullptr; }

std::optional<std::string> json_fields::optional_string(std::string_view key,
                                                        std::size_t chars_max) const {
    const json::value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_string()) fail_field(path(key), "must be a string");
    if (value->as_string().size() > chars_max) {
        fail_field(path(key), "must be at most " + std::to_string(chars_max) + " characters");
    }
    // "\u0000" is valid JSON, but the PostgreSQL driver ends strings at NUL: the text would be
    // stored cut short there and in full on SQLite.
    if (std::string_view(value->as_string()).find('\0') != std::string_view::npos) {
        fail_field(path(key), "must not contain the NUL character");
    }
    return std::string(value->as_string());
}

std::string json_fields::required_string(std::string_view key, std::size_t chars_max) const {
    auto value = optional_string(key, chars_max);
    if (!value) fail_field(path(key), "is required");
    if (value->empty()) fail_field(path(key), "must not be empty");
    return *value;
}

std::optional<std::int64_t> json_fields::optional_int(std::string_view key, std::int64_t min,
                                                      std::int64_t max) const {
    const json::value* value = find(key);
    if (!value) return std::nullopt;
    std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    if (value->is_uint64()) {
        // Above INT64_MAX: always out of range for our fields.
        fail_field(path(key), "must be " + range);
    }
    if (!value->is_int64()) fail_field(path(key), "must be " + range);
    std::int64_t number = value->as_int64();
    if (number < min || number > max) fail_field(path(key), "must be " + range);
    return number;
}

std::int64_t json_fields::required_int(std::string_view key, std::int64_t min,
                                       std::int64_t max) const {
    auto value = optional_int(key, min, max);
    if (!value) fail_field(path(key), "is required");
    return *value;
}

std::optional<bool> json_fields::optional_bool(std::string_view key) const {
    const json::value* value = find(key);
    if (!value) return std::nullopt;
    if (!value->is_bool()) fail_field(path(key), "must be true or false");
    return value->as_bool();
}

const json::object* json_fields::optional_object(std::string_view key) const {
    const json::value* value = find(key);
    if (!value) return nullptr;
    if (!value->is_object()) fail_field(path(key), "must be an object");
    return &value->as_object();
}

const json::array* json_fields::optional_array(std::string_view key) const {
    const json::value* value = find(key);
    if (!value) return nullptr;
    if (!value->is_array()) fail_field(path(key), "must be an array");
    return &value->as_array();
}

std::optional<std::string> json_fields::optional_enum(
    std::string_view key, const std::vector<std::string_view>& allowed) const {
    auto value = optional_string(key, 64);
    if (!value) return std::nullopt;
    for (auto candidate : allowed) {
        if (*value == candidate) return value;
    }
    fail_field(path(key), "must be one of " + join(allowed, ", "));
}

namespace {

bool has_kind(const json::value& value, json_kind kind) {
    switch (kind) {
        case json_kind::string: return value.is_string();
        case json_kind::integer: return value.is_int64() || value.is_uint64();
        case json_kind::number: return value.is_number();
        case json_kind::boolean: return value.is_bool();
        case json_kind::object: return value.is_object();
        case json_kind::array: return value.is_array();
    }
    return false;
}

std::string kind_text(json_kind kind) {
    switch (kind) {
        case json_kind::string: return "a string";
        case json_kind::integer: return "an integer";
        case json_kind::number: return "a number";
        case json_kind::boolean: return "true or false";
        case json_kind::object: return "an object";
        case json_kind::array: return "an array";
    }
    return "valid";
}

void check_value(const json::value& value, const field_shape& field, const std::string& path) {
    if (!has_kind(value, field.kind)) fail_field(path, "must be " + kind_text(field.kind));
    if (field.kind == json_kind::object && !field.fields.empty()) {
        check_shape(value.as_object(), field.fields, path);
    }
    if (field.kind != json_kind::array || !field.items) return;
    const auto& items = value.as_array();
    for (std::size_t i = 0; i < items.size(); ++i) {
        std::string item_path = path + "[" + std::to_string(i) + "]";
        if (items[i].is_null() || !has_kind(items[i], *field.items)) {
            fail_field(item_path, "must be " + kind_text(*field.items));
        }
        if (*field.items == json_kind::object && !field.fields.empty()) {
            check_shape(items[i].as_object(), field.fields, item_path);
        }
    }
}

}  // namespace

void check_shape(const json::object& object, std::span<const field_shape> shape,
                 const std::string& prefix) {
    for (const auto& field : shape) {
        const json::value* value = object.if_contains(field.name);
        if (value == nullptr || value->is_null()) continue;
        std::string path =
            prefix.empty() ? std::string(field.name) : prefix + "." + std::string(field.name);
        check_value(*value, field, path);
    }
}

query_params::query_params(std::string_view target) {
    auto parsed = boost::urls::parse_origin_form(target);
    if (!parsed) fail(error_code::invalid_input, "the request target is not a valid URL path");
    path_ = std::string(parsed->encoded_path());
    for (auto param : parsed->params()) {
        params_.emplace_back(std::string(param.key), param.has_value ? std::string(param.value) : "");
    }
}

std::optional<std::string> query_params::get(std::string_view name) const {
    std::optional<std::string> found;
    for (const auto& [key, value] : params_) {
        if (key == name) {
            if (found) fail_field(name, "must be given once");
            found = value;
        }
    }
    if (found && found->size() > text_field_chars_max) fail_field(name, "is too long");
    if (found && !is_clean_text(*found)) {
        fail_field(name, "must be UTF-8 text");
    }
    return found;
}

std::vector<std::string> query_params::get_all(std::string_view name) const {
    std::vector<std::string> values;
    for (const auto& [key, value] : params_) {
        if (key != name) continue;
        if (!is_clean_text(value)) fail_field(name, "must be UTF-8 text");
        values.push_back(value);
    }
    return values;
}

std::optional<std::int64_t> query_params::timestamp_ms(std::string_view name) const {
    auto text = get(name);
    if (!text) return std::nullopt;
    auto ms = parse_timestamp_ms(*text);
    if (!ms) fail_field(name, "must be an ISO 8601 date-time such as 2025-10-13T00:00:00Z");
    return ms;
}

std::optional<bool> query_params::boolean(std::string_view name) const {
    auto text = get(name);
    if (!text) return std::nullopt;
    if (*text == "true") return true;
    if (*text == "false") return false;
    fail_field(name, "must be true or false");
}

std::optional<std::string> query_params::one_of(std::string_view name,
                                                const std::vector<std::string_view>& allowed) const {
    auto text = get(name);
    if (!text) return std::nullopt;
    for (auto candidate : allowed) {
        if (*text == candidate) return text;
    }
    fail_field(name, "must be one of " + join(allowed, ", "));
}

std::optional<std::string> query_params::currency(std::string_view name,
                                                 const currency_registry& currencies) const {
    auto code = get(name);
    if (code && !currencies.find(*code)) {
        fail(error_code::invalid_currency,
             std::string(name) + ": " + *code + " is not a supported currency",
             boost::json::object{{"field", name}});
    }
    return code;
}

page_request query_params::page(std::string_view id_type, bool descending_default) const {
    page_request request;
    request.descending = descending_default;
    if (auto limit = get("limit")) {
        int value = 0;
        bool digits = !limit->empty() && limit->size() <= 3;
        for (char c : *limit) {
            if (c < '0' || c > '9') digits = false;
            else value = value * 10 + (c - '0');
        }
        if (!digits || value < 1 || value > page_limit_max) {
            fail_field("limit", "must be an integer from 1 to " + std::to_string(page_limit_max));
        }
        request.limit = value;
    }
    if (auto cursor = get("cursor")) {
        auto id = decode_cursor(*cursor);
        if (!id) fail_field("cursor", "is not a cursor this service issued");
        if (!is_typed_id(id_type, *id)) fail_field("cursor", "belongs to another list");
        request.after_id = std::move(*id);
    }
    if (auto order = one_of("sortOrder", {"asc", "desc"})) request.descending = *order == "desc";
    return request;
}

}  // namespace corridor

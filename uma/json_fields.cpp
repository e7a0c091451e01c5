#include "uma/json_fields.hpp"

#include <boost/json/parse.hpp>
#include <cmath>

namespace corridor::uma {

const boost::json::value* json_fields::find(std::string_view key) const {
    const auto* value = object_.if_contains(key);
    if (value == nullptr || value->is_null()) return nullptr;
    return value;
}

void json_fields::fail(std::string_view key, std::string_view what) const {
    throw field_error(name(key) + " " + std::string(what));
}

std::optional<std::string> json_fields::optional_string(std::string_view key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_string()) fail(key, "must be a string");
    return std::string(value->get_string());
}

std::string json_fields::required_string(std::string_view key) const {
    auto value = optional_string(key);
    if (!value) fail(key, "is required");
    return *value;
}

std::optional<std::int64_t> json_fields::optional_int(std::string_view key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (value->is_int64()) return value->get_int64();
    if (value->is_uint64() && value->get_uint64() <= static_cast<std::uint64_t>(INT64_MAX)) {
        return static_cast<std::int64_t>(value->get_uint64());
    }
    // JavaScript senders may write 5e3 for 5000; an integral double within range is accepted.
    if (value->is_double()) {
        double number = value->get_double();
        if (std::trunc(number) == number && std::fabs(number) < 9.2e18) {
            return static_cast<std::int64_t>(number);
        }
    }
    fail(key, "must be an integer");
}

std::int64_t json_fields::required_int(std::string_view key) const {
    auto value = optional_int(key);
    if (!value) fail(key, "is required");
    return *value;
}

double json_fields::required_number(std::string_view key) const {
    const auto* value = find(key);
    if (value == nullptr) fail(key, "is required");
    if (!value->is_number()) fail(key, "must be a number");
    double number = value->to_number<double>();
    if (!std::isfinite(number)) fail(key, "must be finite");
    return number;
}

std::optional<bool> json_fields::optional_bool(std::string_view key) const {
    const auto* value = find(key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_bool()) fail(key, "must be true or false");
    return value->get_bool();
}

bool json_fields::required_bool(std::string_view key) const {
    auto value = optional_bool(key);
    if (!value) fail(key, "is required");
    return *value;
}

const boost::json::object* json_fields::optional_object(std::string_view key) const {
    const auto* value = find(key);
    if (value == nullptr) return nullptr;
    if (!value->is_object()) fail(key, "must be an object");
    return &value->get_object();
}

const boost::json::object& json_fields::required_object(std::string_view key) const {
    const auto* value = optional_object(key);
    if (value == nullptr) fail(key, "is required");
    return *value;
}

const boost::json::array* json_fields::optional_array(std::string_view key) const {
    const auto* value = find(key);
    if (value == nullptr) return nullptr;
    if (!value->is_array()) fail(key, "must be an array");
    return &value->get_array();
}

const boost::json::array& json_fields::required_array(std::string_view key) const {
    const auto* value = optional_array(key);
    if (value == nullptr) fail(key, "is required");
    return *value;
}

std::optional<std::vector<std::string>> json_fields::optional_strings(std::string_view key) const {
    const auto* items = optional_array(key);
    if (items == nullptr) return std::nullopt;
    std::vector<std::string> out;
    for (const auto& item : *items) {
        if (!item.is_string()) fail(key, "must be an array of strings");
        out.emplace_back(item.get_string());
    }
    return out;
}

boost::json::object parse_object(std::string_view text) {
    boost::system::error_code error;
    auto value = boost::json::parse(text, error);
    if (error) throw field_error("body is not valid JSON");
    if (!value.is_object()) throw field_error("body must be a JSON object");
    return std::move(value.get_object());
}

}  // namespace corridor::uma

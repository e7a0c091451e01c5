#pragma once
// Typed reads of JSON members for the UMA message parsers. A bad member throws field_error, which
// each parser turns into its uma_error (PARSE_..._ERROR naming the member) before returning.
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace corridor::uma {

struct field_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class json_fields {
public:
    // `where` prefixes member names in messages, e.g. "compliance.".
    json_fields(const boost::json::object& object, std::string where = {})
        : object_(object), where_(std::move(where)) {}

    std::string required_string(std::string_view key) const;
    std::optional<std::string> optional_string(std::string_view key) const;
    std::int64_t required_int(std::string_view key) const;
    std::optional<std::int64_t> optional_int(std::string_view key) const;
    double required_number(std::string_view key) const;
    bool required_bool(std::string_view key) const;
    std::optional<bool> optional_bool(std::string_view key) const;
    const boost::json::object& required_object(std::string_view key) const;
    const boost::json::object* optional_object(std::string_view key) const;
    const boost::json::array* optional_array(std::string_view key) const;
    const boost::json::array& required_array(std::string_view key) const;
    std::optional<std::vector<std::string>> optional_strings(std::string_view key) const;
    std::string name(std::string_view key) const { return where_ + std::string(key); }

private:
    // Null counts as absent, as in the SDKs (optionalIgnoringNull).
    const boost::json::value* find(std::string_view key) const;
    [[noreturn]] void fail(std::string_view key, std::string_view what) const;

    const boost::json::object& object_;
    std::string where_;
};

// A JSON object parsed from text; throws field_error when the text is not one.
boost::json::object parse_object(std::string_view text);

}  // namespace corridor::uma

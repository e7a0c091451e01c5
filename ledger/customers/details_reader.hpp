#pragma once
// Internal to the validation of account details (account_details.cpp, beneficiary_details.cpp):
// how a field of the document is read and how a bad one is reported.
#include <boost/json/object.hpp>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/customers/account_details.hpp"

namespace corridor::details_parsing {

constexpr std::size_t name_chars_max = 256;

// Thrown inside the validation only, caught by validate_account_details and
// bank_reported_us_account and returned as a value.
struct details_failure {
    details_error error;
};

[[noreturn]] inline void malformed(std::string field, std::string message) {
    throw details_failure{{details_problem::malformed, std::move(field), std::move(message)}};
}
[[noreturn]] inline void invalid(std::string field, std::string message) {
    throw details_failure{
        {details_problem::invalid_identifier, std::move(field), std::move(message)}};
}

// Reads the fields of one JSON object with paths for messages.
class reader {
public:
    reader(const boost::json::object& object, std::string prefix)
        : object_(object), prefix_(std::move(prefix)) {}

    std::string path(std::string_view key) const { return prefix_ + "." + std::string(key); }
    bool has(std::string_view key) const {
        auto* value = object_.if_contains(key);
        return value && !value->is_null();
    }
    std::optional<std::string> optional_string(std::string_view key,
                                               std::size_t chars_max = name_chars_max) const {
        auto* value = object_.if_contains(key);
        if (!value || value->is_null()) return std::nullopt;
        if (!value->is_string()) malformed(path(key), "must be a string");
        std::string_view text = value->as_string();
        if (text.size() > chars_max) {
            malformed(path(key), "must be at most " + std::to_string(chars_max) + " characters");
        }
        if (text.find('\0') != std::string_view::npos) malformed(path(key), "must not contain NUL");
        return std::string(text);
    }
    std::string required_string(std::string_view key,
                                std::size_t chars_max = name_chars_max) const {
        auto value = optional_string(key, chars_max);
        if (!value) malformed(path(key), "is required");
        if (value->empty()) malformed(path(key), "must not be empty");
        return *value;
    }
    std::optional<std::string> optional_enum(
        std::string_view key, std::initializer_list<std::string_view> allowed) const {
        auto value = optional_string(key, 64);
        if (!value) return std::nullopt;
        for (auto candidate : allowed) {
            if (*value == candidate) return value;
        }
        std::string list;
        for (auto candidate : allowed) list += (list.empty() ? "" : ", ") + std::string(candidate);
        malformed(path(key), "must be one of " + list);
    }
    std::string required_enum(std::string_view key,
                              std::initializer_list<std::string_view> allowed) const {
        auto value = optional_enum(key, allowed);
        if (!value) malformed(path(key), "is required");
        return *value;
    }
    const boost::json::object* optional_object(std::string_view key) const {
        auto* value = object_.if_contains(key);
        if (!value || value->is_null()) return nullptr;
        if (!value->is_object()) malformed(path(key), "must be an object");
        return &value->as_object();
    }

private:
    const boost::json::object& object_;
    std::string prefix_;
};

}  // namespace corridor::details_parsing

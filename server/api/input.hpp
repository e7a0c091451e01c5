#pragma once
// Reading client input: a JSON body whose fields are checked by type and range, and query
// parameters. Every failure is a 400 INVALID_INPUT naming the field; unknown fields are ignored.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include "ledger/book/currencies.hpp"
#include "ledger/store/page.hpp"
#include "server/http/http_types.hpp"

namespace corridor {

constexpr std::size_t text_field_chars_max = 1024;

// Well-formed UTF-8 without NUL: what every string from a client must be before it is stored or
// compared in the database (PostgreSQL refuses invalid UTF-8 and cuts text at a NUL).
bool is_clean_text(std::string_view text);

// The body as a JSON object (415 when a non-JSON content type is declared, 400 when malformed).
boost::json::object parse_json_body(const http_request& request);

class json_fields {
public:
    explicit json_fields(const boost::json::object& object, std::string prefix = "")
        : object_(object), prefix_(std::move(prefix)) {}

    std::string path(std::string_view key) const;
    bool has(std::string_view key) const;  // present and not null

    std::optional<std::string> optional_string(std::string_view key,
                                               std::size_t chars_max = text_field_chars_max) const;
    std::string required_string(std::string_view key,
                                std::size_t chars_max = text_field_chars_max) const;
    std::optional<std::int64_t> optional_int(std::string_view key, std::int64_t min,
                                             std::int64_t max) const;
    std::int64_t required_int(std::string_view key, std::int64_t min, std::int64_t max) const;
    std::optional<bool> optional_bool(std::string_view key) const;
    const boost::json::object* optional_object(std::string_view key) const;
    const boost::json::array* optional_array(std::string_view key) const;
    // A string that must be one of `allowed`.
    std::optional<std::string> optional_enum(std::string_view key,
                                             const std::vector<std::string_view>& allowed) const;

private:
    const boost::json::value* find(std::string_view key) const;
    const boost::json::object& object_;
    std::string prefix_;
};

// The shape of a request body as the interface defines it: the JSON type of every field it knows,
// nested objects with their own fields, arrays with the shape of their items.
enum class json_kind { string, integer, number, boolean, object, array };

struct field_shape {
    std::string_view name;
    json_kind kind;
    std::span<const field_shape> fields = {};  // object (or array items that are objects)
    std::optional<json_kind> items = {};       // array: the kind of its items
};

// Checks every field of `shape` present (not null) in `object`, whether or not the variant the
// request chose uses it: a wrong type is 400 INVALID_INPUT naming the field (its path, as
// "source.accountId" or "beneficialOwners[0].address.line1"). Fields the interface does not define
// are ignored. Run before a handler reads the body, so that no variant skips a field unchecked.
void check_shape(const boost::json::object& object, std::span<const field_shape> shape,
                 const std::string& prefix = "");

std::string join(const std::vector<std::string_view>& values, std::string_view separator);

class query_params {
public:
    // Throws 400 for a target whose query cannot be decoded.
    explicit query_params(std::string_view target);

    std::optional<std::string> get(std::string_view name) const;
    std::vector<std::string> get_all(std::string_view name) const;
    std::optional<std::int64_t> timestamp_ms(std::string_view name) const;
    std::optional<bool> boolean(std::string_view name) const;
    std::optional<std::string> one_of(std::string_view name,
                                      const std::vector<std::string_view>& allowed) const;
    // A currency code the service knows; 400 INVALID_CURRENCY naming the parameter otherwise.
    std::optional<std::string> currency(std::string_view name,
                                        const currency_registry& currencies) const;
    // limit (1..100, default 20) and cursor; sort order when the list has one. A cursor is only
    // accepted by the list that issued it: its id must be of `id_type` ("Customer", "Quote", ...).
    page_request page(std::string_view id_type, bool descending_default = true) const;

    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::vector<std::pair<std::string, std::string>> params_;
};

}  // namespace corridor

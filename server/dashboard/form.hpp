#pragma once
// HTML form bodies (application/x-www-form-urlencoded), as the dashboard's pages post them.
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace corridor {

struct http_request;

using form_fields = std::map<std::string, std::string>;

// Decodes "a=1&b=x+y%21"; nullopt when a percent escape is malformed or a name repeats. "+" is a
// space. Empty pairs ("a=1&&b=2") are skipped.
std::optional<form_fields> parse_form(std::string_view body);

// Whether the request says its body is a urlencoded form.
bool is_urlencoded_form(const http_request& request);

// The body of a form post: nullopt unless it is declared urlencoded and decodes.
std::optional<form_fields> read_form(const http_request& request);

// The field's value, or empty when absent.
std::string form_value(const form_fields& form, const std::string& name);

}  // namespace corridor

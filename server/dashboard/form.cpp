#include "server/dashboard/form.hpp"

#include <cctype>

#include "server/http/http_types.hpp"

namespace corridor {
namespace {

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

std::optional<std::string> decode_component(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '+') {
            out.push_back(' ');
        } else if (c == '%') {
            if (i + 2 >= text.size()) return std::nullopt;
            int high = hex_value(text[i + 1]);
            int low = hex_value(text[i + 2]);
            if (high < 0 || low < 0) return std::nullopt;
            out.push_back(static_cast<char>(high * 16 + low));
            i += 2;
        } else {
            out.push_back(c);
        }
    }
    return out;
}

}  // namespace

std::optional<form_fields> parse_form(std::string_view body) {
    form_fields fields;
    while (!body.empty()) {
        auto end = body.find('&');
        std::string_view pair = body.substr(0, end);
        body = end == std::string_view::npos ? std::string_view() : body.substr(end + 1);
        if (pair.empty()) continue;
        auto equals = pair.find('=');
        auto name = decode_component(pair.substr(0, equals));
        auto value = decode_component(equals == std::string_view::npos ? std::string_view()
                                                                       : pair.substr(equals + 1));
        if (!name || !value) return std::nullopt;
        if (!fields.emplace(std::move(*name), std::move(*value)).second) return std::nullopt;
    }
    return fields;
}

bool is_urlencoded_form(const http_request& request) {
    auto type = request.header("content-type");
    if (!type) return false;
    std::string media(type->substr(0, type->find(';')));
    while (!media.empty() && media.back() == ' ') media.pop_back();
    for (auto& c : media) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return media == "application/x-www-form-urlencoded";
}

std::string form_value(const form_fields& form, const std::string& name) {
    auto found = form.find(name);
    return found == form.end() ? std::string() : found->second;
}

std::optional<form_fields> read_form(const http_request& request) {
    return is_urlencoded_form(request) ? parse_form(request.body) : std::nullopt;
}

}  // namespace corridor

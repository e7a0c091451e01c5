#include "server/http/response_head.hpp"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <charconv>

#include "server/http/http_types.hpp"

namespace corridor {
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

// The status line and header fields of `message`, byte for byte as Beast's serializer writes them,
// for the responses that still go through a Beast message (see append_plain_response_head).
// Writing the head and the body as two plain buffers spares the serializer's nested buffer
// sequences, which cost about a quarter of the instructions of a GET /config.
void append_response_head(std::string& out, const http::response<http::string_body>& message) {
    unsigned code = message.result_int();
    unsigned version = message.version();
    char status_line[13] = {'H',
                            'T',
                            'T',
                            'P',
                            '/',
                            static_cast<char>('0' + version / 10),
                            '.',
                            static_cast<char>('0' + version % 10),
                            ' ',
                            static_cast<char>('0' + code / 100),
                            static_cast<char>('0' + (code / 10) % 10),
                            static_cast<char>('0' + code % 10),
                            ' '};
    out.append(status_line, sizeof status_line);
    std::string_view reason = message.reason();
    if (reason.empty()) reason = http::obsolete_reason(static_cast<http::status>(code));
    out.append(reason);
    out.append("\r\n");
    for (const auto& field : message) {
        out.append(field.name_string());
        out.append(": ");
        out.append(field.value());
        out.append("\r\n");
    }
    out.append("\r\n");
}

std::string_view trim_ows(std::string_view value) {
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
    while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
    return value;
}

// The response head without building a Beast message: the fields a response carries, in the order
// and with the rules of the Beast message this replaces (set() drops earlier fields of the same
// name, case-insensitively, and appends; values are trimmed of spaces and tabs; keep_alive(false)
// adds "Connection: close", prepare_payload() "Content-Length"). Returns false, writing nothing,
// for the responses where Beast would do more than that (a handler header that keep_alive() or
// prepare_payload() rewrite, a body on a status that forbids one, an out-of-range status or value),
// which then go through the Beast message as before.
bool append_plain_response_head(std::string& out, head_fields& fields,
                                const http_response& response, std::string_view request_id,
                                bool keep_alive) {
    int status = response.status;
    if (status < 100 || status > 999) return false;
    bool bodiless = status < 200 || status == 204 || status == 304;
    if (bodiless && !response.body.empty()) return false;
    for (const auto& [name, value] : response.headers) {
        if (beast::iequals(name, "Connection") || beast::iequals(name, "Content-Length") ||
            beast::iequals(name, "Transfer-Encoding") || name.size() > 60000 ||
            value.size() > 60000) {
            return false;
        }
    }
    if (response.content_type.size() > 60000 || request_id.size() > 60000) return false;
    fields.clear();
    auto set = [&fields](std::string_view name, std::string_view value) {
        std::erase_if(fields,
                      [name](const auto& field) { return beast::iequals(field.first, name); });
        fields.emplace_back(name, trim_ows(value));
    };
    if (!response.content_type.empty()) set("Content-Type", response.content_type);
    set("Cache-Control", "no-store");
    set("X-Request-Id", request_id);
    for (const auto& [name, value] : response.headers) set(name, value);
    if (!keep_alive) set("Connection", "close");
    char length[24];
    auto [length_end, ignored] =
        std::to_chars(length, length + sizeof length, response.body.size());
    set("Content-Length", std::string_view(length, static_cast<std::size_t>(length_end - length)));

    auto code = static_cast<unsigned>(status);
    char status_line[13] = {'H',
                            'T',
                            'T',
                            'P',
                            '/',
                            '1',
                            '.',
                            '1',
                            ' ',
                            static_cast<char>('0' + code / 100),
                            static_cast<char>('0' + (code / 10) % 10),
                            static_cast<char>('0' + code % 10),
                            ' '};
    out.append(status_line, sizeof status_line);
    out.append(http::obsolete_reason(static_cast<http::status>(code)));
    out.append("\r\n");
    for (const auto& [name, value] : fields) {
        out.append(name);
        out.append(": ");
        out.append(value);
        out.append("\r\n");
    }
    out.append("\r\n");
    return true;
}

}  // namespace

void write_response_head(std::string& out, head_fields& fields, http_response& response,
                         std::string_view request_id, bool keep_alive) {
    out.clear();
    if (append_plain_response_head(out, fields, response, request_id, keep_alive)) return;
    http::response<http::string_body> message{static_cast<http::status>(response.status), 11};
    if (!response.content_type.empty()) {
        message.set(http::field::content_type, response.content_type);
    }
    message.set(http::field::cache_control, "no-store");
    message.set("X-Request-Id", request_id);
    for (auto& [name, value] : response.headers) message.set(name, value);
    message.body() = std::move(response.body);
    message.keep_alive(keep_alive);
    message.prepare_payload();
    append_response_head(out, message);
    response.body = std::move(message.body());
}

}  // namespace corridor

#include "server/process/access_log.hpp"

#include <array>
#include <charconv>

namespace corridor {
namespace {

// For each byte: 0 when it is copied as is, otherwise the letter of its escape ('u' for \u00XX).
constexpr std::array<char, 256> escapes = [] {
    std::array<char, 256> table{};
    for (int c = 0; c < 0x20; ++c) table[c] = 'u';
    table['\b'] = 'b';
    table['\t'] = 't';
    table['\n'] = 'n';
    table['\f'] = 'f';
    table['\r'] = 'r';
    table['"'] = '"';
    table['\\'] = '\\';
    return table;
}();

// `text` escaped as boost::json::serialize escapes string contents, without the quotes.
void append_escaped(std::string& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    const char* plain = text.data();
    const char* end = text.data() + text.size();
    for (const char* p = plain; p != end; ++p) {
        auto c = static_cast<unsigned char>(*p);
        char escape = escapes[c];
        if (escape == 0) continue;
        out.append(plain, p);
        plain = p + 1;
        if (escape == 'u') {
            char sequence[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out.append(sequence, sizeof sequence);
        } else {
            char sequence[2] = {'\\', escape};
            out.append(sequence, sizeof sequence);
        }
    }
    out.append(plain, end);
}

template <class Int>
void append_integer(std::string& out, Int value) {
    char digits[24];
    auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
    out.append(digits, end);
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
    out += '"';
    append_escaped(out, text);
    out += '"';
}

void append_access_line(std::string& out, const access_entry& entry) {
    out.append(R"({"requestId":")");
    append_escaped(out, entry.request_id);
    out.append(R"(","method":")");
    append_escaped(out, entry.method);
    out.append(R"(","path":")");
    append_escaped(out, entry.path);
    out.append(R"(","status":)");
    append_integer(out, entry.status);
    out.append(R"(,"durationUs":)");
    append_integer(out, entry.duration_us);
    out.append(R"(,"bytesIn":)");
    append_integer(out, entry.bytes_in);
    out.append(R"(,"bytesOut":)");
    append_integer(out, entry.bytes_out);
    if (!entry.client_id.empty()) {
        out.append(R"(,"clientId":")");
        append_escaped(out, entry.client_id);
        out += '"';
    }
    if (entry.remote) {
        out.append(R"(,"remote":")");
        append_escaped(out, *entry.remote);
        out += '"';
    }
    out.append("}\n");
}

std::string_view loggable_path(std::string_view path, std::string& storage) {
    if (path.find("/link-") == std::string_view::npos &&
        path.find("/setup-") == std::string_view::npos) {
        return path;
    }
    storage.clear();
    std::size_t start = 0;
    while (start < path.size()) {
        std::size_t end = path.find('/', start + 1);
        std::string_view segment = path.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
        bool token = segment.starts_with("/link-sandbox-") ||
                     segment.starts_with("/link-production-") || segment.starts_with("/setup-");
        storage += token ? std::string_view("/***") : segment;
        if (end == std::string_view::npos) break;
        start = end;
    }
    return storage;
}

}  // namespace corridor

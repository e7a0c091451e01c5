#include "server/http/access_log.hpp"

#include <charconv>

namespace corridor {
namespace {

template <class Int>
void append_integer(std::string& out, Int value) {
    char digits[24];
    auto [end, error] = std::to_chars(digits, digits + sizeof digits, value);
    out.append(digits, end);
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
    static constexpr char hex[] = "0123456789abcdef";
    out.push_back('"');
    std::size_t plain_from = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(text.data() + plain_from, i - plain_from);
        plain_from = i + 1;
        out.push_back('\\');
        switch (c) {
            case '"': out.push_back('"'); break;
            case '\\': out.push_back('\\'); break;
            case '\b': out.push_back('b'); break;
            case '\t': out.push_back('t'); break;
            case '\n': out.push_back('n'); break;
            case '\f': out.push_back('f'); break;
            case '\r': out.push_back('r'); break;
            default:
                out.append("u00", 3);
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 15]);
        }
    }
    out.append(text.data() + plain_from, text.size() - plain_from);
    out.push_back('"');
}

void append_access_line(std::string& out, const access_entry& entry) {
    out.append(R"({"requestId":)");
    append_json_string(out, entry.request_id);
    out.append(R"(,"method":)");
    append_json_string(out, entry.method);
    out.append(R"(,"path":)");
    append_json_string(out, entry.path);
    out.append(R"(,"status":)");
    append_integer(out, entry.status);
    out.append(R"(,"durationUs":)");
    append_integer(out, entry.duration_us);
    out.append(R"(,"bytesIn":)");
    append_integer(out, entry.bytes_in);
    out.append(R"(,"bytesOut":)");
    append_integer(out, entry.bytes_out);
    if (!entry.client_id.empty()) {
        out.append(R"(,"clientId":)");
        append_json_string(out, entry.client_id);
    }
    if (entry.remote) {
        out.append(R"(,"remote":)");
        append_json_string(out, *entry.remote);
    }
    out.append("}\n");
}

}  // namespace corridor

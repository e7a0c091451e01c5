#include "server/api/html.hpp"

namespace corridor {

std::string html_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out.push_back(c);
        }
    }
    return out;
}

std::string html_page(std::string_view title, std::string_view style, std::string_view content) {
    std::string out =
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
        "<meta name=\"referrer\" content=\"no-referrer\"><title>";
    out += html_escape(title);
    out += "</title><style>";
    out += style;
    out += "</style></head><body><main><h1>";
    out += html_escape(title);
    out += "</h1>";
    out += content;
    out += "</main></body></html>\n";
    return out;
}

}  // namespace corridor

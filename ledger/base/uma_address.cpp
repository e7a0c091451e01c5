#include "ledger/base/uma_address.hpp"

#include <arpa/inet.h>

#include <algorithm>
#include <cctype>

namespace corridor {
namespace {

std::string lower(std::string_view text) {
    std::string out(text);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

// Decimal 1..65535 without leading zeros: "8080" and "08080" are one port, and the normalised
// domain must have one spelling so that uniqueness cannot be sidestepped.
bool is_port(std::string_view text) {
    if (text.empty() || text.size() > 5 || text.front() == '0') return false;
    long value = 0;
    for (char c : text) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
        value = value * 10 + (c - '0');
    }
    return value >= 1 && value <= 65535;
}

bool is_ipv4(std::string_view text) {
    int parts = 0;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto end = text.find('.', start);
        if (end == std::string_view::npos) end = text.size();
        auto part = text.substr(start, end - start);
        if (part.empty() || part.size() > 3) return false;
        int value = 0;
        for (char c : part) {
            if (!std::isdigit(static_cast<unsigned char>(c))) return false;
            value = value * 10 + (c - '0');
        }
        if (value > 255 || (part.size() > 1 && part[0] == '0')) return false;
        ++parts;
        start = end + 1;
        if (end == text.size()) break;
    }
    return parts == 4;
}

// "[...]" holding an IPv6 address, rewritten in its canonical RFC 5952 form (lower case, zeros
// compressed) so that one address has one spelling.
std::optional<std::string> canonical_ipv6_literal(std::string_view text) {
    if (text.size() < 4 || text.size() > 2 + INET6_ADDRSTRLEN || text.front() != '[' ||
        text.back() != ']') {
        return std::nullopt;
    }
    std::string address(text.substr(1, text.size() - 2));
    in6_addr binary{};
    if (inet_pton(AF_INET6, address.c_str(), &binary) != 1) return std::nullopt;
    char canonical[INET6_ADDRSTRLEN] = {};
    if (!inet_ntop(AF_INET6, &binary, canonical, sizeof canonical)) return std::nullopt;
    return "[" + std::string(canonical) + "]";
}

bool is_dns_name(std::string_view text) {
    if (text.empty() || text.size() > 253) return false;
    std::size_t start = 0;
    while (true) {
        auto end = text.find('.', start);
        if (end == std::string_view::npos) end = text.size();
        auto label = text.substr(start, end - start);
        if (label.empty() || label.size() > 63 || label.front() == '-' || label.back() == '-') {
            return false;
        }
        for (char c : label) {
            if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
        }
        if (end == text.size()) {
            // A top-level label is never all digits (RFC 1123 section 2.1, RFC 3696 section
            // 2): "256.1.1.1" or "1.2.3" is a malformed IPv4 address, not a host name.
            return !std::all_of(label.begin(), label.end(),
                                [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
        }
        start = end + 1;
    }
}

}  // namespace

std::optional<std::string> normalize_uma_domain(std::string_view text) {
    std::string domain = lower(text);
    std::string_view host = domain;
    if (host.starts_with("[")) {
        auto close = host.find(']');
        if (close == std::string_view::npos) return std::nullopt;
        auto rest = host.substr(close + 1);
        if (!rest.empty() && !(rest.front() == ':' && is_port(rest.substr(1)))) return std::nullopt;
        auto literal = canonical_ipv6_literal(host.substr(0, close + 1));
        if (!literal) return std::nullopt;
        return *literal + std::string(rest);
    }
    auto colon = host.rfind(':');
    if (colon != std::string_view::npos) {
        if (!is_port(host.substr(colon + 1))) return std::nullopt;
        host = host.substr(0, colon);
    }
    if (is_ipv4(host) || is_dns_name(host)) return domain;
    return std::nullopt;
}

std::optional<uma_address> parse_uma_address(std::string_view text) {
    if (text.size() < 4 || text.size() > uma_address_chars_max || text.front() != '$') {
        return std::nullopt;
    }
    auto at = text.find('@');
    if (at == std::string_view::npos || at < 2 || text.find('@', at + 1) != std::string_view::npos) {
        return std::nullopt;
    }
    std::string user = lower(text.substr(1, at - 1));
    for (char c : user) {
        bool allowed = std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' ||
                       c == '.' || c == '+';
        if (!allowed) return std::nullopt;
    }
    auto domain = normalize_uma_domain(text.substr(at + 1));
    if (!domain) return std::nullopt;
    return uma_address{std::move(user), std::move(*domain)};
}

}  // namespace corridor

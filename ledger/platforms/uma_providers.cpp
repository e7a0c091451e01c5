#include "ledger/platforms/uma_providers.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "ledger/base/countries.hpp"
#include "ledger/base/encoding.hpp"
#include "ledger/base/uma_address.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::string_view cursor_prefix = "uma-provider:";

[[noreturn]] void bad(const std::string& where, const std::string& problem) {
    throw std::runtime_error("uma providers: " + where + ": " + problem);
}

std::string text(const json::object& entry, const char* key, const std::string& where) {
    const auto* value = entry.if_contains(key);
    if (!value || !value->is_string() || value->as_string().empty()) {
        bad(where, std::string("needs a non-empty string \"") + key + "\"");
    }
    return std::string(value->as_string());
}

std::optional<std::string> optional_text(const json::object& entry, const char* key,
                                         const std::string& where) {
    const auto* value = entry.if_contains(key);
    if (!value || value->is_null()) return std::nullopt;
    if (!value->is_string()) bad(where, std::string("\"") + key + "\" must be a string");
    return std::string(value->as_string());
}

std::vector<std::string> strings(const json::object& entry, const char* key,
                                 const std::string& where) {
    std::vector<std::string> out;
    const auto* value = entry.if_contains(key);
    if (!value || value->is_null()) return out;
    if (!value->is_array()) bad(where, std::string("\"") + key + "\" must be an array of strings");
    for (const auto& item : value->as_array()) {
        if (!item.is_string()) bad(where, std::string("\"") + key + "\" must hold strings only");
        out.emplace_back(item.as_string());
    }
    return out;
}

uma_provider read_provider(const json::object& entry, const std::string& where,
                           const currency_registry& currencies) {
    uma_provider provider;
    provider.name = text(entry, "name", where);
    auto domain = normalize_uma_domain(text(entry, "domain", where));
    if (!domain) bad(where, "\"domain\" is not a DNS name or an IP literal");
    provider.domain = *domain;
    provider.logo_url = optional_text(entry, "logoUrl", where);
    provider.lei = optional_text(entry, "lei", where);
    if (provider.lei && !is_lei(*provider.lei)) {
        bad(where,
            "\"lei\" must be 20 upper-case letters and digits with valid check digits "
            "(ISO 17442)");
    }
    provider.supported_regions = strings(entry, "supportedRegions", where);
    for (const auto& region : provider.supported_regions) {
        if (!is_country_code(region)) bad(where, "\"" + region + "\" is not a country code");
    }
    provider.supported_currencies = strings(entry, "supportedCurrencies", where);
    for (const auto& code : provider.supported_currencies) {
        if (!currencies.find(code))
            bad(where, "currency \"" + code + "\" is not in the currencies file");
    }
    if (const auto* flag = entry.if_contains("allowListed")) {
        if (!flag->is_bool()) bad(where, "\"allowListed\" must be true or false");
        provider.allow_listed = flag->as_bool();
    }
    provider.allow_listed_platforms = strings(entry, "allowListedPlatforms", where);
    return provider;
}

}  // namespace

bool is_lei(std::string_view text) {
    if (text.size() != 20) return false;
    // ISO 7064 MOD 97-10 over the letters read as 10..35, like an IBAN.
    int remainder = 0;
    for (char c : text) {
        int value = 0;
        if (c >= '0' && c <= '9')
            value = c - '0';
        else if (c >= 'A' && c <= 'Z')
            value = c - 'A' + 10;
        else
            return false;
        remainder = (value >= 10 ? remainder * 100 : remainder * 10) + value;
        remainder %= 97;
    }
    return remainder == 1;
}

bool uma_provider::allow_listed_for(std::string_view platform_id) const {
    return allow_listed || std::find(allow_listed_platforms.begin(), allow_listed_platforms.end(),
                                     platform_id) != allow_listed_platforms.end();
}

uma_provider_catalog uma_provider_catalog::from_json(std::string_view json_text,
                                                     const currency_registry& currencies) {
    boost::system::error_code ec;
    auto document = json::parse(json_text, ec);
    if (ec || !document.is_object() || !document.as_object().contains("providers") ||
        !document.as_object().at("providers").is_array()) {
        throw std::runtime_error("uma providers: expected an object with a \"providers\" array");
    }
    uma_provider_catalog catalog;
    int index = 0;
    for (const auto& entry : document.as_object().at("providers").as_array()) {
        std::string where = "entry " + std::to_string(index++);
        if (!entry.is_object()) bad(where, "must be an object");
        auto provider = read_provider(entry.as_object(), where, currencies);
        for (const auto& other : catalog.providers_) {
            if (other.domain == provider.domain) bad(where, provider.domain + " is listed twice");
        }
        catalog.providers_.push_back(std::move(provider));
    }
    return catalog;
}

uma_provider_catalog uma_provider_catalog::load_file(const std::string& path,
                                                     const currency_registry& currencies) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read UMA providers file " + path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    try {
        return from_json(buffer.str(), currencies);
    } catch (const std::runtime_error& error) {
        throw std::runtime_error(path + ": " + error.what());
    }
}

std::string encode_provider_cursor(std::string_view domain) {
    return base64url_encode(std::string(cursor_prefix) + std::string(domain));
}

std::optional<std::string> decode_provider_cursor(std::string_view cursor) {
    auto decoded = base64url_decode(cursor);
    if (!decoded || !decoded->starts_with(cursor_prefix)) return std::nullopt;
    std::string domain = decoded->substr(cursor_prefix.size());
    if (domain.empty()) return std::nullopt;
    return domain;
}

std::optional<page<uma_provider_entry>> list_uma_providers(
    const uma_provider_catalog& catalog, std::string_view platform_id,
    const uma_provider_filter& filter, int limit, bool descending,
    const std::optional<std::string>& after_domain) {
    std::vector<uma_provider_entry> matching;
    for (const auto& provider : catalog.all()) {
        uma_provider_entry entry{&provider, provider.allow_listed_for(platform_id)};
        if (!filter.include_blocked && !entry.allow_listed) continue;
        const auto& regions = provider.supported_regions;
        if (filter.country_code &&
            std::find(regions.begin(), regions.end(), *filter.country_code) == regions.end()) {
            continue;
        }
        const auto& codes = provider.supported_currencies;
        if (filter.currency_code &&
            std::find(codes.begin(), codes.end(), *filter.currency_code) == codes.end()) {
            continue;
        }
        matching.push_back(entry);
    }
    if (descending) std::reverse(matching.begin(), matching.end());

    // The cursor is a position in the whole catalog's order, so a filter that changed between
    // pages still resumes after the right provider.
    std::size_t start = 0;
    if (after_domain) {
        const auto& all = catalog.all();
        auto cursor_at = std::find_if(all.begin(), all.end(), [&](const uma_provider& provider) {
            return provider.domain == *after_domain;
        });
        if (cursor_at == all.end()) return std::nullopt;
        auto cursor_index = cursor_at - all.begin();
        while (start < matching.size()) {
            auto index = matching[start].provider - all.data();
            if (descending ? index < cursor_index : index > cursor_index) break;
            ++start;
        }
    }
    page<uma_provider_entry> out;
    out.total_count = static_cast<std::int64_t>(matching.size());
    std::size_t end = std::min(matching.size(), start + static_cast<std::size_t>(limit));
    out.items.assign(matching.begin() + static_cast<std::ptrdiff_t>(start),
                     matching.begin() + static_cast<std::ptrdiff_t>(end));
    out.has_more = end < matching.size();
    if (out.has_more) out.next_cursor = encode_provider_cursor(out.items.back().provider->domain);
    return out;
}

}  // namespace corridor

#pragma once
// The UMA providers a platform's customers can reach, from the operator's conf/uma-providers.json
// (the `uma_providers_file` key). Each provider is allow-listed for every platform
// ("allowListed": true) or only for the platforms it names ("allowListedPlatforms"); the others
// see it as blocked. The file is read once at start-up; a malformed one stops start-up.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/book/currencies.hpp"
#include "ledger/store/page.hpp"

namespace corridor {

struct uma_provider {
    std::string name;
    std::string domain;  // unique in the file; the key the list pages by
    std::optional<std::string> logo_url;
    std::optional<std::string> lei;
    std::vector<std::string> supported_regions;     // ISO 3166-1 alpha-2
    std::vector<std::string> supported_currencies;  // codes known to the currency registry
    bool allow_listed = false;
    std::vector<std::string> allow_listed_platforms;  // Platform:<uuid>

    bool allow_listed_for(std::string_view platform_id) const;
};

// An ISO 17442 Legal Entity Identifier: 20 upper-case letters and digits, MOD 97-10 check digits.
bool is_lei(std::string_view text);

class uma_provider_catalog {
public:
    // Throws std::runtime_error naming the entry and the problem when the document is malformed.
    static uma_provider_catalog from_json(std::string_view json_text,
                                          const currency_registry& currencies);
    static uma_provider_catalog load_file(const std::string& path,
                                          const currency_registry& currencies);

    // In the file's order, which is the list's ascending order (newest entries last).
    const std::vector<uma_provider>& all() const { return providers_; }

private:
    std::vector<uma_provider> providers_;
};

struct uma_provider_filter {
    std::optional<std::string> country_code;
    std::optional<std::string> currency_code;
    bool include_blocked = true;
};

struct uma_provider_entry {
    const uma_provider* provider = nullptr;
    bool allow_listed = false;
};

// Cursors name the last provider's domain; one that names no provider of the catalog is nullopt.
std::string encode_provider_cursor(std::string_view domain);
std::optional<std::string> decode_provider_cursor(std::string_view cursor);

// One page for `platform_id`: ascending is the file's order, descending its reverse. `after_domain`
// (from a cursor) must be a provider of the catalog; nullopt result when it is not.
std::optional<page<uma_provider_entry>> list_uma_providers(
    const uma_provider_catalog& catalog, std::string_view platform_id,
    const uma_provider_filter& filter, int limit, bool descending,
    const std::optional<std::string>& after_domain);

}  // namespace corridor

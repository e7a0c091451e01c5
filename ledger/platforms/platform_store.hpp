#pragma once
// Platforms and their per-environment configuration (PlatformConfig).
#include <soci/soci.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/result.hpp"
#include "ledger/base/tenant.hpp"
#include "ledger/store/ids.hpp"

namespace corridor {

struct counterparty_field {
    std::string name;  // a UserInfoFieldName
    bool mandatory = false;
    bool operator==(const counterparty_field&) const = default;
};

struct supported_currency {
    std::string currency_code;
    std::int64_t min_amount = 0;
    std::int64_t max_amount = 0;
    std::vector<std::string> enabled_transaction_types;  // OUTGOING, INCOMING
    std::vector<counterparty_field> required_counterparty_fields;
    bool operator==(const supported_currency&) const = default;
};

struct platform_config {
    std::string id;  // PlatformConfig:<uuid>
    tenant owner;
    // The environment's number in the tables that hold it instead of platform id and environment
    // (migration 43): positive, never changed nor reused.
    std::int64_t tenant_key = 0;
    std::string uma_domain;
    std::string proxy_uma_subdomain;
    std::optional<std::string> webhook_endpoint;
    std::vector<supported_currency> supported_currencies;
    bool is_regulated = false;
    std::int64_t created_at_ms = 0;
    std::int64_t updated_at_ms = 0;
};

// The platform's terms for a currency, or null when it does not support it.
const supported_currency* find_supported_currency(const platform_config& config,
                                                  std::string_view currency_code);
// Whether transactions of `direction` (OUTGOING or INCOMING) are enabled for the currency.
bool enabled_for(const supported_currency& item, std::string_view direction);

struct new_platform {
    std::string name;
    std::string uma_domain;  // normalised
    bool is_regulated = false;
    std::vector<supported_currency> supported_currencies;
};

enum class platform_error { not_found, uma_domain_taken };

struct platform_services {
    id_generator& ids;
    random_source& random;
    const clock& time;
};

// Creates the platform and its sandbox and production configurations in one transaction.
result<std::string, platform_error> create_platform(soci::session& session,
                                                    platform_services services,
                                                    const new_platform& request);
bool platform_exists(soci::session& session, const std::string& platform_id);

std::optional<platform_config> load_platform_config(soci::session& session, const tenant& owner);
// As load_platform_config, for deciding a payment's currency rules: in the ledger writer's batch
// the writer's cached copy when it can be trusted (ledger/store/writer_facts.hpp), whose fields
// other than the supported currencies may lag behind. Anywhere else the same as
// load_platform_config. Shared, not copied: the writer's entry is handed out as it is (null when
// there is none).
std::shared_ptr<const platform_config> load_platform_config_for_payment(soci::session& session,
                                                                        const tenant& owner);

// The environment whose UMA keys sign for `config`'s UMA domain. UMA senders fetch one key set
// per domain (/.well-known/lnurlpubkey), so when both environments of a platform share the domain
// they sign with production's keys; an environment with a domain of its own has its own keys.
tenant uma_key_owner(soci::session& session, const platform_config& config);

struct config_patch {
    std::optional<std::string> uma_domain;                       // normalised
    std::optional<std::optional<std::string>> webhook_endpoint;  // engaged empty = clear
    std::optional<std::vector<supported_currency>> supported_currencies;
};

// When supportedCurrencies gains a currency, the platform and every customer get an internal
// account in it, in the same transaction.
result<platform_config, platform_error> update_platform_config(soci::session& session,
                                                               platform_services services,
                                                               const tenant& owner,
                                                               const config_patch& patch);

std::string supported_currencies_to_json(const std::vector<supported_currency>& currencies);
std::vector<supported_currency> supported_currencies_from_json(const std::string& text);

}  // namespace corridor

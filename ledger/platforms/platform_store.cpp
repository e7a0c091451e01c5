#include "ledger/platforms/platform_store.hpp"

#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"
#include "ledger/platforms/webhook_keys.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/deferred_writes.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/writer_facts.hpp"

namespace corridor {
namespace json = boost::json;

std::string supported_currencies_to_json(const std::vector<supported_currency>& currencies) {
    json::array out;
    for (const auto& item : currencies) {
        json::array types(item.enabled_transaction_types.begin(),
                          item.enabled_transaction_types.end());
        json::array fields;
        for (const auto& field : item.required_counterparty_fields) {
            fields.push_back(json::object{{"name", field.name}, {"mandatory", field.mandatory}});
        }
        out.push_back(json::object{{"currencyCode", item.currency_code},
                                   {"minAmount", item.min_amount},
                                   {"maxAmount", item.max_amount},
                                   {"enabledTransactionTypes", std::move(types)},
                                   {"requiredCounterpartyFields", std::move(fields)}});
    }
    return json::serialize(out);
}

std::vector<supported_currency> supported_currencies_from_json(const std::string& text) {
    // Written only by supported_currencies_to_json, so the shape is trusted.
    std::vector<supported_currency> out;
    const json::value document = json::parse(text);
    for (const auto& entry : document.as_array()) {
        const auto& object = entry.as_object();
        supported_currency item;
        item.currency_code = std::string(object.at("currencyCode").as_string());
        item.min_amount = object.at("minAmount").to_number<std::int64_t>();
        item.max_amount = object.at("maxAmount").to_number<std::int64_t>();
        for (const auto& type : object.at("enabledTransactionTypes").as_array()) {
            item.enabled_transaction_types.emplace_back(type.as_string());
        }
        for (const auto& field : object.at("requiredCounterpartyFields").as_array()) {
            item.required_counterparty_fields.push_back(
                {std::string(field.at("name").as_string()), field.at("mandatory").as_bool()});
        }
        out.push_back(std::move(item));
    }
    return out;
}

const supported_currency* find_supported_currency(const platform_config& config,
                                                  std::string_view currency_code) {
    for (const auto& item : config.supported_currencies) {
        if (item.currency_code == currency_code) return &item;
    }
    return nullptr;
}

bool enabled_for(const supported_currency& item, std::string_view direction) {
    for (const auto& type : item.enabled_transaction_types) {
        if (type == direction) return true;
    }
    return false;
}

namespace {

void open_accounts(soci::session& session, platform_services services, const tenant& owner,
                   const std::vector<supported_currency>& currencies) {
    book_services book{services.ids, services.random, services.time};
    std::vector<std::string> customer_ids;
    {
        std::string id;
        std::string env_name(owner.env_name());
        soci::statement customers =
            (session.prepare << "SELECT id FROM customers WHERE platform_id = :p AND environment "
                                "= :e AND is_deleted = 0",
             soci::use(owner.platform_id), soci::use(env_name), soci::into(id));
        customers.execute(false);
        while (customers.fetch()) customer_ids.push_back(id);
    }
    for (const auto& item : currencies) {
        ensure_account(session, book, owner, account_kind::platform, "", item.currency_code);
        for (const auto& customer_id : customer_ids) {
            ensure_account(session, book, owner, account_kind::customer, customer_id,
                           item.currency_code);
        }
    }
}

// Claims the domain for the platform; false when another platform holds it. Concurrent claimants
// serialise on the primary key, and the loser reads the winner's row.
bool claim_uma_domain(soci::session& session, const std::string& domain,
                      const std::string& platform_id) {
    session << "INSERT INTO uma_domain_claims (uma_domain, platform_id) VALUES (:d, :p) "
               "ON CONFLICT (uma_domain) DO NOTHING",
        soci::use(domain), soci::use(platform_id);
    std::string owner;
    session << "SELECT platform_id FROM uma_domain_claims WHERE uma_domain = :d", soci::use(domain),
        soci::into(owner);
    CORRIDOR_ASSERT(session.got_data());
    return owner == platform_id;
}

// Drops the platform's claims on domains neither of its environments uses any more.
void release_unused_claims(soci::session& session, const std::string& platform_id) {
    session << "DELETE FROM uma_domain_claims WHERE platform_id = :p AND uma_domain NOT IN "
               "(SELECT uma_domain FROM platform_configs WHERE platform_id = :p2)",
        soci::use(platform_id), soci::use(platform_id);
}

}  // namespace

result<std::string, platform_error> create_platform(soci::session& session,
                                                    platform_services services,
                                                    const new_platform& request) {
    CORRIDOR_ASSERT(!request.name.empty());
    CORRIDOR_ASSERT(!request.uma_domain.empty());
    std::string platform_id = services.ids.next("PlatformConfig");
    long long now_ms = services.time.now_ms();
    int regulated = request.is_regulated ? 1 : 0;
    std::string currencies = supported_currencies_to_json(request.supported_currencies);
    try {
        write_transaction transaction(session);
        session << "INSERT INTO platforms (id, name, is_regulated, created_at_ms) VALUES (:i, :n, "
                   ":r, :t)",
            soci::use(platform_id), soci::use(request.name), soci::use(regulated),
            soci::use(now_ms);
        if (!claim_uma_domain(session, request.uma_domain, platform_id)) {
            return platform_error::uma_domain_taken;  // the transaction rolls back
        }
        for (auto env : {environment::sandbox, environment::production}) {
            // The production config id is the platform id, so the id an operator sees at creation
            // is the one GET /config returns with production credentials.
            std::string config_id =
                env == environment::production ? platform_id : services.ids.next("PlatformConfig");
            std::string env_name(to_string(env));
            std::string subdomain = random_base32(services.random, 16);
            // The tenant key (migration 43): PostgreSQL's identity column draws it; on SQLite this
            // transaction holds the only write lock, so the next above the largest is free.
            bool sqlite = backend_of(session) == database_backend::sqlite;
            session << std::string("INSERT INTO platform_configs (platform_id, environment, id, "
                                   "uma_domain, proxy_uma_subdomain, webhook_endpoint, "
                                   "supported_currencies, created_at_ms, updated_at_ms") +
                           (sqlite ? ", tenant_key" : "") +
                           ") VALUES (:p, :e, :i, :d, :s, NULL, :c, :t, :t2" +
                           (sqlite ? ", (SELECT COALESCE(MAX(tenant_key), 0) + 1 FROM "
                                     "platform_configs))"
                                   : ")"),
                soci::use(platform_id), soci::use(env_name), soci::use(config_id),
                soci::use(request.uma_domain), soci::use(subdomain), soci::use(currencies),
                soci::use(now_ms), soci::use(now_ms);
            open_accounts(session, services, tenant{platform_id, env},
                          request.supported_currencies);
            ensure_webhook_key(session, services.time, tenant{platform_id, env});
        }
        transaction.commit();
    } catch (const soci::soci_error& error) {
        if (is_unique_violation(error)) return platform_error::uma_domain_taken;
        throw;
    }
    return platform_id;
}

bool platform_exists(soci::session& session, const std::string& platform_id) {
    int count = 0;
    session << "SELECT COUNT(*) FROM platforms WHERE id = :i", soci::use(platform_id),
        soci::into(count);
    return count == 1;
}

tenant uma_key_owner(soci::session& session, const platform_config& config) {
    if (config.owner.env == environment::production) return config.owner;
    int shared = 0;
    session << "SELECT COUNT(*) FROM platform_configs WHERE platform_id = :p AND environment = "
               "'production' AND uma_domain = :d",
        soci::use(config.owner.platform_id), soci::use(config.uma_domain), soci::into(shared);
    return shared > 0 ? tenant{config.owner.platform_id, environment::production} : config.owner;
}

namespace {

// The configuration, and its supported currencies as stored.
std::optional<std::pair<platform_config, std::string>> read_platform_config(soci::session& session,
                                                                            const tenant& owner) {
    struct config_row {
        platform_config config;
        std::string webhook, currencies;
        soci::indicator webhook_indicator = soci::i_null;
        int regulated = 0;
        long long created_ms = 0, updated_ms = 0, tenant_key = 0;
        void bind(soci::statement& statement) {
            statement.exchange(soci::into(config.id));
            statement.exchange(soci::into(config.uma_domain));
            statement.exchange(soci::into(config.proxy_uma_subdomain));
            statement.exchange(soci::into(webhook, webhook_indicator));
            statement.exchange(soci::into(currencies));
            statement.exchange(soci::into(regulated));
            statement.exchange(soci::into(created_ms));
            statement.exchange(soci::into(updated_ms));
            statement.exchange(soci::into(tenant_key));
        }
    };
    std::string env_name(owner.env_name());
    config_row row;
    if (!fetch_prepared(session,
                        "SELECT c.id, c.uma_domain, c.proxy_uma_subdomain, c.webhook_endpoint, "
                        "c.supported_currencies, p.is_regulated, c.created_at_ms, c.updated_at_ms, "
                        "c.tenant_key "
                        "FROM platform_configs c JOIN platforms p ON p.id = c.platform_id WHERE "
                        "c.platform_id = :p AND c.environment = :e",
                        row, owner.platform_id, env_name)) {
        return std::nullopt;
    }
    platform_config& config = row.config;
    const std::string& webhook = row.webhook;
    const std::string& currencies = row.currencies;
    soci::indicator webhook_indicator = row.webhook_indicator;
    int regulated = row.regulated;
    long long created_ms = row.created_ms, updated_ms = row.updated_ms;
    config.owner = owner;
    if (webhook_indicator == soci::i_ok) config.webhook_endpoint = webhook;
    {
        // Loaded for every money-moving request and rarely changed: the last text parsed (per
        // thread) is remembered with its result.
        thread_local std::string last_text;
        thread_local std::vector<supported_currency> last_parsed;
        if (last_text.empty() || last_text != currencies) {
            last_parsed = supported_currencies_from_json(currencies);
            last_text = currencies;
        }
        config.supported_currencies = last_parsed;
    }
    config.is_regulated = regulated != 0;
    config.created_at_ms = created_ms;
    config.updated_at_ms = updated_ms;
    config.tenant_key = row.tenant_key;
    CORRIDOR_ASSERT(config.tenant_key > 0);
    return std::pair{std::move(config), std::move(row.currencies)};
}

struct data_version_row {
    long long version = 0;
    void bind(soci::statement& statement) { statement.exchange(soci::into(version)); }
};

}  // namespace

std::optional<platform_config> load_platform_config(soci::session& session, const tenant& owner) {
    auto read = read_platform_config(session, owner);
    if (!read) return std::nullopt;
    return std::move(read->first);
}

std::shared_ptr<const platform_config> load_platform_config_for_payment(soci::session& session,
                                                                        const tenant& owner) {
    deferred_writes* deferred = deferred_writes_of(session);
    if (!deferred) {
        auto loaded = load_platform_config(session, owner);
        if (!loaded) return nullptr;
        return std::make_shared<const platform_config>(std::move(*loaded));
    }
    // When the cached entries can be trusted, and why a change elsewhere cannot let a payment
    // pass rules the platform has replaced: writer_facts.hpp.
    writer_facts& facts = deferred->facts();
    if (backend_of(session) == database_backend::sqlite && !facts.data_version_read()) {
        data_version_row row;
        bool found = fetch_prepared(session, "PRAGMA data_version", row);
        CORRIDOR_ASSERT(found);
        facts.saw_data_version(row.version);
    }
    if (const known_config* known = facts.config(owner)) return known->config;
    std::uint64_t generation = platform_configs_generation();  // before the read
    auto read = read_platform_config(session, owner);
    if (!read) return nullptr;
    auto config = std::make_shared<const platform_config>(std::move(read->first));
    facts.saw_config({owner, config, std::move(read->second), generation, config->tenant_key});
    return config;
}

result<platform_config, platform_error> update_platform_config(soci::session& session,
                                                               platform_services services,
                                                               const tenant& owner,
                                                               const config_patch& patch) {
    const clock& time = services.time;
    std::string env_name(owner.env_name());
    try {
        write_transaction transaction(session);
        auto current = load_platform_config(session, owner);
        if (!current) return platform_error::not_found;
        // A domain belongs to one platform (in both its environments), so UMA lookups on it
        // resolve to exactly one platform.
        if (patch.uma_domain && !claim_uma_domain(session, *patch.uma_domain, owner.platform_id)) {
            return platform_error::uma_domain_taken;
        }
        std::string domain = patch.uma_domain.value_or(current->uma_domain);
        auto webhook = patch.webhook_endpoint.value_or(current->webhook_endpoint);
        std::string currencies = supported_currencies_to_json(
            patch.supported_currencies.value_or(current->supported_currencies));
        std::string webhook_text = webhook.value_or("");
        soci::indicator webhook_indicator = webhook ? soci::i_ok : soci::i_null;
        long long now_ms = std::max<long long>(time.now_ms(), current->updated_at_ms);
        session << "UPDATE platform_configs SET uma_domain = :d, webhook_endpoint = :w, "
                   "supported_currencies = :c, updated_at_ms = :t WHERE platform_id = :p AND "
                   "environment = :e",
            soci::use(domain), soci::use(webhook_text, webhook_indicator), soci::use(currencies),
            soci::use(now_ms), soci::use(owner.platform_id), soci::use(env_name);
        if (patch.uma_domain) release_unused_claims(session, owner.platform_id);
        if (patch.supported_currencies) {
            std::vector<supported_currency> added;
            for (const auto& item : *patch.supported_currencies) {
                bool existed = false;
                for (const auto& old : current->supported_currencies) {
                    existed = existed || old.currency_code == item.currency_code;
                }
                if (!existed) added.push_back(item);
            }
            open_accounts(session, services, owner, added);
        }
        auto updated = load_platform_config(session, owner);
        CORRIDOR_ASSERT(updated.has_value());
        CORRIDOR_ASSERT(updated->uma_domain == domain);
        transaction.commit();
        // The ledger writer's cached configurations are stale from now on (writer_facts.hpp).
        platform_configs_changed();
        return std::move(*updated);
    } catch (const soci::soci_error& error) {
        if (is_unique_violation(error)) return platform_error::uma_domain_taken;
        throw;
    }
}

}  // namespace corridor

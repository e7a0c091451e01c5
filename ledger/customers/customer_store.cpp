#include "ledger/customers/customer_store.hpp"

#include <boost/json.hpp>
#include <set>

#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"
#include "ledger/store/database.hpp"
#include "ledger/store/multi_row.hpp"
#include "ledger/store/nullable_text.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/store/transaction_state.hpp"

namespace corridor {
namespace {

struct customer_row {
    std::string id, platform_id, environment, platform_customer_id, customer_type, uma_address,
        kyc_status;
    nullable_text full_name, birth_date, nationality, address, business_info, beneficial_owners;
    int is_deleted = 0;
    long long created_at_ms = 0, updated_at_ms = 0;

    void bind(soci::statement& statement) {
        for (auto* text : {&id, &platform_id, &environment, &platform_customer_id, &customer_type,
                           &uma_address, &kyc_status}) {
            statement.exchange(soci::into(*text));
        }
        for (auto* text : {&full_name, &birth_date, &nationality, &address, &business_info,
                           &beneficial_owners}) {
            statement.exchange(soci::into(text->value, text->indicator));
        }
        statement.exchange(soci::into(is_deleted));
        statement.exchange(soci::into(created_at_ms));
        statement.exchange(soci::into(updated_at_ms));
    }

    customer to_customer() const {
        customer out;
        out.id = id;
        out.owner = tenant_of_row(platform_id, environment);
        out.platform_customer_id = platform_customer_id;
        out.customer_type = customer_type;
        out.uma_address = uma_address;
        out.kyc_status = kyc_status;
        out.full_name = full_name.get();
        out.birth_date = birth_date.get();
        out.nationality = nationality.get();
        out.address_json = address.get();
        out.business_info_json = business_info.get();
        out.beneficial_owners_json = beneficial_owners.get();
        out.is_deleted = is_deleted != 0;
        out.created_at_ms = created_at_ms;
        out.updated_at_ms = updated_at_ms;
        return out;
    }
};

constexpr const char* customer_select =
    "SELECT id, platform_id, environment, platform_customer_id, customer_type, uma_address, "
    "kyc_status, full_name, birth_date, nationality, address, business_info, beneficial_owners, "
    "is_deleted, created_at_ms, updated_at_ms FROM customers";

// An address has one owner across both environments: it resolves at its domain to that owner,
// so a sandbox customer cannot take a production customer's address, nor the reverse. (The unique
// index customers_uma_address_owner settles races that this check cannot see.) Both environments
// are named so that the (environment, uma_address) index serves the check.
bool uma_address_taken(soci::session& session, const std::string& address,
                       const std::string& except_id) {
    int count = 0;
    session << "SELECT COUNT(*) FROM customers WHERE environment IN ('production', 'sandbox') "
               "AND uma_address = :a AND is_deleted = 0 AND id <> :i",
        soci::use(address), soci::use(except_id), soci::into(count);
    return count > 0;
}

bool platform_customer_id_taken(soci::session& session, const tenant& owner,
                                const std::string& platform_customer_id) {
    int count = 0;
    std::string env_name(owner.env_name());
    session << "SELECT COUNT(*) FROM customers WHERE platform_id = :p AND environment = :e AND "
               "platform_customer_id = :c AND is_deleted = 0",
        soci::use(owner.platform_id), soci::use(env_name), soci::use(platform_customer_id),
        soci::into(count);
    return count > 0;
}

// Which unique index a violation hit, from what the database itself reports: PostgreSQL names the
// index (customers_platform_customer_id), SQLite the columns (customers.platform_customer_id).
// what() is no use here: soci appends the statement text, whose column list names every column.
customer_error classify_unique_violation(const soci::soci_error& error) {
    std::string text = error.get_error_message();
    if (text.find("customers_platform_customer_id") != std::string::npos ||
        text.find("customers.platform_customer_id") != std::string::npos) {
        return customer_error::platform_customer_id_taken;
    }
    return customer_error::uma_address_taken;
}

// The stored businessInfo with the keys of `change` set over it.
std::optional<std::string> merge_business_info(const std::optional<std::string>& change,
                                               const std::optional<std::string>& stored) {
    if (!change || !stored) return change ? change : stored;
    boost::json::value merged = boost::json::parse(*stored);
    const boost::json::value changed = boost::json::parse(*change);
    for (const auto& [key, value] : changed.as_object()) merged.as_object()[key] = value;
    return boost::json::serialize(merged);
}

// Takes the write lock of a live customer's row until the transaction ends, so that the read
// after it sees every change committed before and no other writer (a racing PATCH or DELETE)
// changes the row in between. SQLite's BEGIN IMMEDIATE already serialises writers; PostgreSQL
// under READ COMMITTED needs the row lock. False when there is no live row (none, or deleted).
bool lock_live_customer(soci::session& session, const tenant& owner, const std::string& id) {
    std::string env_name(owner.env_name());
    soci::statement statement =
        (session.prepare << "UPDATE customers SET updated_at_ms = updated_at_ms WHERE id = :i AND "
                            "platform_id = :p AND environment = :e AND is_deleted = 0",
         soci::use(id), soci::use(owner.platform_id), soci::use(env_name));
    statement.execute(true);
    auto affected = statement.get_affected_rows();
    CORRIDOR_ASSERT(affected == 0 || affected == 1);
    return affected == 1;
}

}  // namespace

std::optional<customer> find_customer(soci::session& session, const tenant& owner,
                                      const std::string& id) {
    static const std::string sql =
        std::string(customer_select) + " WHERE platform_id = :p AND environment = :e AND id = :i";
    customer_row row;
    std::string env_name(owner.env_name());
    if (!fetch_prepared(session, sql.c_str(), row, owner.platform_id, env_name, id)) return std::nullopt;
    return row.to_customer();
}

result<customer, customer_error> create_customer(soci::session& session,
                                                 customer_services services, const tenant& owner,
                                                 const std::string& uma_domain,
                                                 const new_customer& request) {
    CORRIDOR_ASSERT(request.customer_type == "INDIVIDUAL" || request.customer_type == "BUSINESS");
    CORRIDOR_ASSERT(!uma_domain.empty());
    std::string id = services.ids.next("Customer");
    std::string platform_customer_id =
        request.platform_customer_id.value_or(id.substr(id.find(':') + 1));
    long long now_ms = services.time.now_ms();
    std::string env_name(owner.env_name());
    try {
        write_transaction transaction(session);
        std::string address;
        if (request.fields.uma_address) {
            address = *request.fields.uma_address;
            if (uma_address_taken(session, address, id)) {
                return customer_error::uma_address_taken;
            }
        } else {
            // 60 random bits: a collision is rare enough that a few attempts always suffice, and the
            // loop stays bounded even with a broken random source.
            constexpr int attempts_max = 8;
            int attempt = 0;
            do {
                CORRIDOR_ASSERT(attempt++ < attempts_max);
                address = "$" + random_base32(services.random, 12) + "@" + uma_domain;
            } while (uma_address_taken(session, address, id));
        }
        if (platform_customer_id_taken(session, owner, platform_customer_id)) {
            return customer_error::platform_customer_id_taken;
        }
        const auto& fields = request.fields;
        nullable_text full_name(fields.full_name), birth_date(fields.birth_date),
            nationality(fields.nationality), address_json(fields.address_json),
            business_info(fields.business_info_json),
            beneficial_owners(fields.beneficial_owners_json);
        session << "INSERT INTO customers (id, platform_id, environment, platform_customer_id, "
                   "customer_type, uma_address, kyc_status, full_name, birth_date, nationality, "
                   "address, business_info, beneficial_owners, is_deleted, created_at_ms, "
                   "updated_at_ms) VALUES (:i, :p, :e, :c, :y, :u, :k, :fn, :bd, :na, :ad, :bi, "
                   ":bo, 0, :t, :t2)",
            soci::use(id), soci::use(owner.platform_id), soci::use(env_name),
            soci::use(platform_customer_id), soci::use(request.customer_type), soci::use(address),
            soci::use(request.kyc_status), soci::use(full_name.value, full_name.indicator),
            soci::use(birth_date.value, birth_date.indicator),
            soci::use(nationality.value, nationality.indicator),
            soci::use(address_json.value, address_json.indicator),
            soci::use(business_info.value, business_info.indicator),
            soci::use(beneficial_owners.value, beneficial_owners.indicator), soci::use(now_ms),
            soci::use(now_ms);
        open_new_customer_accounts(session,
                                   book_services{services.ids, services.random, services.time},
                                   owner, id, request.account_currencies);
        auto created = find_customer(session, owner, id);
        CORRIDOR_ASSERT(created.has_value());
        transaction.commit();
        return std::move(*created);
    } catch (const soci::soci_error& error) {
        if (is_unique_violation(error)) return classify_unique_violation(error);
        throw;
    }
}

namespace {

using customer_outcome = result<std::string, customer_error>;

// The customers of a batch as create_customers plans them: a new id, a platformCustomerId, an
// address; rows refused by the lookups get their outcome instead and are not inserted.
struct customer_batch {
    customer_batch(const tenant& owner, const std::string& now_ms)
        : customers{"customers",
                    {{"id"},
                     {"platform_customer_id"},
                     {"customer_type"},
                     {"uma_address"},
                     {"kyc_status"},
                     {"full_name"},
                     {"birth_date"},
                     {"nationality"},
                     {"address"},
                     {"business_info"},
                     {"beneficial_owners"}},
                    // The same in every row of the batch: bound once per statement.
                    {{{"platform_id"}, owner.platform_id},
                     {{"environment"}, std::string(owner.env_name())},
                     {{"is_deleted", column_type::integer}, "0"},
                     {{"created_at_ms", column_type::integer}, now_ms},
                     {{"updated_at_ms", column_type::integer}, now_ms}}} {}

    std::vector<std::optional<customer_outcome>> outcomes;
    multi_row_insert customers;
    std::vector<std::string> ids;  // of the customers inserted, for their accounts
    std::vector<new_customer_accounts> accounts;
};

// With look_up false the batch is planned as if no key were held in the database yet (only the
// rows of the batch are checked against one another): the caller lets the unique indexes decide.
customer_batch plan_customer_batch(soci::session& session, customer_services services,
                                   const tenant& owner, const std::string& uma_domain,
                                   const std::vector<new_customer>& requests, bool look_up = true) {
    std::string env_name(owner.env_name());
    std::vector<std::string> ids, platform_customer_ids, addresses;
    for (const auto& request : requests) {
        CORRIDOR_ASSERT(request.customer_type == "INDIVIDUAL" ||
                        request.customer_type == "BUSINESS");
        ids.push_back(services.ids.next("Customer"));
        const auto& id = ids.back();
        platform_customer_ids.push_back(
            request.platform_customer_id.value_or(id.substr(id.find(':') + 1)));
        addresses.push_back(request.fields.uma_address.value_or(
            "$" + random_base32(services.random, 12) + "@" + uma_domain));
    }
    // As uma_address_taken and platform_customer_id_taken, for the whole batch at once.
    std::set<std::string> taken_addresses, taken_platform_customer_ids;
    if (look_up) {
        taken_addresses = select_existing(
            session,
            "SELECT uma_address FROM customers WHERE environment IN ('production', 'sandbox') "
            "AND is_deleted = 0 AND uma_address IN_LIST",
            {}, addresses);
        taken_platform_customer_ids = select_existing(
            session,
            "SELECT platform_customer_id FROM customers WHERE platform_id = :p AND environment = "
            ":e AND is_deleted = 0 AND platform_customer_id IN_LIST",
            {owner.platform_id, env_name}, platform_customer_ids);
    }
    customer_batch batch(owner, std::to_string(services.time.now_ms()));
    batch.ids.reserve(requests.size());  // `accounts` points into it
    std::set<std::string> claimed_addresses, claimed_platform_customer_ids;
    for (std::size_t i = 0; i < requests.size(); ++i) {
        const auto& request = requests[i];
        auto& address = addresses[i];
        auto taken = [&](const std::string& candidate) {
            return taken_addresses.contains(candidate) || claimed_addresses.contains(candidate);
        };
        if (request.fields.uma_address && taken(address)) {
            batch.outcomes.emplace_back(customer_error::uma_address_taken);
            continue;
        }
        // A generated address that is taken (60 random bits: hardly ever) is drawn again and
        // checked on its own, as create_customer does.
        constexpr int attempts_max = 8;
        for (int attempt = 1; !request.fields.uma_address && taken(address); ++attempt) {
            CORRIDOR_ASSERT(attempt < attempts_max);
            address = "$" + random_base32(services.random, 12) + "@" + uma_domain;
            if (uma_address_taken(session, address, ids[i])) taken_addresses.insert(address);
        }
        const auto& platform_customer_id = platform_customer_ids[i];
        if (taken_platform_customer_ids.contains(platform_customer_id) ||
            claimed_platform_customer_ids.contains(platform_customer_id)) {
            batch.outcomes.emplace_back(customer_error::platform_customer_id_taken);
            continue;
        }
        claimed_addresses.insert(address);
        claimed_platform_customer_ids.insert(platform_customer_id);
        const auto& fields = request.fields;
        batch.customers.add({ids[i], platform_customer_id, request.customer_type, address,
                             request.kyc_status, fields.full_name, fields.birth_date,
                             fields.nationality, fields.address_json, fields.business_info_json,
                             fields.beneficial_owners_json});
        batch.ids.push_back(ids[i]);
        batch.accounts.push_back({&batch.ids.back(), &request.account_currencies});
        batch.outcomes.emplace_back(ids[i]);
    }
    return batch;
}

}  // namespace

std::optional<std::vector<customer_outcome>> insert_customers_at_once(
    soci::session& session, customer_services services, const tenant& owner,
    const std::string& uma_domain, const std::vector<new_customer>& requests) {
    CORRIDOR_ASSERT(!uma_domain.empty());
    try {
        write_transaction transaction(session);
        auto batch = plan_customer_batch(session, services, owner, uma_domain, requests, false);
        batch.customers.run(session);
        open_new_customers_accounts(session,
                                    book_services{services.ids, services.random, services.time},
                                    owner, batch.accounts);
        transaction.commit();
        std::vector<customer_outcome> out;
        for (auto& outcome : batch.outcomes) out.push_back(std::move(*outcome));
        return out;
    } catch (const soci::soci_error& error) {
        if (!is_unique_violation(error)) throw;
    }
    return std::nullopt;
}

std::vector<customer_outcome> create_customers(soci::session& session, customer_services services,
                                               const tenant& owner, const std::string& uma_domain,
                                               const std::vector<new_customer>& requests) {
    CORRIDOR_ASSERT(!uma_domain.empty());
    std::vector<customer_outcome> out;
    if (backend_of(session) == database_backend::sqlite && in_transaction(session)) {
        // The caller's BEGIN IMMEDIATE holds SQLite's write lock: no other writer can take a key
        // between the lookups and the INSERT, so there is nothing to fall back from and no
        // savepoint is needed. (One over the whole batch would keep an in-memory journal of every
        // page the batch changes, with temp_store=MEMORY: a peak that grew with the tables.)
        auto batch = plan_customer_batch(session, services, owner, uma_domain, requests);
        batch.customers.run(session);
        open_new_customers_accounts(session,
                                    book_services{services.ids, services.random, services.time},
                                    owner, batch.accounts);
        for (auto& outcome : batch.outcomes) out.push_back(std::move(*outcome));
        return out;
    }
    try {
        write_transaction transaction(session);
        auto batch = plan_customer_batch(session, services, owner, uma_domain, requests);
        batch.customers.run(session);
        open_new_customers_accounts(session,
                                    book_services{services.ids, services.random, services.time},
                                    owner, batch.accounts);
        transaction.commit();
        for (auto& outcome : batch.outcomes) out.push_back(std::move(*outcome));
        return out;
    } catch (const soci::soci_error& error) {
        if (!is_unique_violation(error)) throw;
    }
    // Another writer took an address or platformCustomerId after the lookups: the batch rolled
    // back, and one create_customer per row finds out which rows lost.
    for (const auto& request : requests) {
        auto created = create_customer(session, services, owner, uma_domain, request);
        if (created) {
            out.emplace_back(created->id);
        } else {
            out.emplace_back(created.error());
        }
    }
    return out;
}

void refresh_customer_statistics(soci::session& session) {
    if (backend_of(session) == database_backend::postgresql) session << "ANALYZE customers";
}

bool shadowed_addresses_exist(soci::session& session) {
    int found = 0;
    session << "SELECT COUNT(*) FROM (SELECT 1 FROM customers WHERE uma_address_shadowed = 1 AND "
               "is_deleted = 0 LIMIT 1) AS shadowed",
        soci::into(found);
    return found > 0;
}

page<customer> list_customers(soci::session& session, const tenant& owner,
                              const customer_filter& filter, const page_request& request) {
    sql_filter where = tenant_filter(owner);
    if (!filter.include_deleted) where.equals("is_deleted", std::int64_t{0});
    if (filter.platform_customer_id) {
        where.equals("platform_customer_id", *filter.platform_customer_id);
    }
    if (filter.customer_type) where.equals("customer_type", *filter.customer_type);
    if (filter.uma_address) where.equals("uma_address", *filter.uma_address);
    if (filter.created_after_ms) where.at_least("created_at_ms", *filter.created_after_ms);
    if (filter.created_before_ms) where.at_most("created_at_ms", *filter.created_before_ms);
    if (filter.updated_after_ms) where.at_least("updated_at_ms", *filter.updated_after_ms);
    if (filter.updated_before_ms) where.at_most("updated_at_ms", *filter.updated_before_ms);
    return list_page<customer, customer_row>(session, "customers", customer_select, where, request,
                                             [](const customer_row& r) { return r.to_customer(); });
}

result<customer, customer_error> update_customer(soci::session& session, const clock& time,
                                                 const tenant& owner, const std::string& id,
                                                 const std::string& customer_type,
                                                 const customer_fields& changes) {
    try {
        write_transaction transaction(session);
        bool live = lock_live_customer(session, owner, id);
        auto current = find_customer(session, owner, id);
        if (!current) return customer_error::not_found;
        if (current->is_deleted) return customer_error::deleted;
        CORRIDOR_ASSERT(live);
        if (current->customer_type != customer_type) return customer_error::customer_type_mismatch;
        if (changes.uma_address && *changes.uma_address != current->uma_address &&
            uma_address_taken(session, *changes.uma_address, id)) {
            return customer_error::uma_address_taken;
        }
        auto pick = [](const std::optional<std::string>& change,
                       const std::optional<std::string>& old) {
            return nullable_text(change ? change : old);
        };
        std::string address = changes.uma_address.value_or(current->uma_address);
        nullable_text full_name = pick(changes.full_name, current->full_name);
        nullable_text birth_date = pick(changes.birth_date, current->birth_date);
        nullable_text nationality = pick(changes.nationality, current->nationality);
        nullable_text address_json = pick(changes.address_json, current->address_json);
        nullable_text business_info(
            merge_business_info(changes.business_info_json, current->business_info_json));
        nullable_text owners = pick(changes.beneficial_owners_json, current->beneficial_owners_json);
        long long now_ms = std::max<long long>(time.now_ms(), current->updated_at_ms);
        std::string env_name(owner.env_name());
        // A new address ends the shadowing of one held in both environments before migration 20.
        session << "UPDATE customers SET uma_address_shadowed = CASE WHEN uma_address = :u0 "
                   "THEN uma_address_shadowed ELSE 0 END, uma_address = :u, full_name = :fn, "
                   "birth_date = :bd, nationality = :na, address = :ad, business_info = :bi, "
                   "beneficial_owners = :bo, updated_at_ms = :t WHERE id = :i AND platform_id = "
                   ":p AND environment = :e",
            soci::use(address), soci::use(address), soci::use(full_name.value, full_name.indicator),
            soci::use(birth_date.value, birth_date.indicator),
            soci::use(nationality.value, nationality.indicator),
            soci::use(address_json.value, address_json.indicator),
            soci::use(business_info.value, business_info.indicator),
            soci::use(owners.value, owners.indicator), soci::use(now_ms), soci::use(id),
            soci::use(owner.platform_id), soci::use(env_name);
        auto updated = find_customer(session, owner, id);
        CORRIDOR_ASSERT(updated.has_value());
        transaction.commit();
        return std::move(*updated);
    } catch (const soci::soci_error& error) {
        if (is_unique_violation(error)) return customer_error::uma_address_taken;
        throw;
    }
}

result<customer, customer_error> delete_customer(soci::session& session, const clock& time,
                                                 const tenant& owner, const std::string& id) {
    write_transaction transaction(session);
    bool live = lock_live_customer(session, owner, id);
    auto current = find_customer(session, owner, id);
    if (!current) return customer_error::not_found;
    if (current->is_deleted) return customer_error::deleted;
    CORRIDOR_ASSERT(live);
    long long now_ms = std::max<long long>(time.now_ms(), current->updated_at_ms);
    std::string env_name(owner.env_name());
    session << "UPDATE customers SET is_deleted = 1, updated_at_ms = :t WHERE id = :i AND "
               "platform_id = :p AND environment = :e",
        soci::use(now_ms), soci::use(id), soci::use(owner.platform_id), soci::use(env_name);
    auto deleted = find_customer(session, owner, id);
    CORRIDOR_ASSERT(deleted.has_value() && deleted->is_deleted);
    transaction.commit();
    return std::move(*deleted);
}

}  // namespace corridor

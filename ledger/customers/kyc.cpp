#include "ledger/customers/kyc.hpp"

#include <algorithm>
#include <array>
#include <boost/json.hpp>
#include <cctype>
#include <vector>

#include "ledger/base/assert.hpp"
#include "ledger/store/database.hpp"
#include "ledger/base/encoding.hpp"
#include "ledger/store/outbox.hpp"
#include "ledger/store/statement_cache.hpp"
#include "ledger/platforms/token_store.hpp"

namespace corridor {
namespace {

constexpr std::size_t link_token_bytes = 32;

struct link_row {
    std::string platform_id, environment, customer_id, redirect_uri;
    soci::indicator redirect_indicator = soci::i_null;
    long long expires_at_ms = 0, used_at_ms = 0;
    soci::indicator used_indicator = soci::i_null;
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(platform_id));
        statement.exchange(soci::into(environment));
        statement.exchange(soci::into(customer_id));
        statement.exchange(soci::into(redirect_uri, redirect_indicator));
        statement.exchange(soci::into(expires_at_ms));
        statement.exchange(soci::into(used_at_ms, used_indicator));
    }
};

struct status_row {
    std::string kyc_status;
    void bind(soci::statement& statement) { statement.exchange(soci::into(kyc_status)); }
};

}  // namespace

bool kyc_allows_money_movement(std::string_view kyc_status) {
    return kyc_status == "APPROVED" || kyc_status == "MANUALLY_APPROVED";
}

bool is_final_kyc_status(std::string_view kyc_status) {
    return kyc_status != "PENDING_REVIEW";
}

bool customer_may_move_money(soci::session& session, const tenant& owner,
                             const std::string& customer_id) {
    if (customer_id.empty()) return true;
    status_row row;
    std::string env_name(owner.env_name());
    bool found =
        fetch_prepared(session,
                       "SELECT kyc_status FROM customers WHERE id = :i AND platform_id = :p "
                       "AND environment = :e",
                       row, customer_id, owner.platform_id, env_name);
    return !found || kyc_allows_money_movement(row.kyc_status);
}

namespace {

std::string new_link_token(random_source& random) {
    std::array<std::uint8_t, link_token_bytes> bytes{};
    random.fill(bytes);
    return base64url_encode(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

}  // namespace

namespace {

// A hosted-KYC link row: the token is returned once and only its hash is kept. The two link
// tables differ in what the link is for: an existing customer (kyc_links.customer_id) or a person
// still to be made one (kyc_onboarding_links.platform_customer_id).
std::string insert_link(soci::session& session, random_source& random, const clock& time,
                        const tenant& owner, const char* insert_sql, const std::string& subject,
                        const std::optional<std::string>& redirect_uri, std::int64_t ttl_ms) {
    CORRIDOR_ASSERT(ttl_ms > 0 && !subject.empty());
    std::string token = new_link_token(random);
    std::string token_hash = hash_secret(token);
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    long long expires_at_ms = now_ms + ttl_ms;
    std::string redirect = redirect_uri.value_or("");
    soci::indicator redirect_indicator = redirect_uri ? soci::i_ok : soci::i_null;
    session << insert_sql, soci::use(token_hash), soci::use(owner.platform_id), soci::use(env_name),
        soci::use(subject), soci::use(redirect, redirect_indicator), soci::use(expires_at_ms),
        soci::use(now_ms);
    return token;
}

}  // namespace

std::string create_kyc_link(soci::session& session, random_source& random, const clock& time,
                            const tenant& owner, const std::string& customer_id,
                            const std::optional<std::string>& redirect_uri, std::int64_t ttl_ms) {
    return insert_link(session, random, time, owner,
                       "INSERT INTO kyc_links (token_hash, platform_id, environment, customer_id, "
                       "redirect_uri, expires_at_ms, used_at_ms, created_at_ms) VALUES (:h, :p, "
                       ":e, :c, :r, :x, NULL, :t)",
                       customer_id, redirect_uri, ttl_ms);
}

std::optional<kyc_link> find_kyc_link(soci::session& session, std::string_view token) {
    if (token.empty() || token.size() > 128) return std::nullopt;
    std::string token_hash = hash_secret(token);
    link_row row;
    bool found = fetch_prepared(session,
                                "SELECT platform_id, environment, customer_id, redirect_uri, "
                                "expires_at_ms, used_at_ms FROM kyc_links WHERE token_hash = :h",
                                row, token_hash);
    bool onboarding = false;
    if (!found) {
        // A link for someone who is not a customer yet names the platformCustomerId to create
        // (read into customer_id's place).
        found = fetch_prepared(session,
                               "SELECT platform_id, environment, platform_customer_id, "
                               "redirect_uri, expires_at_ms, used_at_ms FROM "
                               "kyc_onboarding_links WHERE token_hash = :h",
                               row, token_hash);
        onboarding = true;
    }
    if (!found) return std::nullopt;
    kyc_link link;
    link.owner = tenant_of_row(row.platform_id, row.environment);
    if (onboarding) {
        link.platform_customer_id = row.customer_id;
    } else {
        link.customer_id = row.customer_id;
    }
    if (row.redirect_indicator == soci::i_ok) link.redirect_uri = row.redirect_uri;
    link.expires_at_ms = row.expires_at_ms;
    if (row.used_indicator == soci::i_ok) link.used_at_ms = row.used_at_ms;
    return link;
}

bool consume_kyc_link(soci::session& session, const clock& time, std::string_view token) {
    std::string token_hash = hash_secret(token);
    long long now_ms = time.now_ms();
    auto affected = run_prepared(session,
                                 "UPDATE kyc_links SET used_at_ms = :n WHERE token_hash = :h AND "
                                 "used_at_ms IS NULL AND expires_at_ms > :n2",
                                 now_ms, token_hash, now_ms);
    CORRIDOR_ASSERT(affected == 0 || affected == 1);
    if (affected == 1) return true;
    // One conditional update: of racing completions only one finds the link unused (PostgreSQL
    // re-checks the condition after the row lock the first one held).
    affected = run_prepared(session,
                            "UPDATE kyc_onboarding_links SET used_at_ms = :n WHERE token_hash = :h "
                            "AND used_at_ms IS NULL AND expires_at_ms > :n2",
                            now_ms, token_hash, now_ms);
    CORRIDOR_ASSERT(affected == 0 || affected == 1);
    return affected == 1;
}

std::string create_kyc_onboarding_link(soci::session& session, random_source& random,
                                       const clock& time, const tenant& owner,
                                       const std::string& platform_customer_id,
                                       const std::optional<std::string>& redirect_uri,
                                       std::int64_t ttl_ms) {
    return insert_link(session, random, time, owner,
                       "INSERT INTO kyc_onboarding_links (token_hash, platform_id, environment, "
                       "platform_customer_id, redirect_uri, expires_at_ms, used_at_ms, "
                       "customer_id, created_at_ms) VALUES (:h, :p, :e, :c, :r, :x, NULL, NULL, :t)",
                       platform_customer_id, redirect_uri, ttl_ms);
}

void record_kyc_onboarding_customer(soci::session& session, std::string_view token,
                                    const std::string& customer_id) {
    std::string token_hash = hash_secret(token);
    session << "UPDATE kyc_onboarding_links SET customer_id = :c WHERE token_hash = :h",
        soci::use(customer_id), soci::use(token_hash);
}

void submit_kyc_review(soci::session& session, id_generator& ids, const clock& time,
                       const tenant& owner, const std::string& customer_id,
                       const std::string& subject_name, std::int64_t decide_at_ms) {
    std::string id = ids.next("KycReview");
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    long long decide_ms = decide_at_ms;
    // A submission replaces any review still pending for the customer.
    run_prepared(session,
                 "UPDATE kyc_reviews SET decision = 'SUPERSEDED', decided_at_ms = :n WHERE "
                 "customer_id = :c AND platform_id = :p AND environment = :e AND decision IS NULL",
                 now_ms, customer_id, owner.platform_id, env_name);
    run_prepared(
        session,
        "INSERT INTO kyc_reviews (id, platform_id, environment, customer_id, subject_name, "
        "decide_at_ms, decision, decided_at_ms, created_at_ms) VALUES (:i, :p, :e, :c, :s, "
        ":d, NULL, NULL, :t)",
        id, owner.platform_id, env_name, customer_id, subject_name, decide_ms, now_ms);
    run_prepared(
        session,
        "UPDATE customers SET kyc_status = 'PENDING_REVIEW', updated_at_ms = :t WHERE id = "
        ":i AND platform_id = :p AND environment = :e",
        now_ms, customer_id, owner.platform_id, env_name);
}

std::string sandbox_kyc_decision(std::string_view subject_name) {
    std::string lower(subject_name);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return lower.find("reject") != std::string::npos ? "REJECTED" : "APPROVED";
}

namespace {

// What every decision writes besides the review itself: the customer's status and its KYC_STATUS
// event, in the caller's transaction.
void apply_kyc_decision(soci::session& session, id_generator& ids, const clock& time,
                        const tenant& owner, const std::string& customer_id,
                        const std::string& decision) {
    long long now_ms = time.now_ms();
    std::string env_name(owner.env_name());
    run_prepared(session,
                 "UPDATE customers SET kyc_status = :k, updated_at_ms = :t WHERE id = :i AND "
                 "platform_id = :p AND environment = :e",
                 decision, now_ms, customer_id, owner.platform_id, env_name);
    std::string platform_customer_id;
    session << "SELECT platform_customer_id FROM customers WHERE id = :i", soci::use(customer_id),
        soci::into(platform_customer_id);
    boost::json::object payload{{"customerId", customer_id},
                                {"platformCustomerId", platform_customer_id},
                                {"kycStatus", decision}};
    record_event(session, ids, time, owner, "KYC_STATUS", boost::json::serialize(payload));
}

}  // namespace

result<kyc_manual_decision, kyc_decision_error> decide_kyc_review(
    soci::session& session, id_generator& ids, const clock& time, const std::string& customer_id,
    bool approve, const std::string& reason) {
    write_transaction transaction(session);
    std::string platform_id, environment, kyc_status;
    soci::statement customer =
        (session.prepare << "SELECT platform_id, environment, kyc_status FROM customers WHERE "
                            "id = :i AND is_deleted = 0",
         soci::use(customer_id), soci::into(platform_id), soci::into(environment),
         soci::into(kyc_status));
    if (!customer.execute(true)) return kyc_decision_error::customer_not_found;
    std::string review_id;
    soci::statement review =
        (session.prepare << "SELECT id FROM kyc_reviews WHERE customer_id = :c AND decision IS "
                            "NULL ORDER BY created_at_ms DESC, id DESC LIMIT 1",
         soci::use(customer_id), soci::into(review_id));
    if (!review.execute(true) || kyc_status != "PENDING_REVIEW") {
        return kyc_decision_error::no_pending_review;
    }
    std::string decision = approve ? "APPROVED" : "REJECTED";
    long long now_ms = time.now_ms();
    soci::indicator reason_indicator = reason.empty() ? soci::i_null : soci::i_ok;
    // Claimed by the update, as the sandbox's decisions are: the upkeep loop of a running server
    // deciding the same (sandbox) review first leaves this one nothing to do.
    soci::statement claim =
        (session.prepare << "UPDATE kyc_reviews SET decision = :d, decided_at_ms = :n, "
                            "decision_reason = :r WHERE id = :i AND decision IS NULL",
         soci::use(decision), soci::use(now_ms), soci::use(reason, reason_indicator),
         soci::use(review_id));
    claim.execute(true);
    if (claim.get_affected_rows() != 1) return kyc_decision_error::no_pending_review;
    tenant owner = tenant_of_row(platform_id, environment);
    apply_kyc_decision(session, ids, time, owner, customer_id, decision);
    transaction.commit();
    return kyc_manual_decision{review_id, owner, decision};
}

int decide_due_kyc_reviews(soci::session& session, id_generator& ids, const clock& time,
                           int limit) {
    CORRIDOR_ASSERT(limit > 0);
    long long now_ms = time.now_ms();
    struct due_review {
        std::string id, platform_id, environment, customer_id, subject_name;
    };
    std::vector<due_review> due;
    due.reserve(static_cast<std::size_t>(limit));
    {
        // A review's row never changes apart from its decision, which the claim below checks, so
        // what it needs is read here with the ids rather than once more per review.
        soci::rowset<soci::row> rows =
            (session.prepare << "SELECT id, platform_id, environment, customer_id, subject_name "
                                "FROM kyc_reviews WHERE environment = 'sandbox' AND decision IS "
                                "NULL AND decide_at_ms <= :n ORDER BY decide_at_ms LIMIT " +
                                    std::to_string(limit),
             soci::use(now_ms));
        for (const auto& row : rows) {
            due.push_back({row.get<std::string>(0), row.get<std::string>(1),
                           row.get<std::string>(2), row.get<std::string>(3),
                           row.get<std::string>(4)});
        }
    }
    int decided = 0;
    for (const auto& review : due) {
        write_transaction transaction(session);
        std::string decision = sandbox_kyc_decision(review.subject_name);
        // Claimed by the update: a review another process decided first is left alone.
        auto claimed =
            run_prepared(session,
                         "UPDATE kyc_reviews SET decision = :d, decided_at_ms = :n WHERE "
                         "id = :i AND decision IS NULL",
                         decision, now_ms, review.id);
        if (claimed != 1) continue;
        apply_kyc_decision(session, ids, time,
                           tenant_of_row(review.platform_id, review.environment),
                           review.customer_id, decision);
        transaction.commit();
        ++decided;
    }
    return decided;
}

}  // namespace corridor

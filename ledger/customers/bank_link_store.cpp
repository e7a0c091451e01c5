#include "ledger/customers/bank_link_store.hpp"

#include <boost/json.hpp>

#include "ledger/base/assert.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/platforms/token_store.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t token_bytes = 32;
constexpr std::string_view fallback_holder_name = "Sandbox Account Holder";

// A token of the form <kind>-<environment>-<64 hex digits>; anything else is not ours.
bool token_shape(std::string_view token, std::string_view kind) {
    for (std::string_view env : {"sandbox", "production"}) {
        std::string prefix = std::string(kind) + "-" + std::string(env) + "-";
        if (!token.starts_with(prefix)) continue;
        std::string_view hex = token.substr(prefix.size());
        return hex.size() == token_bytes * 2 && std::all_of(hex.begin(), hex.end(), [](char c) {
                   return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
               });
    }
    return false;
}

struct link_row {
    std::string platform_id, environment, customer_id;
    long long expires_at_ms = 0;
    long long used_at_ms = 0;
    soci::indicator used_indicator = soci::i_null;
    std::string public_token_hash, bank_id, bank_account_id;
    soci::indicator public_indicator = soci::i_null, bank_indicator = soci::i_null,
                    account_indicator = soci::i_null;
};

std::optional<link_row> read_link(soci::session& session, const std::string& token_hash) {
    link_row row;
    soci::indicator found = soci::i_null;
    std::string hash_echo;
    session
        << "SELECT token_hash, platform_id, environment, customer_id, expires_at_ms, used_at_ms, "
           "public_token_hash, bank_id, bank_account_id FROM bank_link_tokens WHERE token_hash = "
           ":h",
        soci::use(token_hash), soci::into(hash_echo, found), soci::into(row.platform_id),
        soci::into(row.environment), soci::into(row.customer_id), soci::into(row.expires_at_ms),
        soci::into(row.used_at_ms, row.used_indicator),
        soci::into(row.public_token_hash, row.public_indicator),
        soci::into(row.bank_id, row.bank_indicator),
        soci::into(row.bank_account_id, row.account_indicator);
    if (!session.got_data()) return std::nullopt;
    return row;
}

// The beneficiary as the bank reports it: the customer's own name when the platform gave one.
std::pair<json::object, std::string> reported_holder(const customer& owner) {
    if (owner.customer_type == "BUSINESS") {
        std::string name(fallback_holder_name);
        if (owner.business_info_json) {
            auto info = json::parse(*owner.business_info_json);
            if (auto* legal = info.as_object().if_contains("legalName");
                legal && legal->is_string()) {
                name = std::string(legal->as_string());
            }
        }
        return {json::object{{"beneficiaryType", "BUSINESS"}, {"legalName", name}}, name};
    }
    std::string name = owner.full_name.value_or(std::string(fallback_holder_name));
    json::object beneficiary{{"beneficiaryType", "INDIVIDUAL"}, {"fullName", name}};
    if (owner.birth_date) beneficiary["birthDate"] = *owner.birth_date;
    if (owner.nationality) beneficiary["nationality"] = *owner.nationality;
    return {std::move(beneficiary), name};
}

const test_bank_account* find_account(const test_bank& bank, std::string_view id) {
    for (const auto& account : bank.accounts) {
        if (account.id == id) return &account;
    }
    return nullptr;
}

}  // namespace

const std::vector<test_bank>& test_banks() {
    static const std::vector<test_bank> banks = {
        {"corridor-test-bank",
         "Corridor Test Bank",
         "021000021",
         {{"checking", "Everyday Checking", "CHECKING", "1100220031"},
          {"savings", "High-Yield Savings", "SAVINGS", "1100220048"},
          {"insufficient-funds", "Checking (insufficient funds)", "CHECKING", "4400550002"},
          {"closed", "Checking (closed account)", "CHECKING", "4400550003"},
          {"rejected", "Checking (rejected by the bank)", "CHECKING", "4400550004"},
          {"timeout", "Checking (times out)", "CHECKING", "4400550005"}}},
        {"sandbox-credit-union",
         "Sandbox Federal Credit Union",
         "231380104",
         {{"checking", "Share Draft Checking", "CHECKING", "7700880011"},
          {"savings", "Share Savings", "SAVINGS", "7700880029"}}},
        {"example-savings-bank",
         "Example Savings Bank",
         "011000015",
         {{"savings", "Passbook Savings", "SAVINGS", "5500660077"}}},
    };
    return banks;
}

const test_bank* find_test_bank(std::string_view id) {
    for (const auto& bank : test_banks()) {
        if (bank.id == id) return &bank;
    }
    return nullptr;
}

result<issued_link_token, bank_link_error> create_link_token(soci::session& session,
                                                             bank_link_services services,
                                                             const tenant& owner,
                                                             const std::string& customer_id,
                                                             std::int64_t ttl_ms) {
    CORRIDOR_ASSERT(ttl_ms > 0);
    write_transaction transaction(session);
    auto found = find_customer(session, owner, customer_id);
    if (!found) return bank_link_error::customer_not_found;
    if (found->is_deleted) return bank_link_error::customer_deleted;
    issued_link_token issued;
    issued.link_token =
        "link-" + std::string(owner.env_name()) + "-" + random_hex(services.random, token_bytes);
    long long now_ms = services.time.now_ms();
    long long expires_ms = now_ms + ttl_ms;
    issued.expires_at_ms = expires_ms;
    std::string hash = hash_secret(issued.link_token);
    std::string env_name(owner.env_name());
    session << "INSERT INTO bank_link_tokens (token_hash, platform_id, environment, customer_id, "
               "expires_at_ms, "
               "created_at_ms) VALUES (:h, :p, :e, :c, :x, :t)",
        soci::use(hash), soci::use(owner.platform_id), soci::use(env_name), soci::use(customer_id),
        soci::use(expires_ms), soci::use(now_ms);
    transaction.commit();
    return issued;
}

std::optional<link_token_state> find_link_token(soci::session& session, const clock& time,
                                                std::string_view link_token) {
    if (!token_shape(link_token, "link")) return std::nullopt;
    auto row = read_link(session, hash_secret(link_token));
    if (!row || row->expires_at_ms <= time.now_ms()) return std::nullopt;
    link_token_state state;
    state.owner = tenant_of_row(row->platform_id, row->environment);
    state.customer_id = row->customer_id;
    state.expires_at_ms = row->expires_at_ms;
    state.used = row->used_indicator == soci::i_ok;
    if (row->bank_indicator == soci::i_ok) state.bank_id = row->bank_id;
    if (row->account_indicator == soci::i_ok) state.bank_account_id = row->bank_account_id;
    return state;
}

result<std::string, bank_link_error> issue_public_token(soci::session& session,
                                                        bank_link_services services,
                                                        std::string_view link_token,
                                                        std::string_view bank_id,
                                                        std::string_view account_id) {
    write_transaction transaction(session);
    auto state = find_link_token(session, services.time, link_token);
    if (!state) return bank_link_error::token_not_found;
    if (state->used) return bank_link_error::token_used;
    const test_bank* bank = find_test_bank(bank_id);
    if (!bank || !find_account(*bank, account_id)) return bank_link_error::unknown_bank_account;
    std::string public_token = "public-" + std::string(state->owner.env_name()) + "-" +
                               random_hex(services.random, token_bytes);
    std::string public_hash = hash_secret(public_token), link_hash = hash_secret(link_token);
    std::string bank_text(bank_id), account_text(account_id);
    session << "UPDATE bank_link_tokens SET public_token_hash = :ph, bank_id = :b, bank_account_id "
               "= :a WHERE "
               "token_hash = :h AND used_at_ms IS NULL",
        soci::use(public_hash), soci::use(bank_text), soci::use(account_text), soci::use(link_hash);
    transaction.commit();
    return public_token;
}

result<external_account, bank_link_error> complete_bank_link(
    soci::session& session, bank_link_services services, std::string_view link_token,
    std::string_view public_token, const std::optional<std::string>& account_id,
    std::int64_t screening_delay_ms) {
    write_transaction transaction(session);
    if (!token_shape(link_token, "link")) return bank_link_error::token_not_found;
    std::string link_hash = hash_secret(link_token);
    auto row = read_link(session, link_hash);
    if (!row) return bank_link_error::token_not_found;
    if (row->used_indicator == soci::i_ok) return bank_link_error::token_used;
    long long now_ms = services.time.now_ms();
    if (row->expires_at_ms <= now_ms) return bank_link_error::token_not_found;
    if (row->public_indicator != soci::i_ok || !token_shape(public_token, "public") ||
        hash_secret(public_token) != row->public_token_hash) {
        return bank_link_error::public_token_mismatch;
    }
    tenant owner = tenant_of_row(row->platform_id, row->environment);
    const test_bank* bank = find_test_bank(row->bank_id);
    CORRIDOR_ASSERT(bank != nullptr);
    const test_bank_account* account =
        find_account(*bank, account_id.value_or(row->bank_account_id));
    if (!account) return bank_link_error::unknown_bank_account;
    auto holder = find_customer(session, owner, row->customer_id);
    if (!holder) return bank_link_error::customer_not_found;
    if (holder->is_deleted) return bank_link_error::customer_deleted;
    // Claims the link token: of two callbacks racing (in any process) only one updates the row.
    soci::statement claim =
        (session.prepare << "UPDATE bank_link_tokens SET used_at_ms = :t WHERE token_hash = :h "
                            "AND used_at_ms IS NULL",
         soci::use(now_ms), soci::use(link_hash));
    claim.execute(true);
    if (claim.get_affected_rows() != 1) return bank_link_error::token_used;
    auto [beneficiary, name] = reported_holder(*holder);
    json::object fields{{"accountNumber", std::string(account->number)},
                        {"routingNumber", std::string(bank->routing_number)},
                        {"accountCategory", std::string(account->category)},
                        {"bankName", std::string(bank->name)}};
    auto details = bank_reported_us_account(fields, std::move(beneficiary), name);
    CORRIDOR_ASSERT(details.ok());  // the catalogue holds only valid accounts
    new_external_account request;
    request.customer_id = row->customer_id;
    request.currency = "USD";
    request.details = std::move(details.value());
    request.origin = "BANK_LINK";
    request.screening_delay_ms = screening_delay_ms;
    auto created = create_external_account(session, {services.ids, services.time}, owner, request);
    if (!created) {
        switch (created.error()) {
            case external_account_error::customer_not_found:
                return bank_link_error::customer_not_found;
            case external_account_error::customer_deleted: return bank_link_error::customer_deleted;
            default: return bank_link_error::duplicate_account;
        }
    }
    std::string account_id_text = created->id;
    session << "UPDATE bank_link_tokens SET external_account_id = :a WHERE token_hash = :h",
        soci::use(account_id_text), soci::use(link_hash);
    transaction.commit();
    return std::move(created.value());
}

}  // namespace corridor

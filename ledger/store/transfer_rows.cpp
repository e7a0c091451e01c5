#include "ledger/store/transfer_rows.hpp"

#include <string>

#include "ledger/store/pg_arrays.hpp"

namespace corridor {
namespace {

constexpr const char* transfers_unnest_sql =
    "INSERT INTO ledger_transfers (id, debit_account_key, credit_account_key, amount, currency, "
    "code, transaction_id, created_at_ms) SELECT u.i, COALESCE(u.dk, (SELECT a.account_key FROM "
    "ledger_accounts a WHERE a.id = u.di)), COALESCE(u.ck, (SELECT a.account_key FROM "
    "ledger_accounts a WHERE a.id = u.ci)), u.a, u.y, u.k, u.x, u.t FROM unnest($1::uuid[], "
    "$2::integer[], $3::integer[], $4::bigint[], $5::text[], $6::text[], $7::uuid[], "
    "$8::bigint[], $9::text[], $10::text[]) AS u(i, dk, ck, a, y, k, x, t, di, ci)";

// The uuid of a typed id ("<type>:<uuid>"), NULL for an empty one.
void append_uuid(std::string& out, const std::string& id) {
    if (id.empty()) {
        out += "NULL";
        return;
    }
    std::size_t colon = id.find(':');
    out.append(id, colon == std::string::npos ? 0 : colon + 1);  // no quote to escape
}

}  // namespace

pipelined_statement transfers_unnest_statement(const std::vector<deferred_transfer>& rows) {
    using t = deferred_transfer;
    auto key = [](long long t::*key_field) {
        return [key_field](std::string& out, const t& row) {
            out += row.*key_field ? std::to_string(row.*key_field) : "NULL";
        };
    };
    // The account's id where its key is unknown, '' elsewhere.
    auto unknown = [](long long t::*key_field, std::string t::*id_field) {
        return [=](std::string& out, const t& row) {
            append_array_text(out, row.*key_field ? std::string() : row.*id_field);
        };
    };
    auto uuid = [](std::string t::*field) {
        return [field](std::string& out, const t& row) { append_uuid(out, row.*field); };
    };
    return {transfers_unnest_sql,
            {array_of(rows, uuid(&t::id)), array_of(rows, key(&t::debit_account_key)),
             array_of(rows, key(&t::credit_account_key)), number_array(rows, &t::amount),
             text_array(rows, &t::currency), text_array(rows, &t::code),
             array_of(rows, uuid(&t::transaction_id)), number_array(rows, &t::created_at_ms),
             array_of(rows, unknown(&t::debit_account_key, &t::debit_account_id)),
             array_of(rows, unknown(&t::credit_account_key, &t::credit_account_id))}};
}

}  // namespace corridor

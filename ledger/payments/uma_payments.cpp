#include "ledger/payments/uma_payments.hpp"

namespace corridor {

void insert_uma_payment(soci::session& session, const uma_payment_record& r) {
    std::string env(r.owner.env_name());
    long long amount = r.amount_msats, payout = r.payout_sats, expires = r.invoice_expires_at_ms,
              fee = r.receiver_fee_msats, created = r.created_at_ms;
    session << "INSERT INTO uma_payments (quote_id, platform_id, environment, lookup_id, "
               "receiver_uma_address, payee_identifier, uma_version, vasp_domain, invoice, "
               "payment_hash, amount_msats, payout_sats, invoice_expires_at_ms, "
               "receiver_multiplier, receiver_fee_msats, utxo_callback, payee_data, created_at_ms) "
               "VALUES (:q, :p, :e, :l, :r, :pi, :v, :d, :i, :h, :a, :s, :x, :m, :f, :u, :pd, :c)",
        soci::use(r.quote_id), soci::use(r.owner.platform_id), soci::use(env),
        soci::use(r.lookup_id), soci::use(r.receiver_uma_address), soci::use(r.payee_identifier),
        soci::use(r.uma_version), soci::use(r.vasp_domain), soci::use(r.invoice),
        soci::use(r.payment_hash), soci::use(amount), soci::use(payout), soci::use(expires),
        soci::use(r.receiver_multiplier), soci::use(fee), soci::use(r.utxo_callback),
        soci::use(r.payee_data), soci::use(created);
}

std::optional<uma_payment_record> find_uma_payment(soci::session& session, const tenant& owner,
                                                   const std::string& quote_id) {
    std::string env(owner.env_name());
    uma_payment_record r;
    long long amount = 0, payout = 0, expires = 0, fee = 0, created = 0;
    session << "SELECT lookup_id, receiver_uma_address, payee_identifier, uma_version, "
               "vasp_domain, invoice, payment_hash, amount_msats, payout_sats, "
               "invoice_expires_at_ms, receiver_multiplier, receiver_fee_msats, utxo_callback, "
               "payee_data, created_at_ms FROM uma_payments WHERE quote_id = :q AND platform_id = "
               ":p AND environment = :e",
        soci::use(quote_id), soci::use(owner.platform_id), soci::use(env), soci::into(r.lookup_id),
        soci::into(r.receiver_uma_address), soci::into(r.payee_identifier),
        soci::into(r.uma_version), soci::into(r.vasp_domain), soci::into(r.invoice),
        soci::into(r.payment_hash), soci::into(amount), soci::into(payout), soci::into(expires),
        soci::into(r.receiver_multiplier), soci::into(fee), soci::into(r.utxo_callback),
        soci::into(r.payee_data), soci::into(created);
    if (!session.got_data()) return std::nullopt;
    r.quote_id = quote_id;
    r.owner = owner;
    r.amount_msats = amount;
    r.payout_sats = payout;
    r.invoice_expires_at_ms = expires;
    r.receiver_fee_msats = fee;
    r.created_at_ms = created;
    return r;
}

}  // namespace corridor

#include "ledger/payments/uma_receipts.hpp"

#include <vector>

#include "ledger/payments/approvals.hpp"
#include "ledger/base/assert.hpp"
#include "ledger/book/book.hpp"

namespace corridor {
namespace {

constexpr const char* invoice_columns =
    "SELECT payment_hash, transaction_id, platform_id, environment, invoice, amount_msats, state, "
    "created_at_ms, paid_at_ms FROM uma_invoices ";

struct invoice_row {
    std::string hash, transaction_id, platform_id, environment, invoice, state;
    long long amount = 0, created = 0, paid = 0;
    void bind(soci::statement& statement) {
        statement.exchange(soci::into(hash));
        statement.exchange(soci::into(transaction_id));
        statement.exchange(soci::into(platform_id));
        statement.exchange(soci::into(environment));
        statement.exchange(soci::into(invoice));
        statement.exchange(soci::into(amount));
        statement.exchange(soci::into(state));
        statement.exchange(soci::into(created));
        statement.exchange(soci::into(paid));
    }
    uma_invoice_record to_record() const {
        return uma_invoice_record{hash,
                                  transaction_id,
                                  tenant_of_row(platform_id, environment),
                                  invoice,
                                  amount,
                                  state,
                                  created,
                                  paid};
    }
};

std::optional<uma_invoice_record> find_where(soci::session& session, const tenant& owner,
                                             const std::string& column, const std::string& value) {
    invoice_row row;
    std::string env_name(owner.env_name());
    soci::statement statement(session);
    row.bind(statement);
    statement.exchange(soci::use(owner.platform_id));
    statement.exchange(soci::use(env_name));
    statement.exchange(soci::use(value));
    statement.alloc();
    statement.prepare(std::string(invoice_columns) +
                      "WHERE platform_id = :p AND environment = :e AND " + column + " = :v");
    statement.define_and_bind();
    if (!statement.execute(true)) return std::nullopt;
    return row.to_record();
}

// Moves PAID -> SETTLED once; of two settlers (any process) only one updates the row.
bool claim_settlement(soci::session& session, const std::string& payment_hash) {
    soci::statement claim =
        (session.prepare << "UPDATE uma_invoices SET state = 'SETTLED' WHERE payment_hash = :h "
                            "AND state = 'PAID'",
         soci::use(payment_hash));
    claim.execute(true);
    return claim.get_affected_rows() == 1;
}

// Credits the receiving account from the settlement account of its currency (the funds that
// arrived over Lightning) and completes the transaction. False when it is not settleable now.
bool settle(soci::session& session, const payment_services& services,
            const uma_invoice_record& invoice, transaction_record& transaction) {
    if (transaction.status != "PENDING") return false;
    auto approval = find_incoming_approval(session, invoice.owner, invoice.transaction_id);
    if (!approval || approval->state != "APPROVED") return false;
    if (!claim_settlement(session, invoice.payment_hash)) return false;
    book_services book{services.ids, services.random, services.time};
    const std::string& currency = transaction.destination_currency;
    std::string settlement =
        ensure_account(session, book, invoice.owner, account_kind::settlement, "", currency);
    auto posted = post_transfer(session, book, invoice.owner,
                                {settlement, transaction.destination_account_id,
                                 transaction.received_amount, currency, "receive", transaction.id});
    // The settlement account may go negative and the amount was checked positive when created;
    // only an overflowing balance can refuse the credit.
    CORRIDOR_ASSERT(static_cast<bool>(posted));
    std::int64_t now_ms = services.time.now_ms();
    transaction.status = "COMPLETED";
    transaction.settled_at_ms = transaction.updated_at_ms = now_ms;
    store_transaction_outcome(session, transaction);
    record_payment_event(session, services.ids, services.time, services.currencies, transaction);
    auto balance = account_balance(session, transaction.destination_account_id);
    CORRIDOR_ASSERT(balance.has_value());
    record_balance_event(session, services.ids, services.time, services.currencies, invoice.owner,
                         transaction.destination_account_id, transaction.customer_id, currency,
                         *balance - transaction.received_amount, *balance,
                         transaction.platform_customer_id);
    return true;
}

}  // namespace

void record_uma_invoice(soci::session& session, const uma_invoice_record& invoice) {
    std::string env_name(invoice.owner.env_name());
    long long amount = invoice.amount_msats, created = invoice.created_at_ms,
              paid = invoice.paid_at_ms;
    session << "INSERT INTO uma_invoices (payment_hash, transaction_id, platform_id, environment, "
               "invoice, amount_msats, state, created_at_ms, paid_at_ms) VALUES (:h, :t, :p, :e, "
               ":i, :a, :s, :c, :d)",
        soci::use(invoice.payment_hash), soci::use(invoice.transaction_id),
        soci::use(invoice.owner.platform_id), soci::use(env_name), soci::use(invoice.invoice),
        soci::use(amount), soci::use(invoice.state), soci::use(created), soci::use(paid);
}

std::optional<uma_invoice_record> find_uma_invoice(soci::session& session, const tenant& owner,
                                                   const std::string& payment_hash) {
    return find_where(session, owner, "payment_hash", payment_hash);
}

std::optional<uma_invoice_record> find_uma_invoice_of_transaction(
    soci::session& session, const tenant& owner, const std::string& transaction_id) {
    return find_where(session, owner, "transaction_id", transaction_id);
}

result<transaction_record, receipt_failure> receive_uma_invoice_payment(
    soci::session& session, const payment_services& services, const tenant& owner,
    const std::string& payment_hash) {
    auto invoice = find_uma_invoice(session, owner, payment_hash);
    if (!invoice) {
        return receipt_failure{receipt_error::invoice_not_found,
                               "no UMA invoice with payment hash " + payment_hash};
    }
    auto transaction = find_transaction(session, owner, invoice->transaction_id);
    CORRIDOR_ASSERT(transaction.has_value());
    if (invoice->state != "OPEN" || transaction->status != "PENDING") {
        return receipt_failure{
            receipt_error::not_payable,
            "the invoice of " + transaction->id + " is not payable (" +
                (invoice->state != "OPEN" ? "already paid"
                                          : "the payment is " + transaction->status) +
                ")"};
    }
    long long now = services.time.now_ms();
    soci::statement pay =
        (session.prepare << "UPDATE uma_invoices SET state = 'PAID', paid_at_ms = :t WHERE "
                            "payment_hash = :h AND state = 'OPEN'",
         soci::use(now), soci::use(payment_hash));
    pay.execute(true);
    if (pay.get_affected_rows() != 1) {
        return receipt_failure{receipt_error::not_payable, "the invoice is already paid"};
    }
    invoice->state = "PAID";
    invoice->paid_at_ms = now;
    settle(session, services, *invoice, *transaction);
    return std::move(*transaction);
}

int settle_approved_uma_receipts(soci::session& session, const payment_services& services,
                                 int limit) {
    CORRIDOR_ASSERT(limit > 0);
    std::vector<uma_invoice_record> paid;
    {
        invoice_row row;
        soci::statement statement(session);
        row.bind(statement);
        statement.exchange(soci::use(limit));
        statement.alloc();
        statement.prepare(
            std::string(invoice_columns) +
            "WHERE state = 'PAID' AND transaction_id IN (SELECT transaction_id FROM "
            "incoming_approvals WHERE state = 'APPROVED') ORDER BY paid_at_ms LIMIT :l");
        statement.define_and_bind();
        statement.execute(false);
        while (statement.fetch()) paid.push_back(row.to_record());
    }
    int settled = 0;
    for (const auto& invoice : paid) {
        auto transaction = find_transaction(session, invoice.owner, invoice.transaction_id);
        if (transaction && settle(session, services, invoice, *transaction)) ++settled;
    }
    return settled;
}

}  // namespace corridor

#pragma once
// The sandbox Lightning network: a folder that stands in for the Lightning network between the
// Corridor instances of one machine (or of machines sharing the folder), so that an invoice one
// instance issues can be paid by another in the sandbox. Paying writes a payment record named by
// the invoice's payment hash, <dir>/payments/<hash>.json, created atomically (written to a
// temporary file, synced, then hard-linked under its final name, which fails when the name exists),
// so an invoice is paid at most once whoever pays it. Each instance's rail scans the folder and
// receives the payments of invoices whose payee is its own node key.
//
// A record: {"version":1, "paymentHash", "invoice", "amountMsat", "paidAtMs", "payer" (the payer
// node's public key, hex), "payerOperationId" (the payer's operation, so that the payer retrying
// the same operation after a restart finds its own payment instead of a double payment)}.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "rails/rail_sdk/lightning/bolt11.hpp"

namespace corridor::spark {

// Invoices are the rail SDK's Lightning formats, spoken here unqualified.
using namespace corridor::lightning;

enum class payment_outcome {
    paid,               // the record is written: the invoice is paid
    paid_before_by_us,  // this payer's same operation paid it already (a retry)
    already_paid,       // someone else's payment of this invoice exists
    failed,             // the folder cannot be written (message says why); nothing was paid
};

struct payment_result {
    payment_outcome outcome = payment_outcome::failed;
    std::string message;
};

// A payment found in the folder to an invoice of ours.
struct received_payment {
    std::string payment_hash;  // hex
    decoded_invoice invoice;
    std::uint64_t amount_msat = 0;
    std::int64_t paid_at_ms = 0;
};

class sandbox_network {
public:
    // Creates <dir>/payments when missing; throws std::runtime_error when it cannot.
    explicit sandbox_network(std::filesystem::path dir);

    payment_result pay(const std::string& invoice_text, const decoded_invoice& invoice,
                       std::uint64_t amount_msat, const std::string& payer_hex,
                       const std::string& payer_operation_id, std::int64_t now_ms) const;

    // Payments of invoices signed by `payee` on `network` that this object has not returned
    // before, at most `max` (the rest come on the next call). Records that cannot be read, or that
    // are not a valid payment of their invoice, are skipped and named in `problems`.
    std::vector<received_payment> receive(const bytes33& payee, ln_network network, std::size_t max,
                                          std::vector<std::string>& problems);

    const std::filesystem::path& payments_dir() const { return payments_; }

private:
    std::filesystem::path payments_;
    std::set<std::string> seen_;  // file names already looked at (ours or not)
};

}  // namespace corridor::spark

#pragma once
// Maps the payments domain's failures onto the interface's error codes.
#include "ledger/payments/payments.hpp"

namespace corridor {
[[noreturn]] void fail_payment(const payment_failure& failure);
}

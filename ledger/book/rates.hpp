#pragma once
// Where exchange rates and corridor pricing come from. The shipped source reads conf/rates.json and
// re-reads it when its snapshot is older than the cache period, so an operator's edit shows within
// that period (about five minutes by default) and every quote in between prices alike.
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ledger/base/clock.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/book/money.hpp"

namespace corridor {

struct corridor_terms {
    rational mid_rate;                       // receiving major units per sending major unit
    int spread_bps = 0;                      // the service's margin on the rate
    int variable_fee_bps = 0;                // on the converted (net) sending amount
    std::int64_t service_fixed_fee = 0;      // sending minor units
    std::int64_t counterparty_fixed_fee = 0; // sending minor units
    std::string destination_payment_rail;
    std::int64_t updated_at_ms = 0;          // when the rate snapshot was taken
};

class rate_source {
public:
    virtual ~rate_source() = default;
    virtual std::optional<corridor_terms> terms(const currency& sending,
                                                const currency& receiving) const = 0;
    // False for a source that prices nothing because the operator configured no rates.
    virtual bool configured() const { return true; }
};

// Production before the operator configured rates: no terms for any pair, never a sample.
class unconfigured_rate_source final : public rate_source {
public:
    std::optional<corridor_terms> terms(const currency&, const currency&) const override {
        return std::nullopt;
    }
    bool configured() const override { return false; }
};

struct rate_table {
    std::string base;
    std::map<std::string, rational> per_base;  // units of the currency per one base unit
    int spread_bps = 0;
    int variable_fee_bps = 0;
    std::map<std::string, std::int64_t> fixed_fee;  // by sending currency, minor units
    std::int64_t counterparty_fixed_fee = 0;
    struct override_terms {
        std::optional<int> spread_bps, variable_fee_bps;
        std::optional<std::int64_t> fixed_fee;
    };
    std::map<std::string, override_terms> corridors;  // "USD:EUR"
    std::map<std::string, std::string> payment_rails;  // by receiving currency
    bool sample = false;  // "sample": true marks illustrative data, fit for the sandbox only

    // Throws std::runtime_error naming the problem.
    static rate_table from_json(std::string_view text);
};

class file_rate_source final : public rate_source {
public:
    // Loads at once (throws when the file is bad); reloads after cache_ms.
    file_rate_source(std::string path, const clock& time, std::int64_t cache_ms);
    std::optional<corridor_terms> terms(const currency& sending,
                                        const currency& receiving) const override;

private:
    std::shared_ptr<const rate_table> snapshot(std::int64_t& taken_at_ms) const;
    std::string path_;
    const clock& time_;
    std::int64_t cache_ms_;
    mutable std::mutex mutex_;
    mutable std::shared_ptr<const rate_table> table_;
    mutable std::int64_t taken_at_ms_ = 0;
};

// Terms from a fixed table, for tests and simulations.
class table_rate_source final : public rate_source {
public:
    explicit table_rate_source(rate_table table, std::int64_t updated_at_ms = 0)
        : table_(std::move(table)), updated_at_ms_(updated_at_ms) {}
    std::optional<corridor_terms> terms(const currency& sending,
                                        const currency& receiving) const override;

private:
    rate_table table_;
    std::int64_t updated_at_ms_;
};

std::optional<corridor_terms> terms_from_table(const rate_table& table, const currency& sending,
                                               const currency& receiving, std::int64_t updated_at_ms);

}  // namespace corridor

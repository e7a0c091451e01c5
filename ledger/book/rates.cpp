#include "ledger/book/rates.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace corridor {
namespace json = boost::json;
namespace {

[[noreturn]] void bad(const std::string& what) { throw std::runtime_error("rates: " + what); }

int read_bps(const json::object& object, const char* key, int fallback) {
    const json::value* value = object.if_contains(key);
    if (!value) return fallback;
    if (!value->is_int64() || value->as_int64() < 0 || value->as_int64() > 5000) {
        bad(std::string(key) + " must be an integer from 0 to 5000 basis points");
    }
    return static_cast<int>(value->as_int64());
}

std::int64_t read_fee(const json::value& value, const std::string& what) {
    if (!value.is_int64() || value.as_int64() < 0 || value.as_int64() > 1'000'000'000) {
        bad(what + " must be a non-negative integer of minor units");
    }
    return value.as_int64();
}

}  // namespace

rate_table rate_table::from_json(std::string_view text) {
    boost::system::error_code ec;
    json::value document = json::parse(text, ec);
    if (ec || !document.is_object()) bad("the file must hold a JSON object");
    const auto& root = document.as_object();
    rate_table table;
    if (const auto* sample = root.if_contains("sample")) {
        if (!sample->is_bool()) bad("\"sample\" must be true or false");
        table.sample = sample->as_bool();
    }
    const auto* base = root.if_contains("base");
    if (!base || !base->is_string()) bad("\"base\" must name a currency");
    table.base = std::string(base->as_string());
    const auto* rates = root.if_contains("rates");
    if (!rates || !rates->is_object()) bad("\"rates\" must be an object of decimal strings");
    for (const auto& [code, value] : rates->as_object()) {
        if (!value.is_string()) bad("rate of " + std::string(code) + " must be a decimal string");
        auto rate = rational::parse_decimal(value.as_string());
        if (!rate || rate->is_zero()) bad("rate of " + std::string(code) + " must be a positive decimal");
        table.per_base.emplace(std::string(code), *rate);
    }
    if (!table.per_base.contains(table.base) || !(table.per_base.at(table.base) == rational::integer(1))) {
        bad("the base currency must have rate \"1\"");
    }
    if (const auto* pricing = root.if_contains("pricing")) {
        if (!pricing->is_object()) bad("\"pricing\" must be an object");
        const auto& object = pricing->as_object();
        table.spread_bps = read_bps(object, "spread_bps", 0);
        table.variable_fee_bps = read_bps(object, "variable_fee_bps", 0);
        if (const auto* fixed = object.if_contains("fixed_fee")) {
            if (!fixed->is_object()) bad("pricing.fixed_fee must map currencies to minor units");
            for (const auto& [code, fee] : fixed->as_object()) {
                table.fixed_fee[std::string(code)] = read_fee(fee, "pricing.fixed_fee." + std::string(code));
            }
        }
        if (const auto* counterparty = object.if_contains("counterparty_fixed_fee")) {
            table.counterparty_fixed_fee = read_fee(*counterparty, "pricing.counterparty_fixed_fee");
        }
    }
    if (const auto* corridors = root.if_contains("corridors")) {
        if (!corridors->is_object()) bad("\"corridors\" must be an object keyed \"FROM:TO\"");
        for (const auto& [key, value] : corridors->as_object()) {
            if (!value.is_object()) bad("corridor " + std::string(key) + " must be an object");
            const auto& object = value.as_object();
            override_terms terms;
            if (object.contains("spread_bps")) terms.spread_bps = read_bps(object, "spread_bps", 0);
            if (object.contains("variable_fee_bps")) {
                terms.variable_fee_bps = read_bps(object, "variable_fee_bps", 0);
            }
            if (const auto* fee = object.if_contains("fixed_fee")) {
                terms.fixed_fee = read_fee(*fee, "corridors." + std::string(key) + ".fixed_fee");
            }
            table.corridors[std::string(key)] = terms;
        }
    }
    if (const auto* rails = root.if_contains("payment_rails")) {
        if (!rails->is_object()) bad("\"payment_rails\" must map currencies to rail names");
        for (const auto& [code, rail] : rails->as_object()) {
            if (!rail.is_string()) bad("payment_rails." + std::string(code) + " must be a string");
            table.payment_rails[std::string(code)] = std::string(rail.as_string());
        }
    }
    return table;
}

std::optional<corridor_terms> terms_from_table(const rate_table& table, const currency& sending,
                                               const currency& receiving, std::int64_t updated_at_ms) {
    auto from = table.per_base.find(sending.code);
    auto to = table.per_base.find(receiving.code);
    if (from == table.per_base.end() || to == table.per_base.end()) return std::nullopt;
    corridor_terms terms;
    terms.mid_rate = to->second / from->second;
    terms.spread_bps = table.spread_bps;
    terms.variable_fee_bps = table.variable_fee_bps;
    auto fixed = table.fixed_fee.find(sending.code);
    terms.service_fixed_fee = fixed == table.fixed_fee.end() ? 0 : fixed->second;
    terms.counterparty_fixed_fee = table.counterparty_fixed_fee;
    auto override_entry = table.corridors.find(sending.code + ":" + receiving.code);
    if (override_entry != table.corridors.end()) {
        const auto& o = override_entry->second;
        if (o.spread_bps) terms.spread_bps = *o.spread_bps;
        if (o.variable_fee_bps) terms.variable_fee_bps = *o.variable_fee_bps;
        if (o.fixed_fee) terms.service_fixed_fee = *o.fixed_fee;
    }
    auto rail = table.payment_rails.find(receiving.code);
    terms.destination_payment_rail = rail == table.payment_rails.end() ? "INTERNAL" : rail->second;
    terms.updated_at_ms = updated_at_ms;
    return terms;
}

file_rate_source::file_rate_source(std::string path, const clock& time, std::int64_t cache_ms)
    : path_(std::move(path)), time_(time), cache_ms_(cache_ms) {
    std::int64_t taken = 0;
    snapshot(taken);
}

std::shared_ptr<const rate_table> file_rate_source::snapshot(std::int64_t& taken_at_ms) const {
    std::lock_guard lock(mutex_);
    std::int64_t now_ms = time_.now_ms();
    if (!table_ || now_ms - taken_at_ms_ >= cache_ms_) {
        std::ifstream in(path_);
        if (!in) {
            if (!table_) throw std::runtime_error("cannot read rates file " + path_);
        } else {
            std::stringstream text;
            text << in.rdbuf();
            try {
                table_ = std::make_shared<const rate_table>(rate_table::from_json(text.str()));
            } catch (const std::exception&) {
                // A bad edit keeps the last good snapshot serving; at start-up it is fatal.
                if (!table_) throw;
            }
        }
        taken_at_ms_ = now_ms;
    }
    taken_at_ms = taken_at_ms_;
    return table_;
}

std::optional<corridor_terms> file_rate_source::terms(const currency& sending,
                                                      const currency& receiving) const {
    std::int64_t taken_at_ms = 0;
    auto table = snapshot(taken_at_ms);
    return terms_from_table(*table, sending, receiving, taken_at_ms);
}

std::optional<corridor_terms> table_rate_source::terms(const currency& sending,
                                                       const currency& receiving) const {
    return terms_from_table(table_, sending, receiving, updated_at_ms_);
}

}  // namespace corridor

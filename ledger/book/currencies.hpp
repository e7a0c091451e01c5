#pragma once
// The currencies Corridor knows, from conf/currencies.json: ISO 4217 codes (and BTC in satoshis)
// with the number of minor-unit decimals that every amount of that currency is counted in.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace corridor {

struct currency {
    std::string code;
    std::string name;
    std::string symbol;
    int decimals = 2;
};

class currency_registry {
public:
    // Throws std::runtime_error naming the problem when the document is malformed.
    static currency_registry from_json(std::string_view json_text);
    static currency_registry load_file(const std::string& path);

    const currency* find(std::string_view code) const;
    const std::vector<currency>& all() const { return currencies_; }

private:
    std::vector<currency> currencies_;
};

// Three upper-case ASCII letters: the shape of an ISO 4217 code (BTC included).
bool is_currency_code_shape(std::string_view code);

}  // namespace corridor

#include "ledger/book/currencies.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace corridor {

bool is_currency_code_shape(std::string_view code) {
    if (code.size() != 3) return false;
    for (char c : code) {
        if (c < 'A' || c > 'Z') return false;
    }
    return true;
}

currency_registry currency_registry::from_json(std::string_view json_text) {
    boost::system::error_code ec;
    auto document = boost::json::parse(json_text, ec);
    if (ec || !document.is_object() || !document.as_object().contains("currencies") ||
        !document.as_object().at("currencies").is_array()) {
        throw std::runtime_error("currencies: expected an object with a \"currencies\" array");
    }
    currency_registry registry;
    for (const auto& entry : document.as_object().at("currencies").as_array()) {
        const auto* object = entry.if_object();
        if (!object) throw std::runtime_error("currencies: every entry must be an object");
        auto text = [&](const char* key) -> std::string {
            const auto* value = object->if_contains(key);
            if (!value || !value->is_string()) {
                throw std::runtime_error(std::string("currencies: entry lacks string \"") + key +
                                         "\"");
            }
            return std::string(value->as_string());
        };
        currency item;
        item.code = text("code");
        item.name = text("name");
        item.symbol = text("symbol");
        const auto* decimals = object->if_contains("decimals");
        if (!decimals || !decimals->is_int64() || decimals->as_int64() < 0 ||
            decimals->as_int64() > 18) {
            throw std::runtime_error("currencies: " + item.code + " needs decimals 0 to 18");
        }
        item.decimals = static_cast<int>(decimals->as_int64());
        if (!is_currency_code_shape(item.code)) {
            throw std::runtime_error("currencies: bad code \"" + item.code + "\"");
        }
        if (registry.find(item.code)) {
            throw std::runtime_error("currencies: " + item.code + " listed twice");
        }
        registry.currencies_.push_back(std::move(item));
    }
    return registry;
}

currency_registry currency_registry::load_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read currencies file " + path);
    std::stringstream text;
    text << in.rdbuf();
    return from_json(text.str());
}

const currency* currency_registry::find(std::string_view code) const {
    for (const auto& item : currencies_) {
        if (item.code == code) return &item;
    }
    return nullptr;
}

}  // namespace corridor

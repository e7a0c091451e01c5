#include "server/process/reference_data.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace corridor {
namespace {

std::string read_file(const std::string& path, const std::string& what) {
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot read " + what + " " + path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The built-in sample prices: fixed, so their snapshot is as fresh as the moment of asking.
class sample_rate_source final : public rate_source {
public:
    sample_rate_source(rate_table table, const clock& time)
        : table_(std::move(table)), time_(time) {}
    std::optional<corridor_terms> terms(const currency& sending,
                                        const currency& receiving) const override {
        return terms_from_table(table_, sending, receiving, time_.now_ms());
    }

private:
    rate_table table_;
    const clock& time_;
};

bool file_is_sample_rates(const std::string& path) {
    return rate_table::from_json(read_file(path, "rates file")).sample;
}

}  // namespace

currency_registry load_currencies(const service_config& config) {
    if (config.currencies_file.empty())
        return currency_registry::from_json(builtin_currencies_json());
    return currency_registry::load_file(config.currencies_file);
}

uma_provider_catalog load_uma_providers(const service_config& config,
                                        const currency_registry& currencies) {
    if (config.uma_providers_file.empty()) {
        return uma_provider_catalog::from_json(builtin_uma_providers_json(), currencies);
    }
    return uma_provider_catalog::load_file(config.uma_providers_file, currencies);
}

std::unique_ptr<rate_source> production_rates(const service_config& config, const clock& time) {
    if (config.rates_file.empty()) return std::make_unique<unconfigured_rate_source>();
    return std::make_unique<file_rate_source>(config.rates_file, time,
                                              config.rates_cache_seconds * 1000);
}

std::unique_ptr<rate_source> sandbox_rates(const service_config& config, const clock& time) {
    if (!config.sandbox_rates_file.empty()) {
        return std::make_unique<file_rate_source>(config.sandbox_rates_file, time,
                                                  config.rates_cache_seconds * 1000);
    }
    return std::make_unique<sample_rate_source>(rate_table::from_json(sample_rates_json()), time);
}

funding_directory production_funding(const service_config& config) {
    if (config.funding_file.empty()) return {};
    return funding_directory::load_file(config.funding_file);
}

funding_directory sandbox_funding(const service_config& config) {
    if (!config.sandbox_funding_file.empty())
        return funding_directory::load_file(config.sandbox_funding_file);
    return funding_directory::from_json(sample_funding_json());
}

std::vector<std::string> reference_data_warnings(const service_config& config) {
    std::vector<std::string> out;
    if (config.rates_file.empty()) {
        out.push_back(
            "no rates_file: production quotes are refused until the operator configures rates");
    } else if (file_is_sample_rates(config.rates_file)) {
        out.push_back(
            "rates_file " + config.rates_file +
            " is marked sample: production quotes use illustrative rates (development only)");
    }
    if (config.funding_file.empty()) {
        out.push_back("no funding_file: production funding instructions come only from rails");
    } else if (funding_directory::load_file(config.funding_file).sample()) {
        out.push_back(
            "funding_file " + config.funding_file +
            " is marked sample: production funding instructions show illustrative bank details "
            "(development only)");
    }
    return out;
}

}  // namespace corridor

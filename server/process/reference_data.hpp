#pragma once
// The reference data a process serves with, chosen per environment: currencies and the UMA
// provider list (a file of the operator's, else built in), and the prices and funding bank details
// of each environment. Production uses only what the operator configured; the sandbox uses its own
// files or the samples built into the binary, which never price or fund production.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ledger/base/clock.hpp"
#include "ledger/book/currencies.hpp"
#include "ledger/payments/funding_instructions.hpp"
#include "ledger/book/rates.hpp"
#include "ledger/platforms/uma_providers.hpp"
#include "server/process/config.hpp"

namespace corridor {

// The JSON built into the binary (the repository's conf/ files at build time).
std::string_view builtin_currencies_json();
std::string_view builtin_uma_providers_json();
std::string_view sample_rates_json();
std::string_view sample_funding_json();

currency_registry load_currencies(const service_config& config);
uma_provider_catalog load_uma_providers(const service_config& config,
                                        const currency_registry& currencies);

// Production's rates: the operator's file, or a source that prices nothing and says why.
std::unique_ptr<rate_source> production_rates(const service_config& config, const clock& time);
std::unique_ptr<rate_source> sandbox_rates(const service_config& config, const clock& time);
funding_directory production_funding(const service_config& config);
funding_directory sandbox_funding(const service_config& config);

// What an operator should hear at start-up about production's reference data (missing, or sample
// data configured for production).
std::vector<std::string> reference_data_warnings(const service_config& config);

}  // namespace corridor

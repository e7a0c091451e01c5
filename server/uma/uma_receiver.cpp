#include "server/uma/uma_receiver.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <limits>

#include "ledger/base/assert.hpp"
#include "ledger/customers/customer_store.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/uma/uma_lookup.hpp"
#include "uma/ecies.hpp"
#include "uma/lnurlp.hpp"
#include "uma/pay_request.hpp"
#include "uma/pay_response.hpp"
#include "uma/post_transaction.hpp"
#include "uma/responder.hpp"
#include "uma/signing.hpp"
#include "uma/sql_stores.hpp"
#include "uma/verify.hpp"

namespace corridor {
namespace {

constexpr std::int64_t msats_per_btc = 100'000'000'000;
// How soon counterparties refetch our keys while a switch left to a command is staged.
constexpr std::int64_t staged_keys_refetch_ms = 5 * 60 * 1000;

uma_reply error_reply(const uma::uma_error& error) {
    return uma_reply{uma::http_status_of(error.kind), uma::to_json(error)};
}

uma_reply error_reply(uma::error_kind kind, std::string reason) {
    return error_reply(uma::uma_error{kind, std::move(reason), {}});
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

std::vector<tenant> tenants_where(soci::session& session, const std::string& column,
                                  const std::string& value) {
    std::vector<tenant> out;
    std::string platform_id, env;
    soci::statement select = (session.prepare << "SELECT platform_id, environment FROM "
                                                 "platform_configs WHERE " +
                                                     column + " = :v",
                              soci::use(value), soci::into(platform_id), soci::into(env));
    select.execute(false);
    while (select.fetch()) out.push_back(tenant_of_row(platform_id, env));
    std::sort(out.begin(), out.end(), [](const tenant& a, const tenant& b) {
        return a.env == environment::production && b.env != environment::production;
    });
    return out;
}

// "<sub>.<proxy host>" -> "<sub>"; the port, if any, must match the proxy host's when it has one.
std::optional<std::string> proxy_subdomain(std::string_view host, std::string_view proxy_host) {
    std::string suffix = "." + lower(proxy_host);
    std::string name = lower(host);
    if (proxy_host.find(':') == std::string_view::npos) {
        auto colon = name.rfind(':');
        if (colon != std::string::npos && name.find(']') == std::string::npos) name.resize(colon);
    }
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) return std::nullopt;
    std::string sub = name.substr(0, name.size() - suffix.size());
    if (sub.find('.') != std::string::npos) return std::nullopt;
    return sub;
}

// LUD-21 multiplier: millisatoshis per smallest unit of the currency, from the rate source's BTC
// price. Only for the wire (UMA sends it as a JSON number); no stored amount is computed from it.
std::optional<double> multiplier_of(const uma_receiver_services& services, environment env,
                                    const currency& item) {
    const currency* btc = services.currencies.find("BTC");
    if (btc == nullptr) return std::nullopt;
    if (item.code == "BTC") return static_cast<double>(msats_per_btc) / 1e8;
    auto terms = services.rates_for(env).terms(item, *btc);
    if (!terms || terms->mid_rate.is_zero()) return std::nullopt;
    // Exact until the one division at the end: BTC per major unit * msats per BTC / 10^decimals.
    big_int scale = 1;
    for (int i = 0; i < item.decimals; ++i) scale *= 10;
    big_int numerator = terms->mid_rate.numerator() * msats_per_btc;
    big_int denominator = terms->mid_rate.denominator() * scale;
    return static_cast<double>(numerator) / static_cast<double>(denominator);
}

std::int64_t clamp_msats(double value) {
    if (!(value > 0)) return 0;
    if (value >= 9.0e18) return std::numeric_limits<std::int64_t>::max() / 2;
    return static_cast<std::int64_t>(value);
}

std::string uma_kyc_status(std::string_view status) {
    if (status == "APPROVED") return "VERIFIED";
    if (status.starts_with("PENDING")) return "PENDING";
    if (status == "REJECTED" || status == "NOT_STARTED") return "NOT_VERIFIED";
    return "UNKNOWN";
}

uma::receiver_terms terms_for(const uma_receiver_services& services, const platform_config& config,
                              const customer& receiver) {
    uma::receiver_terms terms;
    terms.receiver_identifier = receiver.uma_address;
    terms.callback = services.public_base_url + "/uma/payreq/" + receiver.id;
    terms.description = "Pay " + receiver.uma_address;
    terms.kyc_status = uma_kyc_status(receiver.kyc_status);
    terms.requires_travel_rule = config.is_regulated;
    std::int64_t min_msats = 0, max_msats = 0;
    for (const auto& item : config.supported_currencies) {
        if (!enabled_for(item, "INCOMING")) continue;
        const currency* known = services.currencies.find(item.currency_code);
        if (known == nullptr) continue;
        auto multiplier = multiplier_of(services, config.owner.env, *known);
        if (!multiplier) continue;
        terms.currencies.push_back({known->code, known->name, known->symbol, *multiplier,
                                    item.min_amount, item.max_amount, known->decimals});
        std::int64_t low = clamp_msats(*multiplier * static_cast<double>(item.min_amount));
        std::int64_t high = clamp_msats(*multiplier * static_cast<double>(item.max_amount));
        min_msats = min_msats == 0 ? low : std::min(min_msats, low);
        max_msats = std::max(max_msats, high);
        for (const auto& field : item.required_counterparty_fields) {
            std::string key = payer_data_key(field.name);
            auto found = std::find_if(terms.payer_data.begin(), terms.payer_data.end(),
                                      [&](const auto& option) { return option.key == key; });
            if (found == terms.payer_data.end()) {
                terms.payer_data.push_back({key, field.mandatory});
            } else {
                found->mandatory = found->mandatory || field.mandatory;
            }
        }
    }
    terms.min_sendable_msats = std::max<std::int64_t>(min_msats, 1000);
    terms.max_sendable_msats = std::max(max_msats, terms.min_sendable_msats);
    return terms;
}

std::optional<customer> find_receiver(soci::session& session, const tenant& owner,
                                      const std::string& address) {
    customer_filter filter;
    filter.uma_address = address;
    page_request request;
    request.limit = 1;
    auto found = list_customers(session, owner, filter, request);
    if (found.items.empty()) return std::nullopt;
    return found.items.front();
}

// The address a path user names on a platform domain: "$bob" and LUD-16 "bob" are one user.
std::optional<std::string> address_of(std::string_view user, std::string_view domain) {
    if (!user.empty() && user.front() == '$') user.remove_prefix(1);
    auto parsed = parse_uma_address("$" + std::string(user) + "@" + std::string(domain));
    if (!parsed) return std::nullopt;
    return parsed->text();
}

std::optional<uma::uma_error> verify_sender(soci::session& session,
                                            const uma_receiver_services& services,
                                            const uma::lnurlp_request& request) {
    auto keys = services.counterparty_keys.fetch(*request.vasp_domain);
    if (!keys) return keys.error();
    auto key = uma::signing_key(keys.value());
    if (!key) return key.error();
    uma::sql_nonce_store nonces(session, services.time, uma::default_nonce_window_s);
    return uma::verify_lnurlp_request(request, key.value(), nonces);
}

std::string platform_name(soci::session& session, const std::string& platform_id) {
    std::string name;
    session << "SELECT name FROM platforms WHERE id = :i", soci::use(platform_id), soci::into(name);
    return name;
}

std::optional<customer> find_receiver_by_id(soci::session& session, std::string_view id) {
    std::string platform_id, env, text(id);
    session << "SELECT platform_id, environment FROM customers WHERE id = :i AND is_deleted = 0",
        soci::use(text), soci::into(platform_id), soci::into(env);
    if (!session.got_data()) return std::nullopt;
    return find_customer(session, tenant_of_row(platform_id, env), text);
}

// The amount must fall within what the LNURLP response offered: millisatoshis within
// min/maxSendable, or smallest units of a listed currency within its convertible range.
std::optional<uma::uma_error> check_amount(const uma::pay_request& request,
                                           const uma::receiver_terms& terms) {
    auto out_of_range = [](std::string what) {
        return uma::uma_error{uma::error_kind::amount_out_of_range, std::move(what), {}};
    };
    if (request.receiving_currency) {
        auto listed = std::find_if(
            terms.currencies.begin(), terms.currencies.end(),
            [&](const auto& item) { return item.code == *request.receiving_currency; });
        if (listed == terms.currencies.end()) {
            return uma::uma_error{uma::error_kind::invalid_currency,
                                  "the receiver does not accept " + *request.receiving_currency,
                                  {}};
        }
        if (request.sending_currency && *request.sending_currency == listed->code) {
            if (request.amount < listed->min_sendable || request.amount > listed->max_sendable) {
                return out_of_range("amount must be " + std::to_string(listed->min_sendable) +
                                    " to " + std::to_string(listed->max_sendable) + " " +
                                    listed->code);
            }
            return std::nullopt;
        }
    }
    if (request.sending_currency && request.sending_currency != request.receiving_currency) {
        return uma::uma_error{uma::error_kind::invalid_currency,
                              "amounts are accepted in millisatoshis or in the receiving currency",
                              {}};
    }
    if (request.amount < terms.min_sendable_msats || request.amount > terms.max_sendable_msats) {
        return out_of_range("amount must be " + std::to_string(terms.min_sendable_msats) + " to " +
                            std::to_string(terms.max_sendable_msats) + " millisatoshis");
    }
    return std::nullopt;
}

// Travel-rule data decrypts with our encryption key or, for senders that fetched our keys before
// the last switch, with the key it replaced while the overlap lasts.
bool decrypts_with_ours(const uma_receiver_services& services, const uma::environment_keys& ours,
                        const uma::bytes& data) {
    if (uma::ecies_decrypt(ours.encryption.secret, data)) return true;
    if (!ours.previous_encryption || !ours.previous_retired_at_ms) return false;
    if (services.time.now_ms() >= *ours.previous_retired_at_ms + services.previous_key_overlap_ms) {
        return false;
    }
    return uma::ecies_decrypt(ours.previous_encryption->secret, data).has_value();
}

// An UMA pay request: signed by the payer's provider (keys from its identifier's domain), with
// every mandatory payer field, and travel-rule data that decrypts with our encryption key.
std::optional<uma::uma_error> check_uma_pay_request(soci::session& session,
                                                    const uma_receiver_services& services,
                                                    const uma::environment_keys& ours,
                                                    const uma::pay_request& request,
                                                    const uma::receiver_terms& terms) {
    auto identifier = request.payer_identifier();
    auto at = identifier ? identifier->rfind('@') : std::string::npos;
    if (at == std::string::npos || at + 1 == identifier->size()) {
        return uma::uma_error{uma::error_kind::missing_mandatory_payer_data,
                              "payerData.identifier must be the payer's UMA address",
                              {}};
    }
    std::string domain = identifier->substr(at + 1);
    for (const auto& option : terms.payer_data) {
        const auto* value = request.payer_data.if_contains(option.key);
        if (option.mandatory && (value == nullptr || value->is_null())) {
            return uma::uma_error{uma::error_kind::missing_mandatory_payer_data,
                                  "payerData." + option.key + " is mandatory",
                                  {}};
        }
    }
    auto keys = services.counterparty_keys.fetch(domain);
    if (!keys) return keys.error();
    auto key = uma::signing_key(keys.value());
    if (!key) return key.error();
    // Everything else is checked before the nonce is recorded, so that a refused request (a
    // forgery above all) leaves nothing behind; the record is one insert that only one copy of a
    // request can make, however many race.
    uma::memory_nonce_store window(services.time, uma::default_nonce_window_s);
    if (auto error = uma::verify_pay_request(request, key.value(), domain, window)) return error;
    const auto& compliance = *request.compliance;
    if (const auto& encrypted = compliance.encrypted_travel_rule_info) {
        auto data = uma::from_hex(*encrypted);
        if (!data || !decrypts_with_ours(services, ours, *data)) {
            return uma::uma_error{
                uma::error_kind::invalid_input,
                "encryptedTravelRuleInfo does not decrypt with our encryption key",
                {}};
        }
    }
    uma::sql_nonce_store nonces(session, services.time, uma::default_nonce_window_s);
    if (!nonces.check_and_save(domain, compliance.signature_nonce,
                               compliance.signature_timestamp_s)) {
        return uma::uma_error{uma::error_kind::invalid_nonce, "the nonce was seen before", {}};
    }
    return std::nullopt;
}

// The pay request as an incoming payment: the amount in the receiving currency ("N.CUR") or in
// millisatoshis, the payer data as counterparty information, the payee data the sender asks for
// as the receiver fields the platform is asked to supply.
incoming_uma_request incoming_request_of(const customer& receiver, const uma::pay_request& request,
                                         const uma::receiver_terms& terms) {
    incoming_uma_request out;
    out.receiver = receiver;
    bool in_receiving = request.sending_currency && request.receiving_currency &&
                        *request.sending_currency == *request.receiving_currency;
    // Without `convert` (plain LNURL) the payment is received in BTC when the platform receives
    // it, else in the first currency it receives.
    if (request.receiving_currency) {
        out.receiving_currency = *request.receiving_currency;
    } else {
        auto btc = std::find_if(terms.currencies.begin(), terms.currencies.end(),
                                [](const auto& item) { return item.code == "BTC"; });
        out.receiving_currency = btc != terms.currencies.end() ? std::string("BTC")
                                 : terms.currencies.empty()    ? std::string("BTC")
                                                               : terms.currencies.front().code;
    }
    if (in_receiving) {
        out.receiving_amount = request.amount;
    } else {
        out.amount_msats = request.amount;
    }
    out.sender_uma_address = request.payer_identifier().value_or("");
    boost::json::object payer = request.payer_data;
    payer.erase("compliance");
    out.counterparty_information = boost::json::serialize(payer);
    if (request.requested_payee_data) {
        for (const auto& option : *request.requested_payee_data) {
            if (auto field = customer_info_field(option.key))
                out.requested_fields.push_back({*field, option.mandatory});
        }
    }
    out.description = request.comment.value_or("");
    return out;
}

uma::pay_response pay_response_of(const uma_receiver_services& services,
                                  const uma::pay_request& request, const customer& receiver,
                                  const incoming_uma_payment& payment,
                                  const std::optional<uma::private_key>& signing) {
    uma::pay_response response;
    response.major_version = request.major_version;
    response.pr = payment.invoice;
    response.disposable = false;
    if (request.is_uma()) {
        uma::payee_compliance compliance;
        compliance.signature_nonce = uma::generate_nonce(services.random);
        compliance.signature_timestamp_s = services.time.now_ms() / 1000;
        compliance.signature = uma::sign_payload(
            uma::signable_payload(compliance, request.payer_identifier().value_or(""),
                                  receiver.uma_address),
            *signing);
        response.compliance = std::move(compliance);
        response.payee_data["identifier"] = receiver.uma_address;
    }
    if (request.receiving_currency) {
        uma::converted_amount converted;
        converted.amount = payment.received_amount;
        converted.currency_code = *request.receiving_currency;
        converted.decimals = payment.decimals;
        converted.multiplier = payment.multiplier;
        converted.fee_msats = payment.fee_msats;
        response.converted = std::move(converted);
    }
    return response;
}

}  // namespace

std::string requested_host(std::optional<std::string_view> forwarded_host,
                           std::optional<std::string_view> host) {
    if (forwarded_host && !forwarded_host->empty()) {
        std::string_view first = forwarded_host->substr(0, forwarded_host->find(','));
        while (!first.empty() && first.front() == ' ') first.remove_prefix(1);
        while (!first.empty() && first.back() == ' ') first.remove_suffix(1);
        if (!first.empty()) return lower(first);
    }
    return host ? lower(*host) : std::string();
}

std::vector<platform_config> uma_platforms_for_host(soci::session& session, std::string_view host,
                                                    std::string_view proxy_host) {
    std::vector<tenant> tenants;
    if (auto sub = proxy_subdomain(host, proxy_host)) {
        tenants = tenants_where(session, "proxy_uma_subdomain", *sub);
    }
    if (tenants.empty()) {
        if (auto domain = normalize_uma_domain(host))
            tenants = tenants_where(session, "uma_domain", *domain);
    }
    std::vector<platform_config> out;
    for (const auto& owner : tenants) {
        if (auto config = load_platform_config(session, owner)) out.push_back(std::move(*config));
    }
    return out;
}

uma_reply answer_lnurlp(soci::session& session, const uma_receiver_services& services,
                        std::string_view host, std::string_view target) {
    auto platforms = uma_platforms_for_host(session, host, services.proxy_host);
    if (platforms.empty()) {
        return error_reply(uma::error_kind::user_not_found,
                           "no platform receives UMA payments at " + std::string(host));
    }
    // The signed receiver address is always on the platform's UMA domain, whichever host (a proxy
    // subdomain, an internal name) the request reached us by.
    const std::string& domain = platforms.front().uma_domain;
    auto request = uma::parse_lnurlp_request(target, domain);
    if (!request) return error_reply(request.error());
    auto address = address_of(request->user, domain);
    if (!address) return error_reply(uma::error_kind::user_not_found, "no such user");
    // The environment that holds the address answers, with its currencies and rails: an address
    // has one owner across both environments (production first for one held in both before that
    // rule, see migration 20). A proxy subdomain names one environment.
    const platform_config* config = nullptr;
    std::optional<customer> receiver;
    for (const auto& candidate : platforms) {
        receiver = find_receiver(session, candidate.owner, *address);
        if (receiver) {
            config = &candidate;
            break;
        }
    }
    if (!receiver) return error_reply(uma::error_kind::user_not_found, "no user " + *address);
    if (request->is_uma()) {
        if (auto error = verify_sender(session, services, request.value()))
            return error_reply(*error);
    }
    uma::sql_key_store keys(session, services.time, services.random, services.sealing);
    // Signed with the keys /.well-known/lnurlpubkey publishes at the domain.
    auto signing =
        keys.keys_for(uma_key_owner(session, *config), config->uma_domain).signing.secret;
    auto response =
        uma::build_lnurlp_response(request.value(), terms_for(services, *config, *receiver),
                                   signing, services.time, services.random);
    if (!response) return error_reply(response.error());
    return uma_reply{200, uma::to_json(response.value())};
}

uma_reply answer_pubkeys(soci::session& session, const uma_receiver_services& services,
                         std::string_view host) {
    auto platforms = uma_platforms_for_host(session, host, services.proxy_host);
    if (platforms.empty()) {
        return error_reply(uma::error_kind::user_not_found,
                           "no platform receives UMA payments at " + std::string(host));
    }
    const auto& config = platforms.front();
    uma::sql_key_store keys(session, services.time, services.random, services.sealing);
    auto ours = keys.keys_for(uma_key_owner(session, config), config.uma_domain);
    auto document = uma::public_keys_of(ours);
    if (ours.next_signing) {
        // A switch is staged: the keys expire when it happens (rounded up to the second), so
        // that counterparties fetch the new ones then. A switch left to a command has no time;
        // counterparties then refetch every few minutes until it happens.
        std::int64_t now_ms = services.time.now_ms();
        std::int64_t switch_ms = ours.next_activate_at_ms.value_or(now_ms + staged_keys_refetch_ms);
        document.expiration_timestamp_s = (switch_ms + 999) / 1000;
    }
    return uma_reply{200, uma::to_json(document)};
}

uma_reply answer_uma_configuration(soci::session& session, const uma_receiver_services& services,
                                   std::string_view host) {
    auto platforms = uma_platforms_for_host(session, host, services.proxy_host);
    if (platforms.empty()) {
        return error_reply(uma::error_kind::user_not_found,
                           "no platform receives UMA payments at " + std::string(host));
    }
    return uma_reply{
        200, uma::uma_configuration(platform_name(session, platforms.front().owner.platform_id),
                                    std::nullopt)};
}

result<checked_pay_request, uma_reply> check_pay_request(soci::session& session,
                                                         const uma_receiver_services& services,
                                                         std::string_view customer_id,
                                                         std::string_view target,
                                                         std::optional<std::string_view> body) {
    auto request = body ? uma::parse_pay_request(*body) : uma::parse_pay_request_query(target);
    if (!request) return error_reply(request.error());
    auto receiver = find_receiver_by_id(session, customer_id);
    if (!receiver) return error_reply(uma::error_kind::user_not_found, "no such receiver");
    auto config = load_platform_config(session, receiver->owner);
    if (!config) return error_reply(uma::error_kind::user_not_found, "no such receiver");
    auto terms = terms_for(services, *config, *receiver);
    if (auto error = check_amount(request.value(), terms)) return error_reply(*error);
    checked_pay_request out;
    if (request->is_uma()) {
        uma::sql_key_store keys(session, services.time, services.random, services.sealing);
        auto ours = keys.keys_for(uma_key_owner(session, *config), config->uma_domain);
        if (auto error = check_uma_pay_request(session, services, ours, request.value(), terms)) {
            return error_reply(*error);
        }
        out.signing = ours.signing.secret;
    }
    out.incoming = incoming_request_of(*receiver, request.value(), terms);
    out.request = std::move(request.value());
    return out;
}

uma_reply answer_checked_pay_request(soci::session& session, const uma_receiver_services& services,
                                     const checked_pay_request& checked) {
    CORRIDOR_ASSERT(services.payments != nullptr && services.node != nullptr);
    CORRIDOR_ASSERT(checked.signing.has_value() == checked.request.is_uma());
    auto started =
        start_incoming_uma_payment(session, *services.payments, *services.node, checked.incoming);
    if (!started) return error_reply(started.error());
    return uma_reply{
        200, uma::to_json(pay_response_of(services, checked.request, checked.incoming.receiver,
                                          started.value(), checked.signing))};
}

uma_reply answer_pay_request(soci::session& session, const uma_receiver_services& services,
                             std::string_view customer_id, std::string_view target,
                             std::optional<std::string_view> body) {
    auto checked = check_pay_request(session, services, customer_id, target, body);
    if (!checked) return checked.error();
    return answer_checked_pay_request(session, services, checked.value());
}

uma_reply answer_post_transaction(std::string_view body) {
    auto callback = uma::parse_post_transaction_callback(body);
    if (!callback) return error_reply(callback.error());
    return error_reply(uma::error_kind::not_implemented,
                       "post-transaction callbacks are not processed yet");
}

}  // namespace corridor

// GET /receiver/uma/{receiverUmaAddress}: a platform's customer looks up an UMA receiver at its
// provider. The request is signed with the platform environment's UMA key; the answer's signature
// and receiver are checked against the provider's published keys before anything is stored.
#include "ledger/customers/customer_store.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "ledger/base/uma_address.hpp"
#include "server/api/app.hpp"
#include "server/api/errors.hpp"
#include "server/uma/uma_identity.hpp"
#include "server/uma/uma_lookup.hpp"
#include "uma/sender.hpp"
#include "uma/sql_stores.hpp"

namespace corridor {
namespace {

namespace json = boost::json;

customer require_sender(request_context& context) {
    const auto& query = context.query;
    auto customer_id = query.get("customerId");
    auto sender_address = query.get("senderUmaAddress");
    if (customer_id && sender_address)
        fail_field("customerId", "give customerId or senderUmaAddress, not both");
    if (!customer_id && !sender_address)
        fail_field("customerId", "customerId or senderUmaAddress is required");
    if (customer_id) {
        auto sender = find_customer(context.session(), context.owner(), *customer_id);
        if (!sender || sender->is_deleted) {
            fail(error_code::user_not_found, "no customer " + *customer_id,
                 json::object{{"field", "customerId"}});
        }
        return *sender;
    }
    auto parsed = parse_uma_address(*sender_address);
    if (!parsed) {
        fail(error_code::invalid_uma_address, "senderUmaAddress: must be $user@domain",
             json::object{{"field", "senderUmaAddress"}});
    }
    customer_filter filter;
    filter.uma_address = parsed->text();
    page_request page;
    page.limit = 1;
    auto found = list_customers(context.session(), context.owner(), filter, page);
    if (found.items.empty()) {
        fail(error_code::user_not_found, "no customer has the UMA address " + parsed->text(),
             json::object{{"field", "senderUmaAddress"}});
    }
    return found.items.front();
}

http_response lookup_uma_receiver(request_context& context) {
    auto& services = context.services;
    auto receiver = parse_uma_address(context.param(0));
    if (!receiver) {
        fail(error_code::invalid_uma_address, "receiverUmaAddress: must be $user@domain",
             json::object{{"field", "receiverUmaAddress"}});
    }
    customer sender = require_sender(context);
    if (sender.uma_address == receiver->text()) {
        fail(error_code::self_payment, "the receiver is the sender",
             json::object{{"field", "receiverUmaAddress"}});
    }
    std::string sending_code = context.query.get("sendingCurrency").value_or("USD");
    if (!services.currencies.find(sending_code)) {
        fail(error_code::invalid_currency,
             "sendingCurrency: " + sending_code + " is not a supported currency",
             json::object{{"field", "sendingCurrency"}});
    }
    // Plain HTTP is what the SDKs use for local domains; only a test setup may go there.
    if (uma::is_local_domain(receiver->domain) &&
        !services.config.outbound_allow_private_addresses) {
        fail(error_code::lnurlp_request_failed,
             "the receiver's domain " + receiver->domain +
                 " is local; it is reached only when "
                 "outbound.allow_private_addresses is set",
             json::object{{"field", "receiverUmaAddress"}});
    }
    auto config = load_platform_config(context.session(), context.owner());
    if (!config) fail(error_code::not_found, "platform configuration not found");

    auto& session = context.session();
    uma::sender_identity identity = sender_identity_of(session, services, *config);
    uma::sql_nonce_store nonces(session, services.time, uma::default_nonce_window_s);
    // No transaction is open here: the session holds nothing while the provider is asked.
    auto found =
        uma::lookup_receiver(receiver->text(), identity,
                             uma::sender_services{*services.uma_transport, *services.uma_keys,
                                                  nonces, services.time, services.random});
    if (!found) throw lookup_failure(found.error());

    uma_lookup_record record;
    record.id = services.ids.next("Lookup");
    record.owner = context.owner();
    record.sender_customer_id = sender.id;
    record.receiver_uma_address = receiver->text();
    record.uma_version = found->version.text();
    record.sending_currency = sending_code;
    record.response = std::move(found->response);
    record.receiver_keys = std::move(found->receiver_keys);
    record.created_at_ms = services.time.now_ms();
    insert_uma_lookup(session, record);
    return json_response(200, render_uma_lookup(record, services.currencies, services.rates_for(record.owner.env)));
}

}  // namespace

void register_uma_lookup_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = versioned("/receiver/uma/{receiverUmaAddress}"),
                .permission = permission_view,
                .handler = lookup_uma_receiver});
}

}  // namespace corridor

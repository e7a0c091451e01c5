// Hosted KYC: GET /customers/kyc-link (the platform asks for a single-use link for one customer)
// and the page at that link, GET and POST /kyc/{token}, served to the customer's browser without
// credentials: the unguessable token is the authority, and it works once, before it expires.
#include <boost/json.hpp>
#include <boost/url.hpp>
#include <map>

#include "ledger/customers/customer_store.hpp"
#include "ledger/store/database.hpp"
#include "ledger/customers/kyc.hpp"
#include "ledger/platforms/platform_store.hpp"
#include "server/api/app.hpp"
#include "server/api/customer_input.hpp"
#include "server/api/errors.hpp"
#include "server/api/kyc_page.hpp"

namespace corridor {
namespace json = boost::json;
namespace {

constexpr std::size_t redirect_uri_chars_max = 2048;
constexpr std::size_t platform_customer_id_chars_max = 256;  // as on POST /customers

// Pages carry the link's token in their URL: nothing may load from elsewhere, and no Referer may
// carry the token to the redirect target.
http_response html_response(int status, std::string body) {
    http_response response;
    response.status = status;
    response.content_type = "text/html; charset=utf-8";
    response.body = std::move(body);
    response.headers.emplace_back("Content-Security-Policy",
                                  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
                                  "frame-ancestors 'none'");
    response.headers.emplace_back("Referrer-Policy", "no-referrer");
    response.headers.emplace_back("X-Content-Type-Options", "nosniff");
    return response;
}

std::optional<std::string> read_redirect_uri(const query_params& query) {
    auto text = query.get("redirectUri");
    if (!text) return std::nullopt;
    if (text->size() > redirect_uri_chars_max) fail_field("redirectUri", "is too long");
    auto parsed = boost::urls::parse_absolute_uri(*text);
    if (!parsed || (parsed->scheme() != "https" && parsed->scheme() != "http") ||
        parsed->encoded_host().empty()) {
        fail_field("redirectUri", "must be an absolute http:// or https:// URL");
    }
    return text;
}

http_response kyc_link_handler(request_context& context) {
    auto platform_customer_id = context.query.get("platformCustomerId");
    if (!platform_customer_id || platform_customer_id->empty()) {
        fail_field("platformCustomerId", "is required");
    }
    auto redirect_uri = read_redirect_uri(context.query);
    customer_filter filter;
    filter.platform_customer_id = *platform_customer_id;
    page_request one;
    one.limit = 1;
    auto found = list_customers(context.session(), context.owner(), filter, one);
    const auto& services = context.services;
    std::string base = services.config.public_base_url;
    while (!base.empty() && base.back() == '/') base.pop_back();
    if (found.items.empty()) {
        // Someone who is not a customer yet: completing the hosted form creates the customer.
        if (platform_customer_id->size() > platform_customer_id_chars_max) {
            fail_field("platformCustomerId", "is too long (at most " +
                                                 std::to_string(platform_customer_id_chars_max) +
                                                 " characters)");
        }
        if (!is_clean_text(*platform_customer_id)) {
            fail_field("platformCustomerId", "must be UTF-8 text without NUL characters");
        }
        std::string token;
        {
            write_transaction transaction(context.session());
            token = create_kyc_onboarding_link(context.session(), services.random, services.time,
                                               context.owner(), *platform_customer_id, redirect_uri,
                                               services.config.kyc.link_ttl_seconds * 1000);
            transaction.commit();
        }
        return json_response(200, json::object{{"kycUrl", base + "/kyc/" + token},
                                               {"platformCustomerId", *platform_customer_id}});
    }
    const customer& subject = found.items.front();
    if (kyc_allows_money_movement(subject.kyc_status)) {
        fail(error_code::conflict, "customer " + subject.id + " is already " + subject.kyc_status,
             json::object{{"kycStatus", subject.kyc_status}});
    }
    std::string token;
    {
        write_transaction transaction(context.session());
        token =
            create_kyc_link(context.session(), services.random, services.time, context.owner(),
                            subject.id, redirect_uri, services.config.kyc.link_ttl_seconds * 1000);
        transaction.commit();
    }
    return json_response(200, json::object{{"kycUrl", base + "/kyc/" + token},
                                           {"platformCustomerId", subject.platform_customer_id},
                                           {"customerId", subject.id}});
}

// The link and its customer when the link can still be used (no customer for a link that
// onboards a new person); otherwise the page to show instead.
struct usable_link {
    std::optional<kyc_link> link;
    std::optional<customer> subject;
    std::optional<http_response> refusal;
};

usable_link open_link(request_context& context) {
    usable_link out;
    auto link = find_kyc_link(context.session(), context.param(0));
    if (!link) {
        out.refusal = html_response(404, render_kyc_message("Link not found",
                                                            "This verification link is not valid. "
                                                            "Ask for a new one."));
        return out;
    }
    if (link->used_at_ms) {
        out.refusal =
            html_response(410, render_kyc_message("Link already used",
                                                  "This verification link has already been "
                                                  "used. Ask for a new one if needed."));
        return out;
    }
    if (context.services.time.now_ms() >= link->expires_at_ms) {
        out.refusal =
            html_response(410, render_kyc_message("Link expired",
                                                  "This verification link has expired. Ask "
                                                  "for a new one."));
        return out;
    }
    if (link->customer_id.empty()) {
        out.link = std::move(link);
        return out;
    }
    auto subject = find_customer(context.session(), link->owner, link->customer_id);
    if (!subject || subject->is_deleted) {
        out.refusal = html_response(
            410,
            render_kyc_message("Link no longer valid", "This verification is no longer needed."));
        return out;
    }
    out.link = std::move(link);
    out.subject = std::move(subject);
    return out;
}

std::map<std::string, std::string> stored_values(const customer& subject) {
    std::map<std::string, std::string> values;
    if (subject.full_name) values["fullName"] = *subject.full_name;
    if (subject.birth_date) values["birthDate"] = *subject.birth_date;
    if (subject.nationality) values["nationality"] = *subject.nationality;
    for (const auto* document : {&subject.address_json, &subject.business_info_json}) {
        if (!*document) continue;
        json::value parsed = json::parse(**document);
        for (const auto& [key, value] : parsed.as_object()) {
            if (value.is_string()) values[std::string(key)] = std::string(value.as_string());
        }
    }
    return values;
}

// The kind of customer a new person's form is for: ?type= on the page, customerType in the form.
std::string new_person_type(std::optional<std::string> chosen) {
    return chosen && *chosen == "BUSINESS" ? "BUSINESS" : "INDIVIDUAL";
}

http_response kyc_page_handler(request_context& context) {
    auto opened = open_link(context);
    if (opened.refusal) return std::move(*opened.refusal);
    if (!opened.subject) {
        return html_response(
            200, render_kyc_form(new_person_type(context.query.get("type")), true, {}, ""));
    }
    return html_response(200, render_kyc_form(*opened.subject, stored_values(*opened.subject), ""));
}

// The form body (application/x-www-form-urlencoded) as field values; '+' is a space there.
std::map<std::string, std::string> read_form(const http_request& request) {
    std::string query = request.body;
    for (auto& c : query) {
        if (c == '+') c = ' ';
    }
    // Spaces were '+': re-encode them so the query decoder accepts the text.
    std::string target = "/?";
    for (char c : query) target += c == ' ' ? std::string("%20") : std::string(1, c);
    query_params params(target);
    std::map<std::string, std::string> values;
    for (auto name :
         {"customerType", "fullName", "birthDate", "nationality", "legalName", "registrationNumber",
          "taxId", "line1", "line2", "city", "state", "postalCode", "country"}) {
        auto value = params.get(name);
        if (!value) continue;
        while (!value->empty() && value->back() == ' ') value->pop_back();
        while (!value->empty() && value->front() == ' ') value->erase(0, 1);
        if (!value->empty()) values[name] = *value;
    }
    return values;
}

// The customer fields of the form, by the rules of PATCH /customers, with what the page requires.
customer_fields read_submission(const std::string& customer_type,
                                const std::map<std::string, std::string>& values,
                                const platform_config& config, std::int64_t now_ms) {
    bool individual = customer_type == "INDIVIDUAL";
    auto value = [&](const char* name) {
        auto found = values.find(name);
        return found == values.end() ? std::string() : found->second;
    };
    auto require = [&](std::initializer_list<const char*> names) {
        for (auto name : names) {
            if (value(name).empty()) fail_field(name, "is required");
        }
    };
    json::object body;
    if (individual) {
        require({"fullName", "birthDate", "nationality"});
        body["fullName"] = value("fullName");
        body["birthDate"] = value("birthDate");
        body["nationality"] = value("nationality");
    } else {
        require({"legalName", "registrationNumber"});
        json::object info{{"legalName", value("legalName")},
                          {"registrationNumber", value("registrationNumber")}};
        if (!value("taxId").empty()) info["taxId"] = value("taxId");
        body["businessInfo"] = std::move(info);
    }
    require({"line1", "city", "postalCode", "country"});
    json::object address;
    for (auto name : {"line1", "line2", "city", "state", "postalCode", "country"}) {
        if (!value(name).empty()) address[name] = value(name);
    }
    body["address"] = std::move(address);
    return read_customer_fields(body, customer_type, config.uma_domain, false, now_ms);
}

// The name the review decides on: the person's, or the business's legal name.
std::string subject_name_of(const customer_fields& fields) {
    std::string name = fields.full_name.value_or("");
    if (fields.business_info_json) {
        auto info = json::parse(*fields.business_info_json).as_object();
        if (auto* legal = info.if_contains("legalName")) name = std::string(legal->as_string());
    }
    return name;
}

http_response after_submission(const kyc_link& link) {
    if (link.redirect_uri) {
        http_response response = html_response(303, "");
        response.content_type.clear();
        response.headers.emplace_back("Location", *link.redirect_uri);
        return response;
    }
    return html_response(200, render_kyc_message("Thank you",
                                                 "Your details were submitted for review. You can "
                                                 "close this page."));
}

// A new person's completed form: the customer is created with the link's platformCustomerId, its
// internal accounts, and its review (PENDING_REVIEW), in the transaction that uses the link, so
// that the link creates at most one customer however many completions race.
http_response onboard_new_person(request_context& context, const kyc_link& link) {
    auto values = read_form(context.request);
    std::string type = values.contains("customerType") ? values["customerType"] : "";
    if (type != "INDIVIDUAL" && type != "BUSINESS") {
        return html_response(400, render_kyc_form(new_person_type(std::nullopt), true, values,
                                                  "customerType: must be INDIVIDUAL or BUSINESS"));
    }
    auto config = load_platform_config(context.session(), link.owner);
    if (!config) fail(error_code::internal_error, "platform configuration not found");
    auto& services = context.services;
    new_customer request;
    request.platform_customer_id = link.platform_customer_id;
    request.customer_type = type;
    request.kyc_status = "PENDING_REVIEW";
    try {
        request.fields = read_submission(type, values, *config, services.time.now_ms());
    } catch (const api_error& error) {
        return html_response(400, render_kyc_form(type, true, values, error.message));
    }
    for (const auto& item : config->supported_currencies) {
        request.account_currencies.push_back(item.currency_code);
    }
    write_transaction transaction(context.session());
    if (!consume_kyc_link(context.session(), services.time, context.param(0))) {
        return html_response(410, render_kyc_message("Link already used",
                                                     "This verification link has already been "
                                                     "used."));
    }
    auto created = create_customer(context.session(),
                                   customer_services{services.ids, services.random, services.time},
                                   link.owner, config->uma_domain, request);
    if (!created) {
        // Another link (or the platform itself) made this customer first.
        return html_response(409, render_kyc_message("Already registered",
                                                     "These details were already submitted. "
                                                     "Ask for a new link if needed."));
    }
    record_kyc_onboarding_customer(context.session(), context.param(0), created->id);
    submit_kyc_review(context.session(), services.ids, services.time, link.owner, created->id,
                      subject_name_of(request.fields),
                      services.time.now_ms() + services.config.kyc.sandbox_review_delay_ms);
    transaction.commit();
    return after_submission(link);
}

http_response kyc_submit_handler(request_context& context) {
    auto opened = open_link(context);
    if (opened.refusal) return std::move(*opened.refusal);
    if (!opened.subject) return onboard_new_person(context, *opened.link);
    const customer& subject = *opened.subject;
    const tenant& owner = opened.link->owner;
    auto values = read_form(context.request);
    auto config = load_platform_config(context.session(), owner);
    if (!config) fail(error_code::internal_error, "platform configuration not found");
    const auto& services = context.services;
    customer_fields fields;
    try {
        fields = read_submission(subject.customer_type, values, *config, services.time.now_ms());
    } catch (const api_error& error) {
        return html_response(400, render_kyc_form(subject, values, error.message));
    }
    {
        write_transaction transaction(context.session());
        if (!consume_kyc_link(context.session(), services.time, context.param(0))) {
            return html_response(
                410, render_kyc_message("Link already used",
                                        "This verification link has already been used."));
        }
        auto updated = update_customer(context.session(), services.time, owner, subject.id,
                                       subject.customer_type, fields);
        if (!updated) {
            return html_response(410, render_kyc_message("Link no longer valid",
                                                         "This verification is no longer needed."));
        }
        std::int64_t now_ms = services.time.now_ms();
        submit_kyc_review(context.session(), services.ids, services.time, owner, subject.id,
                          subject_name_of(fields),
                          now_ms + services.config.kyc.sandbox_review_delay_ms);
        transaction.commit();
    }
    return after_submission(*opened.link);
}

}  // namespace

void register_kyc_routes(router& routes) {
    routes.add({.method = http_method::get,
                .pattern = versioned("/customers/kyc-link"),
                .permission = permission_manage,
                .handler = kyc_link_handler});
    routes.add({.method = http_method::get,
                .pattern = "/kyc/{token}",
                .who = access::public_route,
                .handler = kyc_page_handler});
    routes.add({.method = http_method::post,
                .pattern = "/kyc/{token}",
                .who = access::public_route,
                .handler = kyc_submit_handler});
}

}  // namespace corridor

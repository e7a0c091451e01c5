#include "uma/lnurlp.hpp"

#include <algorithm>
#include <boost/json/serialize.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/rfc/unreserved_chars.hpp>
#include <boost/url/url.hpp>
#include <charconv>

namespace corridor::uma {
namespace {

bool valid_user(std::string_view user) {
    if (user.empty()) return false;
    return std::all_of(user.begin(), user.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '$' || c == '+' || c == '-';
    });
}

std::string lower(std::string_view text) {
    std::string out(text);
    for (char& c : out) {
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
}

uma_error request_error(error_kind kind, std::string reason) {
    return uma_error{kind, std::move(reason), {}};
}

std::optional<std::int64_t> parse_seconds(std::string_view text) {
    std::int64_t value = 0;
    if (text.empty() || text.size() > 12) return std::nullopt;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
    return value;
}

result<std::vector<backing_signature>, uma_error> parse_backing_query(std::string_view text) {
    std::vector<backing_signature> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        auto comma = text.find(',', start);
        std::string_view pair =
            text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
        auto colon = pair.rfind(':');
        if (colon == std::string_view::npos) {
            return request_error(error_kind::invalid_signature,
                                 "backingSignatures must be domain:signature pairs");
        }
        out.push_back({std::string(pair.substr(0, colon)), std::string(pair.substr(colon + 1))});
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return out;
}

boost::json::object currency_json(const uma_currency& currency, int major) {
    boost::json::object out;
    out["code"] = currency.code;
    out["name"] = currency.name;
    out["symbol"] = currency.symbol;
    out["multiplier"] = currency.multiplier;
    if (major >= 1) {
        out["convertible"] =
            boost::json::object{{"min", currency.min_sendable}, {"max", currency.max_sendable}};
        out["decimals"] = currency.decimals;
    } else {
        out["minSendable"] = currency.min_sendable;
        out["maxSendable"] = currency.max_sendable;
        out["decimals"] = currency.decimals;
    }
    return out;
}

uma_currency read_currency(const boost::json::value& value) {
    if (!value.is_object()) throw field_error("currencies must hold objects");
    json_fields fields(value.get_object(), "currencies[].");
    uma_currency out;
    out.code = fields.required_string("code");
    out.name = fields.required_string("name");
    out.symbol = fields.required_string("symbol");
    out.multiplier = fields.required_number("multiplier");
    std::int64_t decimals = fields.required_int("decimals");
    if (decimals < 0 || decimals > 18) throw field_error("currencies[].decimals must be 0 to 18");
    out.decimals = static_cast<int>(decimals);
    if (const auto* convertible = fields.optional_object("convertible")) {
        json_fields range(*convertible, "currencies[].convertible.");
        out.min_sendable = range.required_int("min");
        out.max_sendable = range.required_int("max");
    } else {
        out.min_sendable = fields.required_int("minSendable");
        out.max_sendable = fields.required_int("maxSendable");
    }
    return out;
}

lnurlp_compliance read_lnurlp_compliance(const boost::json::object& object) {
    json_fields fields(object, "compliance.");
    lnurlp_compliance out;
    out.kyc_status = read_kyc_status(fields);
    out.signature = fields.required_string("signature");
    out.signature_nonce = fields.required_string("signatureNonce");
    out.signature_timestamp_s = fields.required_int("signatureTimestamp");
    out.is_subject_to_travel_rule = fields.required_bool("isSubjectToTravelRule");
    out.receiver_identifier = fields.required_string("receiverIdentifier");
    out.backing_signatures = read_backing_signatures(fields);
    return out;
}

}  // namespace

bool is_local_domain(std::string_view domain) {
    std::string_view host = domain;
    if (!host.empty() && host.front() == '[') {
        host = host.substr(0, host.find(']') + 1);
    } else if (auto colon = host.find(':'); colon != std::string_view::npos) {
        host = host.substr(0, colon);
    }
    std::string name = lower(host);
    if (name == "localhost" || name == "127.0.0.1") return true;
    auto dot = name.rfind('.');
    std::string_view last =
        dot == std::string::npos ? std::string_view(name) : std::string_view(name).substr(dot + 1);
    return last == "local" || last == "internal";
}

result<lnurlp_request, uma_error> parse_lnurlp_request(std::string_view target,
                                                       std::string_view host) {
    auto parsed = boost::urls::parse_origin_form(target);
    if (!parsed)
        return request_error(error_kind::parse_lnurlp_request_error, "invalid request target");
    const auto& url = *parsed;
    std::vector<std::string> segments;
    for (auto segment : url.segments()) segments.push_back(segment);
    if (segments.size() != 3 || segments[0] != ".well-known" || segments[1] != "lnurlp") {
        return request_error(error_kind::parse_lnurlp_request_error,
                             "the path must be /.well-known/lnurlp/{user}");
    }
    if (!valid_user(segments[2])) {
        return request_error(error_kind::parse_lnurlp_request_error,
                             "the user in the path may hold only a-z A-Z 0-9 . _ $ + -");
    }
    if (host.empty()) return request_error(error_kind::parse_lnurlp_request_error, "no Host");

    lnurlp_request request;
    request.user = segments[2];
    request.receiver_address = request.user + "@" + lower(host);
    std::optional<std::string> timestamp, travel_rule, backing;
    // Query strings from browsers' URLSearchParams encode spaces as '+'.
    for (auto param : url.params(boost::urls::encoding_opts(true))) {
        std::optional<std::string>* slot = nullptr;
        if (param.key == "signature")
            slot = &request.signature;
        else if (param.key == "vaspDomain")
            slot = &request.vasp_domain;
        else if (param.key == "nonce")
            slot = &request.nonce;
        else if (param.key == "umaVersion")
            slot = &request.uma_version;
        else if (param.key == "timestamp")
            slot = &timestamp;
        else if (param.key == "isSubjectToTravelRule")
            slot = &travel_rule;
        else if (param.key == "backingSignatures")
            slot = &backing;
        if (slot != nullptr && !*slot) *slot = param.has_value ? param.value : std::string();
    }
    if (request.uma_version) {
        auto negotiated = negotiate_version(*request.uma_version);
        if (!negotiated) return negotiated.error();
    }
    int present = (request.signature ? 1 : 0) + (request.vasp_domain ? 1 : 0) +
                  (request.nonce ? 1 : 0) + (timestamp ? 1 : 0) + (request.uma_version ? 1 : 0);
    if (present > 0 && present < 5) {
        return request_error(error_kind::missing_required_uma_parameters,
                             "an UMA request needs all of signature, vaspDomain, nonce, timestamp "
                             "and umaVersion");
    }
    if (timestamp) {
        request.timestamp_s = parse_seconds(*timestamp);
        if (!request.timestamp_s) {
            return request_error(error_kind::invalid_timestamp, "timestamp must be unix seconds");
        }
    }
    if (travel_rule) request.is_subject_to_travel_rule = lower(*travel_rule) == "true";
    if (backing && !backing->empty()) {
        auto signatures = parse_backing_query(*backing);
        if (!signatures) return signatures.error();
        request.backing_signatures = std::move(signatures.value());
    }
    return request;
}

std::string signable_payload(const lnurlp_request& request) {
    return request.receiver_address + "|" + request.nonce.value_or("") + "|" +
           std::to_string(request.timestamp_s.value_or(0));
}

std::string lnurlp_request_url(const lnurlp_request& request) {
    auto at = request.receiver_address.rfind('@');
    std::string user = request.receiver_address.substr(0, at);
    std::string domain = request.receiver_address.substr(at + 1);
    boost::urls::url url;
    url.set_scheme(is_local_domain(domain) ? "http" : "https");
    url.set_encoded_authority(domain);
    // The SDKs refuse "%24bob": the user goes into the path unencoded ($ is a sub-delimiter).
    url.set_encoded_path("/.well-known/lnurlp/" + user);
    if (request.is_uma()) {
        auto params = url.params();
        params.append({"signature", *request.signature});
        params.append({"vaspDomain", *request.vasp_domain});
        params.append({"nonce", *request.nonce});
        params.append({"isSubjectToTravelRule",
                       request.is_subject_to_travel_rule.value_or(false) ? "true" : "false"});
        params.append({"timestamp", std::to_string(*request.timestamp_s)});
        params.append({"umaVersion", *request.uma_version});
        if (!request.backing_signatures.empty()) {
            std::string joined;
            for (const auto& item : request.backing_signatures) {
                if (!joined.empty()) joined += ",";
                joined += item.domain + ":" + item.signature;
            }
            params.append({"backingSignatures", joined});
        }
    }
    return std::string(url.buffer());
}

boost::json::object to_json(const lnurlp_response& response) {
    int major = current_version.major;
    if (response.uma_version) {
        if (auto version = parse_version(*response.uma_version)) major = version->major;
    }
    boost::json::object out;
    out["tag"] = "payRequest";
    out["callback"] = response.callback;
    out["minSendable"] = response.min_sendable_msats;
    out["maxSendable"] = response.max_sendable_msats;
    out["metadata"] = response.metadata;
    if (response.compliance) {
        const auto& compliance = *response.compliance;
        boost::json::object item;
        item["kycStatus"] = compliance.kyc_status;
        item["signature"] = compliance.signature;
        item["signatureNonce"] = compliance.signature_nonce;
        item["signatureTimestamp"] = compliance.signature_timestamp_s;
        item["isSubjectToTravelRule"] = compliance.is_subject_to_travel_rule;
        item["receiverIdentifier"] = compliance.receiver_identifier;
        if (!compliance.backing_signatures.empty()) {
            item["backingSignatures"] = to_json(compliance.backing_signatures);
        }
        out["compliance"] = std::move(item);
    }
    if (response.uma_version) out["umaVersion"] = *response.uma_version;
    if (response.currencies) {
        boost::json::array currencies;
        for (const auto& currency : *response.currencies) {
            currencies.push_back(currency_json(currency, major));
        }
        out["currencies"] = std::move(currencies);
    }
    if (response.payer_data) out["payerData"] = to_json(*response.payer_data);
    if (response.comment_allowed) out["commentAllowed"] = *response.comment_allowed;
    if (response.nostr_pubkey) out["nostrPubkey"] = *response.nostr_pubkey;
    if (response.allows_nostr) out["allowsNostr"] = *response.allows_nostr;
    return out;
}

result<lnurlp_response, uma_error> parse_lnurlp_response(std::string_view json_text) {
    try {
        auto object = parse_object(json_text);
        json_fields fields(object);
        lnurlp_response out;
        if (fields.required_string("tag") != "payRequest") {
            throw field_error("tag must be \"payRequest\"");
        }
        out.callback = fields.required_string("callback");
        out.min_sendable_msats = fields.required_int("minSendable");
        out.max_sendable_msats = fields.required_int("maxSendable");
        out.metadata = fields.required_string("metadata");
        if (const auto* compliance = fields.optional_object("compliance")) {
            out.compliance = read_lnurlp_compliance(*compliance);
        }
        out.uma_version = fields.optional_string("umaVersion");
        if (const auto* currencies = fields.optional_array("currencies")) {
            out.currencies.emplace();
            for (const auto& item : *currencies) out.currencies->push_back(read_currency(item));
        }
        if (const auto* payer_data = fields.optional_object("payerData")) {
            out.payer_data = read_counterparty_options(*payer_data, "payerData");
        }
        out.comment_allowed = fields.optional_int("commentAllowed");
        out.nostr_pubkey = fields.optional_string("nostrPubkey");
        out.allows_nostr = fields.optional_bool("allowsNostr");
        return out;
    } catch (const field_error& error) {
        return uma_error{error_kind::parse_lnurlp_response_error, error.what(), {}};
    }
}

std::string signable_payload(const lnurlp_compliance& compliance) {
    return compliance.receiver_identifier + "|" + compliance.signature_nonce + "|" +
           std::to_string(compliance.signature_timestamp_s);
}

std::string lnurlp_metadata(std::string_view description, std::string_view identifier) {
    boost::json::array entries;
    entries.push_back(boost::json::array{"text/plain", description});
    entries.push_back(boost::json::array{"text/identifier", identifier});
    return boost::json::serialize(entries);
}

}  // namespace corridor::uma

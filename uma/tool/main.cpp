// corridor_uma_tool: drives the uma/ library from the command line, so that the interop tests can
// check it against the official UMA SDK in both directions. Keys are hex; JSON documents go in on
// stdin and out on stdout. Exit status 0 when the operation (or the check) succeeded, 1 when a
// check failed, 2 on bad usage.
#include <boost/json/serialize.hpp>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "uma/certificate.hpp"
#include "uma/ecies.hpp"
#include "uma/lnurlp.hpp"
#include "uma/pay_request.hpp"
#include "uma/pay_response.hpp"
#include "uma/post_transaction.hpp"
#include "uma/pubkey_response.hpp"
#include "uma/responder.hpp"
#include "uma/signing.hpp"
#include "uma/verify.hpp"

namespace uma = corridor::uma;

namespace {

using args = std::vector<std::string>;

struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

uma::private_key secret_arg(const std::string& text) {
    auto data = uma::from_hex(text);
    auto key = data ? uma::private_key_from_bytes(*data) : std::nullopt;
    if (!key) throw usage_error("not a private key: " + text);
    return *key;
}

uma::public_key public_arg(const std::string& text) {
    auto data = uma::from_hex(text);
    auto key = data ? uma::parse_public_key(*data) : std::nullopt;
    if (!key) throw usage_error("not a public key: " + text);
    return *key;
}

std::string read_stdin() {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
}

int report(const std::optional<uma::uma_error>& error) {
    if (error) {
        std::cout << boost::json::serialize(uma::to_json(*error)) << "\n";
        return 1;
    }
    std::cout << "valid\n";
    return 0;
}

int fail(const uma::uma_error& error) {
    return report(error);
}

// "http://host:port/path?query" -> host, target
std::pair<std::string, std::string> split_url(const std::string& url) {
    auto scheme = url.find("://");
    if (scheme == std::string::npos) throw usage_error("not an absolute URL: " + url);
    auto path = url.find('/', scheme + 3);
    if (path == std::string::npos) throw usage_error("URL without a path: " + url);
    return {url.substr(scheme + 3, path - scheme - 3), url.substr(path)};
}

corridor::system_clock wall;
corridor::os_random randomness;
// Replays are refused within one run of the tool; the window is the service's.
uma::memory_nonce_store nonces(wall, uma::default_nonce_window_s);

// public-key secret: the public key of a private key.
int public_key_command(const args& a) {
    std::cout << uma::to_hex(uma::public_key_of(secret_arg(a[0]))) << "\n";
    return 0;
}

// sign secret payload: the payload's signature.
int sign_command(const args& a) {
    std::cout << uma::sign_payload(a[1], secret_arg(a[0])) << "\n";
    return 0;
}

// verify public payload signature: "valid" (0) or "invalid" (1).
int verify_command(const args& a) {
    bool ok = uma::verify_payload(a[1], a[2], public_arg(a[0]));
    std::cout << (ok ? "valid" : "invalid") << "\n";
    return ok ? 0 : 1;
}

// certificate secret domain: a self-signed certificate (DER, hex) for the domain, valid a day.
int certificate_command(const args& a) {
    std::int64_t now_s = wall.now_ms() / 1000;
    auto der = uma::self_signed_certificate(secret_arg(a[0]), {a[1], now_s, now_s + 86400, 7});
    std::cout << uma::to_hex(der) << "\n";
    return 0;
}

// certificate-key der: the public key a certificate holds, or "invalid" (1).
int certificate_key_command(const args& a) {
    auto der = uma::from_hex(a[0]);
    auto key = der ? uma::certificate_public_key(*der) : std::nullopt;
    if (!key) {
        std::cout << "invalid\n";
        return 1;
    }
    std::cout << uma::to_hex(*key) << "\n";
    return 0;
}

// pubkey-response-key signing|encryption; stdin: a lnurlpubkey document. The key it names.
int pubkey_response_key_command(const args& a) {
    auto parsed = uma::parse_pubkey_response(read_stdin());
    if (!parsed) return fail(parsed.error());
    auto key =
        a[0] == "signing" ? uma::signing_key(parsed.value()) : uma::encryption_key(parsed.value());
    if (!key) return fail(key.error());
    std::cout << uma::to_hex(key.value()) << "\n";
    return 0;
}

// encrypt public plaintext: the ECIES ciphertext (hex).
int encrypt_command(const args& a) {
    std::cout << uma::to_hex(uma::ecies_encrypt(public_arg(a[0]), a[1], randomness)) << "\n";
    return 0;
}

// decrypt secret ciphertext: the plaintext, or "invalid" (1).
int decrypt_command(const args& a) {
    auto data = uma::from_hex(a[1]);
    auto plain = data ? uma::ecies_decrypt(secret_arg(a[0]), *data) : std::nullopt;
    if (!plain) {
        std::cout << "invalid\n";
        return 1;
    }
    std::cout << *plain;
    return 0;
}

// lnurlp-request-url secret receiverAddress vaspDomain version
int lnurlp_request_url_command(const args& a) {
    uma::lnurlp_request request;
    request.receiver_address = a[1];
    request.vasp_domain = a[2];
    request.uma_version = a[3];
    request.nonce = uma::generate_nonce(randomness);
    request.timestamp_s = wall.now_ms() / 1000;
    request.is_subject_to_travel_rule = true;
    request.signature = uma::sign_payload(uma::signable_payload(request), secret_arg(a[0]));
    std::cout << uma::lnurlp_request_url(request) << "\n";
    return 0;
}

// check-lnurlp-request senderPublic url
int check_lnurlp_request_command(const args& a) {
    auto [host, target] = split_url(a[1]);
    auto request = uma::parse_lnurlp_request(target, host);
    if (!request) return fail(request.error());
    return report(uma::verify_lnurlp_request(request.value(), public_arg(a[0]), nonces));
}

// lnurlp-response secret url-of-request callback
int lnurlp_response_command(const args& a) {
    auto [host, target] = split_url(a[1]);
    auto request = uma::parse_lnurlp_request(target, host);
    if (!request) return fail(request.error());
    uma::receiver_terms terms;
    terms.receiver_identifier = request->receiver_address;
    terms.callback = a[2];
    terms.min_sendable_msats = 1000;
    terms.max_sendable_msats = 10000000000;
    terms.description = "Pay " + request->receiver_address;
    terms.currencies.push_back({"USD", "US Dollar", "$", 34150.5, 1, 10000000, 2});
    terms.payer_data.push_back({"name", false});
    terms.kyc_status = "VERIFIED";
    terms.requires_travel_rule = true;
    auto response =
        uma::build_lnurlp_response(request.value(), terms, secret_arg(a[0]), wall, randomness);
    if (!response) return fail(response.error());
    std::cout << boost::json::serialize(uma::to_json(response.value())) << "\n";
    return 0;
}

// check-lnurlp-response receiverPublic; stdin: response
int check_lnurlp_response_command(const args& a) {
    auto response = uma::parse_lnurlp_response(read_stdin());
    if (!response) return fail(response.error());
    return report(
        uma::verify_lnurlp_response(response.value(), public_arg(a[0]), "receiver", nonces));
}

// pay-request secret receiverEncryptionPublic payerIdentifier trInfo
int pay_request_command(const args& a) {
    uma::pay_request request;
    request.amount = 1000;
    request.sending_currency = "USD";
    request.receiving_currency = "USD";
    request.payer_data["identifier"] = a[2];
    request.payer_data["name"] = "Alice";
    uma::payer_compliance compliance;
    compliance.kyc_status = "VERIFIED";
    compliance.encrypted_travel_rule_info =
        uma::to_hex(uma::ecies_encrypt(public_arg(a[1]), a[3], randomness));
    compliance.travel_rule_format = "ivms@101.2023";
    compliance.utxos = std::vector<std::string>{};
    compliance.signature_nonce = uma::generate_nonce(randomness);
    compliance.signature_timestamp_s = wall.now_ms() / 1000;
    request.compliance = compliance;
    request.compliance->signature =
        uma::sign_payload(*uma::signable_payload(request), secret_arg(a[0]));
    std::cout << boost::json::serialize(uma::to_json(request)) << "\n";
    return 0;
}

// check-pay-request senderPublic receiverEncryptionSecret; stdin: payreq
int check_pay_request_command(const args& a) {
    auto request = uma::parse_pay_request(read_stdin());
    if (!request) return fail(request.error());
    if (auto error = uma::verify_pay_request(request.value(), public_arg(a[0]), "sender", nonces)) {
        return fail(*error);
    }
    boost::json::object out;
    out["payerIdentifier"] = request->payer_identifier().value_or("");
    out["amount"] = request->amount;
    if (request->sending_currency) out["sendingCurrency"] = *request->sending_currency;
    if (request->receiving_currency) out["receivingCurrency"] = *request->receiving_currency;
    out["majorVersion"] = request->major_version;
    if (request->compliance->encrypted_travel_rule_info) {
        auto data = uma::from_hex(*request->compliance->encrypted_travel_rule_info);
        auto plain = data ? uma::ecies_decrypt(secret_arg(a[1]), *data) : std::nullopt;
        if (!plain) {
            std::cout << "travel-rule data does not decrypt\n";
            return 1;
        }
        out["travelRuleInfo"] = *plain;
    }
    std::cout << boost::json::serialize(out) << "\n";
    return 0;
}

// pay-response secret payer payee
int pay_response_command(const args& a) {
    uma::pay_response response;
    response.pr = "lnbc1000n1placeholder";
    uma::payee_compliance compliance;
    compliance.signature_nonce = uma::generate_nonce(randomness);
    compliance.signature_timestamp_s = wall.now_ms() / 1000;
    compliance.signature =
        uma::sign_payload(uma::signable_payload(compliance, a[1], a[2]), secret_arg(a[0]));
    response.compliance = compliance;
    response.payee_data["identifier"] = a[2];
    response.converted = uma::converted_amount{1000, "USD", 2, 34150.5, 2000};
    response.disposable = false;
    std::cout << boost::json::serialize(uma::to_json(response)) << "\n";
    return 0;
}

// check-pay-response receiverPublic payer payee; stdin: response
int check_pay_response_command(const args& a) {
    auto response = uma::parse_pay_response(read_stdin());
    if (!response) return fail(response.error());
    return report(uma::verify_pay_response(response.value(), a[1], a[2], public_arg(a[0]),
                                           "receiver", nonces));
}

// post-transaction secret vaspDomain
int post_transaction_command(const args& a) {
    uma::post_transaction_callback callback;
    callback.utxos.push_back({"4f2a:0", 123000});
    callback.vasp_domain = a[1];
    callback.signature_nonce = uma::generate_nonce(randomness);
    callback.signature_timestamp_s = wall.now_ms() / 1000;
    callback.signature = uma::sign_payload(uma::signable_payload(callback), secret_arg(a[0]));
    std::cout << boost::json::serialize(uma::to_json(callback)) << "\n";
    return 0;
}

// check-post-transaction callerPublic; stdin: callback
int check_post_transaction_command(const args& a) {
    auto callback = uma::parse_post_transaction_callback(read_stdin());
    if (!callback) return fail(callback.error());
    return report(uma::verify_post_transaction(callback.value(), public_arg(a[0]), nonces));
}

// A command: how many arguments it takes, and what it does with them.
struct command {
    std::size_t argument_count;
    int (*perform)(const args&);
};

const std::map<std::string, command>& commands() {
    static const std::map<std::string, command> table = {
        {"public-key", {1, &public_key_command}},
        {"sign", {2, &sign_command}},
        {"verify", {3, &verify_command}},
        {"certificate", {2, &certificate_command}},
        {"certificate-key", {1, &certificate_key_command}},
        {"pubkey-response-key", {1, &pubkey_response_key_command}},
        {"encrypt", {2, &encrypt_command}},
        {"decrypt", {2, &decrypt_command}},
        {"lnurlp-request-url", {4, &lnurlp_request_url_command}},
        {"check-lnurlp-request", {2, &check_lnurlp_request_command}},
        {"lnurlp-response", {3, &lnurlp_response_command}},
        {"check-lnurlp-response", {1, &check_lnurlp_response_command}},
        {"pay-request", {4, &pay_request_command}},
        {"check-pay-request", {2, &check_pay_request_command}},
        {"pay-response", {3, &pay_response_command}},
        {"check-pay-response", {3, &check_pay_response_command}},
        {"post-transaction", {2, &post_transaction_command}},
        {"check-post-transaction", {1, &check_post_transaction_command}},
    };
    return table;
}

int run(const std::string& name, const args& a) {
    auto found = commands().find(name);
    if (found == commands().end()) throw usage_error("unknown command " + name);
    const command& chosen = found->second;
    if (a.size() != chosen.argument_count)
        throw usage_error(name + " takes " + std::to_string(chosen.argument_count) + " arguments");
    return chosen.perform(a);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << "usage: corridor_uma_tool COMMAND ARGS...\n";
        return 2;
    }
    try {
        return run(argv[1], args(argv + 2, argv + argc));
    } catch (const usage_error& error) {
        std::cerr << error.what() << "\n";
        return 2;
    }
}

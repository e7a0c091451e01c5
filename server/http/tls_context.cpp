#include "server/http/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <spdlog/spdlog.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>
#include <string_view>

#include "server/process/config.hpp"
#include "server/http/tls_context_detail.hpp"

namespace corridor {
namespace ssl = boost::asio::ssl;
namespace {

// TLS 1.2 suites with forward secrecy and AEAD only (TLS 1.3 suites are all of that kind).
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";
constexpr const char* tls13_suites =
    "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256";

[[noreturn]] void bad_file(const char* key, const std::string& path, const std::string& problem) {
    throw config_error("configuration key \"" + std::string(key) + "\" (" + path + "): " + problem);
}

// The first error OpenSSL queued (the cause; later ones only say which call failed). Clears the
// queue.
std::string openssl_reason() {
    unsigned long first = ERR_get_error();
    ERR_clear_error();
    if (first == 0) return "rejected by OpenSSL";
    const char* reason = ERR_reason_error_string(first);
    return reason ? reason : "OpenSSL error " + std::to_string(first);
}

// A missing or unreadable file says so, rather than as whatever OpenSSL's file BIO reports.
void check_readable(const char* key, const std::string& path) {
    std::ifstream in(path);
    if (!in) bad_file(key, path, std::string("cannot be read: ") + std::strerror(errno));
}

// An encrypted key would make OpenSSL prompt on the terminal; refuse it instead.
int no_passphrase(char*, int, int, void*) {
    return 0;
}

// Only HTTP/1.1 is served. A client that offers ALPN without it is refused with the
// no_application_protocol alert (RFC 7301) rather than left to speak, say, HTTP/2 to us; a client
// that offers no ALPN at all is served.
int select_http11(SSL*, const unsigned char** out, unsigned char* out_length,
                  const unsigned char* in, unsigned int in_length, void*) {
    constexpr std::string_view http11 = "http/1.1";
    unsigned int at = 0;
    while (at < in_length) {
        unsigned int length = in[at];
        if (at + 1 + length > in_length) break;
        if (std::string_view(reinterpret_cast<const char*>(in + at + 1), length) == http11) {
            *out = in + at + 1;
            *out_length = static_cast<unsigned char>(length);
            return SSL_TLSEXT_ERR_OK;
        }
        at += 1 + length;
    }
    return SSL_TLSEXT_ERR_ALERT_FATAL;
}

void warn_if_out_of_date(SSL_CTX* context, const std::string& path) {
    X509* leaf = SSL_CTX_get0_certificate(context);
    if (!leaf) return;
    if (X509_cmp_current_time(X509_get0_notAfter(leaf)) < 0) {
        spdlog::warn("the certificate of tls.certificate_file ({}) has expired", path);
    } else if (X509_cmp_current_time(X509_get0_notBefore(leaf)) > 0) {
        spdlog::warn("the certificate of tls.certificate_file ({}) is not valid yet", path);
    }
}

}  // namespace

std::shared_ptr<tls_context> load_tls_context(const tls_config& config) {
    if (!config.enabled()) return nullptr;
    const std::string& certificate = config.certificate_file;
    const std::string& key = config.private_key_file;
    check_readable("tls.certificate_file", certificate);
    check_readable("tls.private_key_file", key);

    ssl::context asio_context(ssl::context::tls_server);
    SSL_CTX* context = asio_context.native_handle();
    ERR_clear_error();
    int min_version = config.min_version == "1.3" ? TLS1_3_VERSION : TLS1_2_VERSION;
    if (SSL_CTX_set_min_proto_version(context, min_version) != 1 ||
        SSL_CTX_set_cipher_list(context, tls12_ciphers) != 1 ||
        SSL_CTX_set_ciphersuites(context, tls13_suites) != 1) {
        throw config_error("cannot set up TLS: " + openssl_reason());
    }
    SSL_CTX_set_options(context, SSL_OP_NO_COMPRESSION | SSL_OP_NO_RENEGOTIATION);
    SSL_CTX_set_default_passwd_cb(context, no_passphrase);
    SSL_CTX_set_alpn_select_cb(context, select_http11, nullptr);

    if (SSL_CTX_use_certificate_chain_file(context, certificate.c_str()) != 1) {
        bad_file("tls.certificate_file", certificate,
                 "is not a PEM certificate chain (" + openssl_reason() + ")");
    }
    if (SSL_CTX_use_PrivateKey_file(context, key.c_str(), SSL_FILETYPE_PEM) != 1) {
        // OpenSSL checks the key against the certificate as it loads it.
        unsigned long first = ERR_peek_error();
        if (ERR_GET_LIB(first) == ERR_LIB_X509 &&
            ERR_GET_REASON(first) == X509_R_KEY_VALUES_MISMATCH) {
            ERR_clear_error();
            bad_file("tls.private_key_file", key,
                     "does not match the certificate of tls.certificate_file");
        }
        bad_file("tls.private_key_file", key,
                 "is not an unencrypted PEM private key (" + openssl_reason() + ")");
    }
    if (SSL_CTX_check_private_key(context) != 1) {
        ERR_clear_error();
        bad_file("tls.private_key_file", key,
                 "does not match the certificate of tls.certificate_file");
    }
    warn_if_out_of_date(context, certificate);
    return std::make_shared<tls_context>(std::move(asio_context));
}

}  // namespace corridor

// Loading the listener's certificate and key (load_tls_context): a good pair loads; every bad file
// stops start-up with a message naming its configuration key. The certificates are made here with
// OpenSSL, fresh for each run.
#include "server/http/tls_context.hpp"

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "ledger/base/random.hpp"
#include "server/process/config.hpp"

using namespace corridor;
namespace fs = std::filesystem;

namespace {

struct key_deleter {
    void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct x509_deleter {
    void operator()(X509* certificate) const { X509_free(certificate); }
};
using key_ptr = std::unique_ptr<EVP_PKEY, key_deleter>;
using x509_ptr = std::unique_ptr<X509, x509_deleter>;

key_ptr make_key() {
    key_ptr key(EVP_EC_gen("P-256"));
    REQUIRE(key);
    return key;
}

// A self-signed certificate for 127.0.0.1, valid from now for `days`.
x509_ptr make_certificate(EVP_PKEY* key, long days) {
    x509_ptr certificate(X509_new());
    REQUIRE(certificate);
    X509_set_version(certificate.get(), 2);
    ASN1_INTEGER_set(X509_get_serialNumber(certificate.get()), 1);
    X509_gmtime_adj(X509_getm_notBefore(certificate.get()), 0);
    X509_gmtime_adj(X509_getm_notAfter(certificate.get()), days * 86400);
    X509_NAME* name = X509_get_subject_name(certificate.get());
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("127.0.0.1"), -1, -1, 0);
    X509_set_issuer_name(certificate.get(), name);
    X509_set_pubkey(certificate.get(), key);
    REQUIRE(X509_sign(certificate.get(), key, EVP_sha256()) > 0);
    return certificate;
}

class pem_folder {
public:
    pem_folder() {
        os_random random;
        path_ = fs::temp_directory_path() / ("corridor-tls-" + random_hex(random, 8));
        fs::create_directories(path_);
    }
    ~pem_folder() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    std::string write_certificate(const std::string& name, X509* certificate) {
        auto path = (path_ / name).string();
        FILE* file = std::fopen(path.c_str(), "w");
        REQUIRE(file);
        REQUIRE(PEM_write_X509(file, certificate) == 1);
        std::fclose(file);
        return path;
    }
    std::string write_key(const std::string& name, EVP_PKEY* key,
                          const char* passphrase = nullptr) {
        auto path = (path_ / name).string();
        FILE* file = std::fopen(path.c_str(), "w");
        REQUIRE(file);
        const EVP_CIPHER* cipher = passphrase ? EVP_aes_256_cbc() : nullptr;
        auto* pass = reinterpret_cast<unsigned char*>(const_cast<char*>(passphrase));
        int pass_length = passphrase ? static_cast<int>(std::string(passphrase).size()) : 0;
        REQUIRE(PEM_write_PrivateKey(file, key, cipher, pass, pass_length, nullptr, nullptr) == 1);
        std::fclose(file);
        return path;
    }
    std::string write_text(const std::string& name, const std::string& text) {
        auto path = (path_ / name).string();
        std::ofstream(path) << text;
        return path;
    }
    const fs::path& path() const { return path_; }

private:
    fs::path path_;
};

tls_config pair_of(const std::string& certificate, const std::string& key) {
    tls_config config;
    config.certificate_file = certificate;
    config.private_key_file = key;
    return config;
}

std::string load_error(const tls_config& config) {
    try {
        load_tls_context(config);
    } catch (const config_error& error) {
        return error.what();
    }
    return "(no error)";
}

}  // namespace

TEST_CASE("no certificate configured: no TLS context", "[server][tls]") {
    CHECK(load_tls_context(tls_config{}) == nullptr);
}

TEST_CASE("a matching certificate and key load, at either minimum version", "[server][tls]") {
    pem_folder folder;
    auto key = make_key();
    auto certificate = make_certificate(key.get(), 1);
    auto config = pair_of(folder.write_certificate("cert.pem", certificate.get()),
                          folder.write_key("key.pem", key.get()));
    CHECK(load_tls_context(config) != nullptr);
    config.min_version = "1.3";
    CHECK(load_tls_context(config) != nullptr);
}

TEST_CASE("bad certificate and key files name their key", "[server][tls]") {
    pem_folder folder;
    auto key = make_key();
    auto certificate = make_certificate(key.get(), 1);
    const auto cert_path = folder.write_certificate("cert.pem", certificate.get());
    const auto key_path = folder.write_key("key.pem", key.get());
    const auto missing = (folder.path() / "missing.pem").string();
    const auto garbage = folder.write_text("garbage.pem", "not a PEM file\n");

    SECTION("missing files") {
        CHECK(load_error(pair_of(missing, key_path)) ==
              "configuration key \"tls.certificate_file\" (" + missing +
                  "): cannot be read: No such file or directory");
        CHECK(load_error(pair_of(cert_path, missing)) ==
              "configuration key \"tls.private_key_file\" (" + missing +
                  "): cannot be read: No such file or directory");
    }
    SECTION("files that are not PEM, or the wrong kind of PEM") {
        CHECK_THAT(load_error(pair_of(garbage, key_path)),
                   Catch::StartsWith("configuration key \"tls.certificate_file\" (" + garbage +
                                     "): is not a PEM certificate chain ("));
        CHECK_THAT(load_error(pair_of(key_path, key_path)),
                   Catch::StartsWith("configuration key \"tls.certificate_file\""));
        CHECK_THAT(load_error(pair_of(cert_path, garbage)),
                   Catch::StartsWith("configuration key \"tls.private_key_file\" (" + garbage +
                                     "): is not an unencrypted PEM private key ("));
        CHECK_THAT(load_error(pair_of(cert_path, cert_path)),
                   Catch::StartsWith("configuration key \"tls.private_key_file\""));
    }
    SECTION("an encrypted key is refused rather than prompting for its passphrase") {
        auto encrypted = folder.write_key("encrypted.pem", key.get(), "correct horse");
        CHECK_THAT(load_error(pair_of(cert_path, encrypted)),
                   Catch::StartsWith("configuration key \"tls.private_key_file\" (" + encrypted +
                                     "): is not an unencrypted PEM private key ("));
    }
    SECTION("a key that does not belong to the certificate") {
        auto other = make_key();
        auto other_path = folder.write_key("other.pem", other.get());
        CHECK(load_error(pair_of(cert_path, other_path)) ==
              "configuration key \"tls.private_key_file\" (" + other_path +
                  "): does not match the certificate of tls.certificate_file");
    }
}

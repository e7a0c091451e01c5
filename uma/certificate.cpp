#include "uma/certificate.hpp"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <memory>

#include "ledger/base/assert.hpp"

namespace corridor::uma {
namespace {

template <class T, void (*Free)(T*)>
struct deleter {
    void operator()(T* p) const { Free(p); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, deleter<EVP_PKEY, EVP_PKEY_free>>;
using x509_ptr = std::unique_ptr<X509, deleter<X509, X509_free>>;
using bn_ptr = std::unique_ptr<BIGNUM, deleter<BIGNUM, BN_free>>;
using params_ptr = std::unique_ptr<OSSL_PARAM, deleter<OSSL_PARAM, OSSL_PARAM_free>>;
using builder_ptr = std::unique_ptr<OSSL_PARAM_BLD, deleter<OSSL_PARAM_BLD, OSSL_PARAM_BLD_free>>;
using pkey_ctx_ptr = std::unique_ptr<EVP_PKEY_CTX, deleter<EVP_PKEY_CTX, EVP_PKEY_CTX_free>>;

constexpr char curve_name[] = "secp256k1";

pkey_ptr openssl_key(const private_key& key) {
    public_key point = public_key_of(key);
    bn_ptr secret(BN_bin2bn(key.data(), static_cast<int>(key.size()), nullptr));
    builder_ptr builder(OSSL_PARAM_BLD_new());
    CORRIDOR_ASSERT(secret && builder);
    CORRIDOR_ASSERT(OSSL_PARAM_BLD_push_utf8_string(builder.get(), OSSL_PKEY_PARAM_GROUP_NAME,
                                                    curve_name, 0) == 1);
    CORRIDOR_ASSERT(OSSL_PARAM_BLD_push_BN(builder.get(), OSSL_PKEY_PARAM_PRIV_KEY, secret.get()) ==
                    1);
    CORRIDOR_ASSERT(OSSL_PARAM_BLD_push_octet_string(builder.get(), OSSL_PKEY_PARAM_PUB_KEY,
                                                     point.data(), point.size()) == 1);
    params_ptr params(OSSL_PARAM_BLD_to_param(builder.get()));
    pkey_ctx_ptr context(EVP_PKEY_CTX_new_from_name(nullptr, "EC", nullptr));
    CORRIDOR_ASSERT(params && context);
    CORRIDOR_ASSERT(EVP_PKEY_fromdata_init(context.get()) == 1);
    EVP_PKEY* created = nullptr;
    CORRIDOR_ASSERT(EVP_PKEY_fromdata(context.get(), &created, EVP_PKEY_KEYPAIR, params.get()) ==
                    1);
    return pkey_ptr(created);
}

void set_time(ASN1_TIME* field, std::int64_t seconds) {
    CORRIDOR_ASSERT(ASN1_TIME_set(field, static_cast<time_t>(seconds)) != nullptr);
}

}  // namespace

bytes self_signed_certificate(const private_key& key, const certificate_request& request) {
    pkey_ptr pkey = openssl_key(key);
    x509_ptr certificate(X509_new());
    CORRIDOR_ASSERT(certificate != nullptr);
    CORRIDOR_ASSERT(X509_set_version(certificate.get(), 2) == 1);
    CORRIDOR_ASSERT(
        ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate.get()), request.serial) == 1);
    set_time(X509_getm_notBefore(certificate.get()), request.not_before_s);
    set_time(X509_getm_notAfter(certificate.get()), request.not_after_s);
    X509_NAME* name = X509_get_subject_name(certificate.get());
    CORRIDOR_ASSERT(X509_NAME_add_entry_by_txt(
                        name, "CN", MBSTRING_UTF8,
                        reinterpret_cast<const unsigned char*>(request.common_name.c_str()), -1, -1,
                        0) == 1);
    CORRIDOR_ASSERT(X509_set_issuer_name(certificate.get(), name) == 1);
    CORRIDOR_ASSERT(X509_set_pubkey(certificate.get(), pkey.get()) == 1);
    CORRIDOR_ASSERT(X509_sign(certificate.get(), pkey.get(), EVP_sha256()) > 0);
    int size = i2d_X509(certificate.get(), nullptr);
    CORRIDOR_ASSERT(size > 0);
    bytes der(static_cast<std::size_t>(size));
    unsigned char* cursor = der.data();
    CORRIDOR_ASSERT(i2d_X509(certificate.get(), &cursor) == size);
    return der;
}

std::optional<public_key> certificate_public_key(std::span<const std::uint8_t> der) {
    const unsigned char* cursor = der.data();
    x509_ptr certificate(d2i_X509(nullptr, &cursor, static_cast<long>(der.size())));
    if (!certificate || cursor != der.data() + der.size()) return std::nullopt;
    EVP_PKEY* key = X509_get0_pubkey(certificate.get());
    if (key == nullptr || EVP_PKEY_get_base_id(key) != EVP_PKEY_EC) return std::nullopt;
    char group[64] = {};
    std::size_t group_size = 0;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group,
                                       &group_size) != 1 ||
        std::string_view(group, group_size) != curve_name) {
        return std::nullopt;
    }
    std::array<std::uint8_t, 65> point{};
    std::size_t point_size = 0;
    if (EVP_PKEY_get_octet_string_param(key, OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point.data(),
                                        point.size(), &point_size) != 1) {
        return std::nullopt;
    }
    return parse_public_key(std::span(point.data(), point_size));
}

}  // namespace corridor::uma

#include "ledger/platforms/webhook_keys.hpp"

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <mutex>
#include <stdexcept>
#include <vector>

#include "ledger/base/assert.hpp"
#include "ledger/store/key_sealing.hpp"
#include "ledger/base/random.hpp"

namespace corridor {
namespace {

struct pkey_free {
    void operator()(EVP_PKEY* key) const noexcept { EVP_PKEY_free(key); }
};
using pkey_ptr = std::unique_ptr<EVP_PKEY, pkey_free>;
struct bio_free {
    void operator()(BIO* bio) const noexcept { BIO_free(bio); }
};
using bio_ptr = std::unique_ptr<BIO, bio_free>;
struct md_ctx_free {
    void operator()(EVP_MD_CTX* context) const noexcept { EVP_MD_CTX_free(context); }
};
using md_ctx_ptr = std::unique_ptr<EVP_MD_CTX, md_ctx_free>;

std::string bio_text(BIO* bio) {
    char* data = nullptr;
    long size = BIO_get_mem_data(bio, &data);
    return std::string(data, static_cast<std::size_t>(size));
}

pkey_ptr read_private_key(const std::string& pem) {
    bio_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    pkey_ptr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
    if (!key) throw std::runtime_error("webhook signing key cannot be read");
    return key;
}

pkey_ptr read_public_key(const std::string& pem) {
    bio_ptr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
    return pkey_ptr(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
}

std::string base64(const unsigned char* data, std::size_t size) {
    std::string out(4 * ((size + 2) / 3), '\0');
    int written =
        EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()), data, static_cast<int>(size));
    out.resize(static_cast<std::size_t>(written));
    return out;
}

std::optional<std::vector<unsigned char>> base64_decode(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0) return std::nullopt;
    std::vector<unsigned char> out(text.size() / 4 * 3);
    int written = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (written < 0) return std::nullopt;
    std::size_t padding = 0;
    if (text.back() == '=') ++padding;
    if (text.size() >= 2 && text[text.size() - 2] == '=') ++padding;
    out.resize(static_cast<std::size_t>(written) - padding);
    return out;
}

// ECDSA signatures come in two forms, (r, s) and (r, n - s); OpenSSL returns either. Strict
// verifiers (libraries that refuse malleable signatures) accept only the low-s form, so every
// signature is normalised to it; the rest accept both.
std::vector<unsigned char> low_s_der(const std::vector<unsigned char>& der) {
    const unsigned char* cursor = der.data();
    std::unique_ptr<ECDSA_SIG, decltype(&ECDSA_SIG_free)> signature(
        d2i_ECDSA_SIG(nullptr, &cursor, static_cast<long>(der.size())), ECDSA_SIG_free);
    if (!signature) throw std::runtime_error("webhook signing produced no signature");
    static const BIGNUM* order = [] {
        EC_GROUP* group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
        BIGNUM* copy = BN_dup(EC_GROUP_get0_order(group));
        EC_GROUP_free(group);
        return copy;
    }();
    const BIGNUM* r = nullptr;
    const BIGNUM* s = nullptr;
    ECDSA_SIG_get0(signature.get(), &r, &s);
    std::unique_ptr<BIGNUM, decltype(&BN_free)> half(BN_dup(order), BN_free);
    BN_rshift1(half.get(), half.get());
    if (BN_cmp(s, half.get()) <= 0) return der;
    BIGNUM* low_s = BN_new();
    BN_sub(low_s, order, s);
    BIGNUM* r_copy = BN_dup(r);
    ECDSA_SIG_set0(signature.get(), r_copy, low_s);  // takes both
    unsigned char* encoded = nullptr;
    int size = i2d_ECDSA_SIG(signature.get(), &encoded);
    if (size <= 0) throw std::runtime_error("webhook signature cannot be encoded");
    std::vector<unsigned char> out(encoded, encoded + size);
    OPENSSL_free(encoded);
    return out;
}

std::string seal_context(const std::string& platform_id, std::string_view env_name) {
    return "webhook|" + platform_id + "|" + std::string(env_name);
}

std::span<const std::uint8_t> bytes_of(const std::string& text) {
    return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// What goes into private_key_pem: sealed under the process's key-encryption key when one is
// installed (always in `serve`), the PEM itself otherwise (unit tests, tools without keys).
std::string stored_form(const std::string& private_key_pem, const tenant& owner) {
    const sealing_key* kek = installed_key_encryption_key();
    if (kek == nullptr) return private_key_pem;
    os_random random;
    return seal_bytes(*kek, bytes_of(private_key_pem),
                      seal_context(owner.platform_id, owner.env_name()), random);
}

std::string opened_form(const std::string& stored, const tenant& owner) {
    if (!is_sealed(stored)) return stored;
    const sealing_key* kek = installed_key_encryption_key();
    if (kek == nullptr) {
        throw std::runtime_error(
            "webhook signing keys are sealed but no key-encryption key is loaded");
    }
    auto opened = unseal_bytes(*kek, stored, seal_context(owner.platform_id, owner.env_name()));
    if (!opened) {
        throw std::runtime_error("the webhook signing key of " + owner.platform_id +
                                 " does not open with the key-encryption key");
    }
    return std::string(opened->begin(), opened->end());
}

}  // namespace

webhook_key_pair generate_webhook_key_pair() {
    pkey_ptr key(EVP_EC_gen("P-256"));
    if (!key) throw std::runtime_error("cannot generate a P-256 key");
    bio_ptr private_bio(BIO_new(BIO_s_mem()));
    bio_ptr public_bio(BIO_new(BIO_s_mem()));
    if (PEM_write_bio_PrivateKey(private_bio.get(), key.get(), nullptr, nullptr, 0, nullptr,
                                 nullptr) != 1 ||
        PEM_write_bio_PUBKEY(public_bio.get(), key.get()) != 1) {
        throw std::runtime_error("cannot encode a P-256 key");
    }
    return webhook_key_pair{bio_text(private_bio.get()), bio_text(public_bio.get())};
}

namespace {

// A tenant's row as stored: private halves possibly sealed.
struct stored_keys {
    webhook_key_pair current;
    std::optional<webhook_key_pair> next;
    std::optional<long long> next_activate_at_ms;
};

std::optional<stored_keys> read_stored_keys(soci::session& session, const tenant& owner) {
    std::string env_name(owner.env_name());
    stored_keys keys;
    webhook_key_pair next;
    long long activate_at_ms = 0;
    soci::indicator private_ind = soci::i_null, public_ind = soci::i_null,
                    next_private_ind = soci::i_null, next_public_ind = soci::i_null,
                    activate_ind = soci::i_null;
    session << "SELECT private_key_pem, public_key_pem, next_private_key_pem, next_public_key_pem, "
               "next_activate_at_ms FROM webhook_keys WHERE platform_id = :p AND environment = :e",
        soci::use(owner.platform_id), soci::use(env_name),
        soci::into(keys.current.private_key_pem, private_ind),
        soci::into(keys.current.public_key_pem, public_ind),
        soci::into(next.private_key_pem, next_private_ind),
        soci::into(next.public_key_pem, next_public_ind), soci::into(activate_at_ms, activate_ind);
    if (!session.got_data() || private_ind != soci::i_ok) return std::nullopt;
    if (next_private_ind == soci::i_ok && next_public_ind == soci::i_ok) {
        keys.next = std::move(next);
        if (activate_ind == soci::i_ok) keys.next_activate_at_ms = activate_at_ms;
    }
    return keys;
}

// Makes the staged next key current, unless another process did it first (the condition on the
// next public key then matches nothing). The replaced public key stays as previous.
void promote_next_key(soci::session& session, const tenant& owner, const std::string& next_public,
                      long long now_ms) {
    std::string env_name(owner.env_name());
    long long retired_at_ms = now_ms;
    session << "UPDATE webhook_keys SET previous_public_key_pem = public_key_pem, "
               "previous_retired_at_ms = :r, private_key_pem = next_private_key_pem, "
               "public_key_pem = next_public_key_pem, created_at_ms = COALESCE(next_created_at_ms, "
               ":c), next_private_key_pem = NULL, next_public_key_pem = NULL, next_created_at_ms = "
               "NULL, next_activate_at_ms = NULL WHERE platform_id = :p AND environment = :e AND "
               "next_public_key_pem = :n",
        soci::use(retired_at_ms), soci::use(now_ms), soci::use(owner.platform_id),
        soci::use(env_name), soci::use(next_public);
}

bool next_is_due(const stored_keys& keys, long long now_ms) {
    return keys.next && keys.next_activate_at_ms && *keys.next_activate_at_ms <= now_ms;
}

}  // namespace

std::optional<webhook_key_pair> find_webhook_key(soci::session& session, const tenant& owner) {
    auto stored = read_stored_keys(session, owner);
    if (!stored) return std::nullopt;
    webhook_key_pair pair = std::move(stored->current);
    pair.private_key_pem = opened_form(pair.private_key_pem, owner);
    return pair;
}

webhook_key_pair ensure_webhook_key(soci::session& session, const clock& time,
                                    const tenant& owner) {
    long long now_ms = time.now_ms();
    auto stored = read_stored_keys(session, owner);
    if (stored && next_is_due(*stored, now_ms)) {
        // The time of a staged switch has come: the key that signs from now on is the next one.
        promote_next_key(session, owner, stored->next->public_key_pem, now_ms);
        stored = read_stored_keys(session, owner);
    }
    if (stored) {
        webhook_key_pair pair = std::move(stored->current);
        pair.private_key_pem = opened_form(pair.private_key_pem, owner);
        return pair;
    }
    auto fresh = generate_webhook_key_pair();
    std::string env_name(owner.env_name());
    std::string sealed = stored_form(fresh.private_key_pem, owner);
    // ON CONFLICT: another process may create the same tenant's key at the same moment; the first
    // one stays and both use it.
    session
        << "INSERT INTO webhook_keys (platform_id, environment, private_key_pem, public_key_pem, "
           "created_at_ms) VALUES (:p, :e, :k, :u, :t) ON CONFLICT (platform_id, environment) DO "
           "NOTHING",
        soci::use(owner.platform_id), soci::use(env_name), soci::use(sealed),
        soci::use(fresh.public_key_pem), soci::use(now_ms);
    auto found = find_webhook_key(session, owner);
    CORRIDOR_ASSERT(found.has_value());
    return *found;
}

webhook_key_pair rotate_webhook_key(soci::session& session, const clock& time,
                                    const tenant& owner) {
    ensure_webhook_key(session, time, owner);
    auto fresh = generate_webhook_key_pair();
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms(), retired_at_ms = now_ms;
    std::string sealed = stored_form(fresh.private_key_pem, owner);
    session << "UPDATE webhook_keys SET previous_public_key_pem = public_key_pem, "
               "previous_retired_at_ms = :r, private_key_pem = :k, public_key_pem = :u, "
               "created_at_ms = :t, next_private_key_pem = NULL, next_public_key_pem = NULL, "
               "next_created_at_ms = NULL, next_activate_at_ms = NULL WHERE platform_id = :p AND "
               "environment = :e",
        soci::use(retired_at_ms), soci::use(sealed), soci::use(fresh.public_key_pem),
        soci::use(now_ms), soci::use(owner.platform_id), soci::use(env_name);
    return fresh;
}

next_webhook_key stage_next_webhook_key(soci::session& session, const clock& time,
                                        const tenant& owner,
                                        std::optional<std::int64_t> activate_at_ms) {
    ensure_webhook_key(session, time, owner);
    auto fresh = generate_webhook_key_pair();
    std::string env_name(owner.env_name());
    long long now_ms = time.now_ms();
    long long activate_value = activate_at_ms.value_or(0);
    soci::indicator activate_ind = activate_at_ms ? soci::i_ok : soci::i_null;
    std::string sealed = stored_form(fresh.private_key_pem, owner);
    session << "UPDATE webhook_keys SET next_private_key_pem = :k, next_public_key_pem = :u, "
               "next_created_at_ms = :t, next_activate_at_ms = :a WHERE platform_id = :p AND "
               "environment = :e",
        soci::use(sealed), soci::use(fresh.public_key_pem), soci::use(now_ms),
        soci::use(activate_value, activate_ind), soci::use(owner.platform_id), soci::use(env_name);
    return next_webhook_key{fresh.public_key_pem, activate_at_ms};
}

std::optional<next_webhook_key> find_next_webhook_key(soci::session& session, const clock& time,
                                                      const tenant& owner) {
    ensure_webhook_key(session, time, owner);  // a next key whose time has come is current now
    auto stored = read_stored_keys(session, owner);
    if (!stored || !stored->next) return std::nullopt;
    return next_webhook_key{stored->next->public_key_pem, stored->next_activate_at_ms};
}

std::optional<webhook_key_pair> activate_next_webhook_key(soci::session& session, const clock& time,
                                                          const tenant& owner) {
    // Read before anything promotes: a staged key whose --at time has passed is activated here
    // as asked, rather than promoted first and then reported as missing.
    auto stored = read_stored_keys(session, owner);
    if (!stored || !stored->next) return std::nullopt;
    promote_next_key(session, owner, stored->next->public_key_pem, time.now_ms());
    return find_webhook_key(session, owner);
}

int seal_stored_webhook_keys(soci::session& session, const sealing_key& kek,
                             random_source& random) {
    // Both private halves of a row: the current key and a staged next one, each sealed the same
    // way (same context, so that making the next key current copies it as it is).
    struct row {
        std::string platform_id, environment, column, private_key;
    };
    std::vector<row> rows;
    {
        row current;
        std::string next_private;
        soci::indicator next_ind = soci::i_null;
        soci::statement select =
            (session.prepare
                 << "SELECT platform_id, environment, private_key_pem, next_private_key_pem FROM "
                    "webhook_keys ORDER BY platform_id, environment",
             soci::into(current.platform_id), soci::into(current.environment),
             soci::into(current.private_key), soci::into(next_private, next_ind));
        select.execute(false);
        while (select.fetch()) {
            current.column = "private_key_pem";
            rows.push_back(current);
            if (next_ind == soci::i_ok) {
                row next = current;
                next.column = "next_private_key_pem";
                next.private_key = next_private;
                rows.push_back(next);
            }
        }
    }
    int sealed = 0;
    for (const auto& key : rows) {
        std::string context = seal_context(key.platform_id, key.environment);
        if (is_sealed(key.private_key)) {
            if (!unseal_bytes(kek, key.private_key, context)) {
                throw std::runtime_error("the webhook signing key of " + key.platform_id + " (" +
                                         key.environment +
                                         ") does not open with the key-encryption key");
            }
            continue;
        }
        read_private_key(key.private_key);  // throws on a row that is neither sealed nor a key
        std::string stored = seal_bytes(kek, bytes_of(key.private_key), context, random);
        // The column name comes from the two above, never from input.
        session << "UPDATE webhook_keys SET " + key.column + " = :k WHERE platform_id = :p AND " +
                       "environment = :e AND " + key.column + " = :old",
            soci::use(stored), soci::use(key.platform_id), soci::use(key.environment),
            soci::use(key.private_key);
        ++sealed;
    }
    return sealed;
}

// The signing context is set up once per key: creating and initialising one per signature (an
// algorithm fetch, allocations and provider locks) cost about an eighth of the signature itself at
// thousands of webhooks a second. EVP_PKEY_sign may run again on the same context, one at a time.
struct webhook_signer::key {
    struct pkey_ctx_free {
        void operator()(EVP_PKEY_CTX* context) const noexcept { EVP_PKEY_CTX_free(context); }
    };
    pkey_ptr pkey;
    std::unique_ptr<EVP_PKEY_CTX, pkey_ctx_free> context;
    std::mutex mutex;
};

webhook_signer::webhook_signer(const std::string& private_key_pem) : key_(std::make_unique<key>()) {
    key_->pkey = read_private_key(private_key_pem);
    key_->context.reset(EVP_PKEY_CTX_new_from_pkey(nullptr, key_->pkey.get(), nullptr));
    if (!key_->context || EVP_PKEY_sign_init(key_->context.get()) != 1 ||
        EVP_PKEY_CTX_set_signature_md(key_->context.get(), EVP_sha256()) != 1) {
        throw std::runtime_error("the webhook signing key cannot sign");
    }
}
webhook_signer::~webhook_signer() = default;
webhook_signer::webhook_signer(webhook_signer&&) noexcept = default;
webhook_signer& webhook_signer::operator=(webhook_signer&&) noexcept = default;

std::string webhook_signer::sign_base64(std::string_view body) const {
    unsigned char digest[SHA256_DIGEST_LENGTH];
    SHA256(reinterpret_cast<const unsigned char*>(body.data()), body.size(), digest);
    std::vector<unsigned char> signature(
        static_cast<std::size_t>(EVP_PKEY_get_size(key_->pkey.get())));
    std::size_t size = signature.size();
    {
        std::lock_guard lock(key_->mutex);
        if (EVP_PKEY_sign(key_->context.get(), signature.data(), &size, digest, sizeof digest) != 1)
            throw std::runtime_error("webhook signing failed");
    }
    signature.resize(size);
    auto normalised = low_s_der(signature);
    return base64(normalised.data(), normalised.size());
}

std::string webhook_signer::signature_header(std::string_view body) const {
    return R"({"v":"1","s":")" + sign_base64(body) + "\"}";
}

bool verify_webhook_signature(const std::string& public_key_pem, std::string_view body,
                              std::string_view signature_base64) {
    auto key = read_public_key(public_key_pem);
    auto signature = base64_decode(signature_base64);
    if (!key || !signature) return false;
    md_ctx_ptr context(EVP_MD_CTX_new());
    if (!context ||
        EVP_DigestVerifyInit(context.get(), nullptr, EVP_sha256(), nullptr, key.get()) != 1) {
        return false;
    }
    return EVP_DigestVerify(context.get(), signature->data(), signature->size(),
                            reinterpret_cast<const unsigned char*>(body.data()), body.size()) == 1;
}

}  // namespace corridor

#pragma once
// Webhook signing keys: one ECDSA P-256 key pair per platform environment. The private key is kept
// in the database, sealed with the key-encryption key when the process has one installed
// (ledger/store/key_sealing.hpp), and used only to sign; only the public key (SubjectPublicKeyInfo PEM)
// is shown. The functions here take and return the private key opened.
// Signatures are ECDSA over SHA-256 of the exact body bytes, DER-encoded, then standard base64.
#include <soci/soci.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ledger/base/clock.hpp"
#include "ledger/store/key_sealing.hpp"
#include "ledger/base/random.hpp"
#include "ledger/base/tenant.hpp"

namespace corridor {

struct webhook_key_pair {
    std::string private_key_pem;  // PKCS#8; never logged, never served
    std::string public_key_pem;   // SubjectPublicKeyInfo
};

// A fresh P-256 key pair from OpenSSL's CSPRNG.
webhook_key_pair generate_webhook_key_pair();

// Creates the tenant's key pair unless it has one (safe against a concurrent creator in another
// process). Returns the key pair in force.
webhook_key_pair ensure_webhook_key(soci::session& session, const clock& time, const tenant& owner);
// Replaces the tenant's key pair with a new one at once (and discards a staged next key); returns
// it. The replaced public key is kept as previous.
webhook_key_pair rotate_webhook_key(soci::session& session, const clock& time, const tenant& owner);
// Throws std::runtime_error when the stored key is sealed and does not open. The stored current
// key as it is, before any due next key takes over (ensure_webhook_key applies that).
std::optional<webhook_key_pair> find_webhook_key(soci::session& session, const tenant& owner);

// Rotation with an overlap: a next key is published ahead of the switch so that receivers install
// it before it signs. It takes over when activated on command or, when it has one, at
// activate_at_ms: the first ensure_webhook_key at or after that time promotes it. Until then the
// current key alone signs.
struct next_webhook_key {
    std::string public_key_pem;
    std::optional<std::int64_t> activate_at_ms;  // none: only on command
};
// Makes a next key (replacing a staged one) and returns it; the current key still signs.
next_webhook_key stage_next_webhook_key(soci::session& session, const clock& time,
                                        const tenant& owner,
                                        std::optional<std::int64_t> activate_at_ms);
// The staged next key, none when there is none (or it has already taken over).
std::optional<next_webhook_key> find_next_webhook_key(soci::session& session, const clock& time,
                                                      const tenant& owner);
// Makes the staged next key current (the replaced public key kept as previous) and returns it;
// none when no next key is staged.
std::optional<webhook_key_pair> activate_next_webhook_key(soci::session& session, const clock& time,
                                                          const tenant& owner);
// Seals every private key still stored in clear (databases from before keys were sealed by
// default) and checks that every sealed one opens with `kek`; throws std::runtime_error naming the
// first that does not. Returns how many rows it sealed. Runs in the caller's transaction.
int seal_stored_webhook_keys(soci::session& session, const sealing_key& kek, random_source& random);

// A parsed private key, for signing many bodies without parsing the PEM each time.
class webhook_signer {
public:
    explicit webhook_signer(const std::string& private_key_pem);  // throws std::runtime_error
    ~webhook_signer();
    webhook_signer(webhook_signer&&) noexcept;
    webhook_signer& operator=(webhook_signer&&) noexcept;
    // base64(DER(ECDSA-P256(SHA-256(body))))
    std::string sign_base64(std::string_view body) const;
    // The header value: {"v":"1","s":"<base64>"}
    std::string signature_header(std::string_view body) const;

private:
    struct key;
    std::unique_ptr<key> key_;
};

// Checks a base64 DER signature against a PEM public key (tests and tools).
bool verify_webhook_signature(const std::string& public_key_pem, std::string_view body,
                              std::string_view signature_base64);

}  // namespace corridor

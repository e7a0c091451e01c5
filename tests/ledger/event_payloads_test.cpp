// Webhook payloads at rest: compressed with the frozen dictionary of format z2 and stored as bytes,
// the same JSON again when read; rows stored as JSON before compression, in format z1, or as base64
// (schema versions 32 to 37) read as they are; a damaged row refused.
#include "ledger/store/event_payloads.hpp"

#include <openssl/evp.h>
#include <zstd.h>

#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "ledger/store/outbox.hpp"
#include "ledger/webhooks/webhook_deliveries.hpp"
#include "tests/support/store_fixture.hpp"

using namespace corridor;
using corridor::testing::store_fixture;

namespace {

const std::string transaction_event =
    R"({"transaction":{"id":"Transaction:019a4f2e-6c1d-7a3b-9e8f-0123456789ab","status":)"
    R"("COMPLETED","type":"OUTGOING","source":{"sourceType":"ACCOUNT","currency":"USD",)"
    R"("accountId":"InternalAccount:019a4f2e-6c1d-7a3b-9e8f-aaaaaaaaaaaa"},"destination":)"
    R"({"destinationType":"ACCOUNT","currency":"EUR","accountId":"InternalAccount:)"
    R"(019a4f2e-6c1d-7a3b-9e8f-bbbbbbbbbbbb"},"createdAt":"2026-11-26T08:34:23.984Z",)"
    R"("updatedAt":"2026-11-26T08:34:23.984Z","customerId":"Customer:019a4f2e-6c1d-7a3b-9e8f-)"
    R"(cccccccccccc","description":"caf\u00e9 \"quoted\" \\ €","receivedAmount":{"amount":908,)"
    R"("currency":{"code":"EUR","name":"Euro","symbol":"€","decimals":2}}}})";

std::string sha256_hex(std::string_view data) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    REQUIRE(EVP_Digest(data.data(), data.size(), digest, &size, EVP_sha256(), nullptr) == 1);
    static const char hex[] = "0123456789abcdef";
    std::string out;
    for (unsigned int i = 0; i < size; ++i) {
        out += hex[digest[i] >> 4];
        out += hex[digest[i] & 0xf];
    }
    return out;
}

// A frame of format z1 (stored before z2): the raw-content dictionary, no dictionary id.
std::string z1_frame(std::string_view json) {
    std::string frame(ZSTD_compressBound(json.size()), '\0');
    ZSTD_CCtx* context = ZSTD_createCCtx();
    std::size_t size = ZSTD_compress_usingDict(context, frame.data(), frame.size(), json.data(),
                                               json.size(), event_payload_dictionary().data(),
                                               event_payload_dictionary().size(), 3);
    ZSTD_freeCCtx(context);
    REQUIRE_FALSE(ZSTD_isError(size));
    frame.resize(size);
    REQUIRE(ZSTD_getDictID_fromFrame(frame.data(), frame.size()) == 0);
    return frame;
}

}  // namespace

TEST_CASE("a payload is stored compressed and reads back byte for byte", "[webhooks]") {
    std::string stored = pack_event_payload(transaction_event);
    // The frame's bytes (zstd's magic number first), not text: no base64 third on top.
    CHECK(stored.starts_with("\x28\xb5\x2f\xfd"));
    CHECK(ZSTD_getDictID_fromFrame(stored.data(), stored.size()) == 2);  // format z2
    CHECK(stored.size() < z1_frame(transaction_event).size());
    CHECK(stored.size() * 3 < transaction_event.size());
    CHECK(unpack_event_payload(stored) == transaction_event);
    for (std::size_t extra = 0; extra < 6; ++extra) {
        std::string json = R"({"n":")" + std::string(extra, 'x') + R"("})";
        CHECK(unpack_event_payload(pack_event_payload(json)) == json);
    }
}

TEST_CASE("a payload stored as JSON before compression reads as it is", "[webhooks]") {
    CHECK(unpack_event_payload(transaction_event) == transaction_event);
    CHECK(unpack_event_payload(R"({"a":1})") == R"({"a":1})");
}

TEST_CASE("payloads stored in format z1, as bytes or as base64 (versions 32 to 37), read as before",
          "[webhooks]") {
    // Every length, so that each base64 padding case decodes.
    for (std::size_t extra = 0; extra < 6; ++extra) {
        std::string json = R"({"n":")" + std::string(extra, 'x') + R"("})";
        CHECK(unpack_event_payload("z1:" + event_payload_base64(z1_frame(json))) == json);
        CHECK(unpack_event_payload(z1_frame(json)) == json);
    }
    CHECK(unpack_event_payload(z1_frame(transaction_event)) == transaction_event);
}

TEST_CASE("a frame of an unknown dictionary is refused, not sent", "[webhooks]") {
    std::string frame(ZSTD_compressBound(transaction_event.size()), '\0');
    ZSTD_CCtx* context = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(context, ZSTD_c_dictIDFlag, 1);
    // A trained dictionary's header carries its id: 7 is none of ours.
    std::string dictionary(event_payload_dictionary_z2());
    dictionary[4] = 7;
    std::size_t size =
        ZSTD_compress_usingDict(context, frame.data(), frame.size(), transaction_event.data(),
                                transaction_event.size(), dictionary.data(), dictionary.size(), 3);
    ZSTD_freeCCtx(context);
    REQUIRE_FALSE(ZSTD_isError(size));
    frame.resize(size);
    REQUIRE(ZSTD_getDictID_fromFrame(frame.data(), frame.size()) == 7);
    CHECK_THROWS_AS(unpack_event_payload(frame), std::runtime_error);
}

TEST_CASE("a payload read as PostgreSQL's text of a BYTEA reads as its bytes", "[webhooks]") {
    std::string stored = pack_event_payload(transaction_event);
    std::string hex = "\\x";
    for (unsigned char c : stored) {
        static const char digits[] = "0123456789abcdef";
        hex += digits[c >> 4];
        hex += digits[c & 0xf];
    }
    CHECK(unpack_event_payload(hex) == transaction_event);
    CHECK(unpack_event_payload("\\x7b2261223a317d") == R"({"a":1})");  // a JSON row's bytes
    CHECK_THROWS_AS(unpack_event_payload("\\x28b52ffd0"), std::runtime_error);
}

TEST_CASE("a damaged compressed payload is refused, not sent", "[webhooks]") {
    std::string stored = pack_event_payload(transaction_event);
    CHECK_THROWS_AS(unpack_event_payload("z1:not base64!"), std::runtime_error);
    CHECK_THROWS_AS(unpack_event_payload("z1:" + std::string(8, 'A')), std::runtime_error);
    std::string cut = stored.substr(0, stored.size() - 8);
    CHECK_THROWS_AS(unpack_event_payload(cut), std::runtime_error);
}

TEST_CASE("the dictionaries of formats z1 and z2 are frozen", "[webhooks]") {
    // Stored rows decode only with these exact bytes: a changed dictionary is a new format (a new
    // id, the old dictionary kept for the rows made with it), never an edit of this one.
    CHECK(event_payload_dictionary().size() == 2180);
    CHECK(sha256_hex(event_payload_dictionary()) ==
          "4b60cd69967c8ddfa11ab8458e42029a8737e5ffb2760b0c32904c68191c1f08");
    CHECK(event_payload_dictionary_z2().size() == 8192);
    CHECK(sha256_hex(event_payload_dictionary_z2()) ==
          "082adc52a94f346a7705d98c2ccd737209bf3fe515bc3dcf8a8d763711526242");
}

TEST_CASE("an event is delivered with the JSON it was recorded with, old rows too",
          "[store][webhooks]") {
    store_fixture f;
    tenant owner{f.make_platform("packed.example"), environment::sandbox};
    config_patch patch;
    patch.webhook_endpoint = std::optional<std::string>("https://receiver.example/hooks");
    REQUIRE(update_platform_config(f.session(), f.platforms(), owner, patch).ok());
    std::string recorded =
        record_event(f.session(), f.ids, f.clock, owner, "OUTGOING_PAYMENT", transaction_event);
    std::string stored;
    f.session() << "SELECT payload FROM outbox_events WHERE id = packed_id(:i)",
        soci::use(recorded), soci::into(stored);
    // Bytes: on PostgreSQL a BYTEA, which soci reads as \x and hex.
    CHECK((stored.starts_with("\x28\xb5\x2f\xfd") || stored.starts_with("\\x28b52ffd")));
    CHECK(unpack_event_payload(stored) == transaction_event);
    // A row written by a release before compression.
    std::string env(owner.env_name()), legacy_id = "Webhook:00000000-0000-7000-8000-00000000000a",
                                       legacy = R"({"accountId":"InternalAccount:x"})";
    long long now = f.clock.now_ms();
    f.session()
        << "INSERT INTO outbox_events (id, tenant_key, type, payload, state, attempts, "
           "next_attempt_at_ms, created_at_ms) VALUES (packed_id(:i), (SELECT tenant_key FROM "
           "platform_configs WHERE platform_id = :p AND environment = :e), "
           "'ACCOUNT_STATUS', :b, 'PENDING', 0, :n, :t)",
        soci::use(legacy_id), soci::use(owner.platform_id), soci::use(env), soci::use(legacy),
        soci::use(now), soci::use(now);
    retry_policy policy;
    auto claimed = claim_due_deliveries(f.session(), f.clock, f.random, policy, 10);
    REQUIRE(claimed.size() == 2);
    for (const auto& delivery : claimed) {
        CHECK(delivery.payload == (delivery.id == recorded ? transaction_event : legacy));
        std::string body = webhook_body(delivery, now);
        CHECK(body.ends_with(delivery.payload.substr(1)));
    }
}

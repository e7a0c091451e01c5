#include "ledger/store/event_payloads.hpp"

#include <openssl/evp.h>
#include <zstd.h>

#include <memory>
#include <stdexcept>

#include "ledger/base/assert.hpp"

namespace corridor {

extern const unsigned char event_payload_dictionary_bytes[];
extern const std::size_t event_payload_dictionary_size;
extern const unsigned char event_payload_dictionary_z2_bytes[];
extern const std::size_t event_payload_dictionary_z2_size;

namespace {

// Rows of schema versions 32 to 37 (SQLite): this prefix and the frame in base64.
constexpr std::string_view base64_prefix = "z1:";
// Every zstd frame starts with its magic number (0xFD2FB528, little-endian): never the '{' of a
// JSON row nor the 'z' of a base64 one.
constexpr std::string_view frame_magic = "\x28\xb5\x2f\xfd";
// PostgreSQL's text form of a BYTEA.
constexpr std::string_view hex_prefix = "\\x";
// Level 1 with a prepared dictionary: about 16% of the JSON in about a microsecond per event on
// the event packer's thread. Level 3 made frames of the same size on the service's events at 1.3
// us instead of 1.0; level 19 saves 2% more at ten times the CPU.
constexpr int compression_level = 1;
constexpr unsigned long long unpacked_bytes_max = 16 << 20;

struct cdict_free {
    void operator()(ZSTD_CDict* d) const { ZSTD_freeCDict(d); }
};
struct ddict_free {
    void operator()(ZSTD_DDict* d) const { ZSTD_freeDDict(d); }
};
struct cctx_free {
    void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct dctx_free {
    void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

// Format z2's dictionary is a trained zstd dictionary whose id (2) every frame made with it
// carries (one byte); z1's is raw content, with no id, so its frames carry none.
constexpr unsigned z2_dictionary_id = 2;

// New payloads are packed with z2.
const ZSTD_CDict* compression_dictionary() {
    static const std::unique_ptr<ZSTD_CDict, cdict_free> dict(ZSTD_createCDict(
        event_payload_dictionary_z2_bytes, event_payload_dictionary_z2_size, compression_level));
    CORRIDOR_ASSERT(dict != nullptr);
    CORRIDOR_ASSERT(ZSTD_getDictID_fromCDict(dict.get()) == z2_dictionary_id);
    return dict.get();
}

// The dictionary a frame names: z2 by its id, z1 (frames stored before z2) by none.
const ZSTD_DDict* decompression_dictionary(std::string_view frame) {
    static const std::unique_ptr<ZSTD_DDict, ddict_free> z1(
        ZSTD_createDDict(event_payload_dictionary_bytes, event_payload_dictionary_size));
    static const std::unique_ptr<ZSTD_DDict, ddict_free> z2(
        ZSTD_createDDict(event_payload_dictionary_z2_bytes, event_payload_dictionary_z2_size));
    CORRIDOR_ASSERT(z1 != nullptr && z2 != nullptr);
    unsigned id = ZSTD_getDictID_fromFrame(frame.data(), frame.size());
    if (id == 0) return z1.get();
    if (id == z2_dictionary_id) return z2.get();
    throw std::runtime_error("stored webhook payload: frame of an unknown dictionary");
}

// One context per thread: the ledger writer packs, the delivery workers unpack.
ZSTD_CCtx* compression_context() {
    thread_local std::unique_ptr<ZSTD_CCtx, cctx_free> context = [] {
        std::unique_ptr<ZSTD_CCtx, cctx_free> made(ZSTD_createCCtx());
        CORRIDOR_ASSERT(made != nullptr);
        // No checksum: 4 bytes a row that the database's own pages make unnecessary.
        ZSTD_CCtx_setParameter(made.get(), ZSTD_c_checksumFlag, 0);
        return made;
    }();
    return context.get();
}

ZSTD_DCtx* decompression_context() {
    thread_local std::unique_ptr<ZSTD_DCtx, dctx_free> context(ZSTD_createDCtx());
    CORRIDOR_ASSERT(context != nullptr);
    return context.get();
}

std::string base64_encode(std::string_view data) {
    std::string out(4 * ((data.size() + 2) / 3) + 1, '\0');
    int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(data.data()),
                                  static_cast<int>(data.size()));
    out.resize(static_cast<std::size_t>(written));
    return out;
}

std::string base64_decode(std::string_view text) {
    if (text.empty() || text.size() % 4 != 0)
        throw std::runtime_error("stored webhook payload: bad base64 length");
    std::string out(3 * (text.size() / 4), '\0');
    int written = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                  reinterpret_cast<const unsigned char*>(text.data()),
                                  static_cast<int>(text.size()));
    if (written < 0) throw std::runtime_error("stored webhook payload: bad base64");
    // EVP_DecodeBlock counts the padding's zero bytes.
    std::size_t padding = text.ends_with("==") ? 2 : text.ends_with("=") ? 1 : 0;
    out.resize(static_cast<std::size_t>(written) - padding);
    return out;
}

std::string hex_decode(std::string_view hex) {
    if (hex.size() % 2 != 0) throw std::runtime_error("stored webhook payload: bad hex length");
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw std::runtime_error("stored webhook payload: bad hex");
    };
    std::string out(hex.size() / 2, '\0');
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = static_cast<char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
    return out;
}

std::string decompress(std::string_view frame) {
    unsigned long long size = ZSTD_getFrameContentSize(frame.data(), frame.size());
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN ||
        size > unpacked_bytes_max)
        throw std::runtime_error("stored webhook payload: not a zstd frame of known size");
    std::string json(static_cast<std::size_t>(size), '\0');
    std::size_t written =
        ZSTD_decompress_usingDDict(decompression_context(), json.data(), json.size(), frame.data(),
                                   frame.size(), decompression_dictionary(frame));
    if (ZSTD_isError(written) || written != size)
        throw std::runtime_error("stored webhook payload: does not decompress");
    return json;
}

std::string unpack_bytes(std::string_view stored) {
    if (stored.starts_with(frame_magic)) return decompress(stored);
    if (stored.starts_with(base64_prefix))
        return decompress(base64_decode(stored.substr(base64_prefix.size())));
    return std::string(stored);  // the JSON itself
}

}  // namespace

std::string_view event_payload_dictionary() {
    return {reinterpret_cast<const char*>(event_payload_dictionary_bytes),
            event_payload_dictionary_size};
}

std::string_view event_payload_dictionary_z2() {
    return {reinterpret_cast<const char*>(event_payload_dictionary_z2_bytes),
            event_payload_dictionary_z2_size};
}

std::string pack_event_payload(std::string_view json) {
    CORRIDOR_ASSERT(!json.empty() && json.front() == '{');
    std::string frame(ZSTD_compressBound(json.size()), '\0');
    std::size_t size = ZSTD_compress_usingCDict(compression_context(), frame.data(), frame.size(),
                                                json.data(), json.size(), compression_dictionary());
    CORRIDOR_ASSERT(!ZSTD_isError(size));
    frame.resize(size);
    return frame;
}

std::string event_payload_base64(std::string_view stored) {
    return base64_encode(stored);
}

std::string unpack_event_payload(std::string_view stored) {
    if (stored.starts_with(hex_prefix)) return unpack_bytes(hex_decode(stored.substr(2)));
    return unpack_bytes(stored);
}

}  // namespace corridor

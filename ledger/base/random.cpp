#include "ledger/base/random.hpp"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <pthread.h>

#include <array>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "ledger/base/assert.hpp"

namespace corridor {

namespace {

void draw(std::uint8_t* out, std::size_t count) {
    if (RAND_bytes(out, static_cast<int>(count)) != 1) {
        throw std::runtime_error("the OS random source failed");
    }
}

// Each RAND_bytes call costs thousands of instructions whatever its size, and a payment draws a
// dozen small values (ids, references). Bytes are drawn in blocks per thread, handed out once,
// and wiped as they are handed out; a forked child never uses its parent's block. A block of
// 4 KiB lasts the ledger writer about two dozen payments (at 512 bytes its draws were still
// about 2% of the writer's time).
struct random_block {
    static constexpr std::size_t size = 4096;
    std::array<std::uint8_t, size> bytes{};
    std::size_t used = size;
    unsigned owner = 0;  // the fork_generation it was drawn in

    ~random_block() { OPENSSL_cleanse(bytes.data(), bytes.size()); }
};

// Counts the forks this process came through. Comparing it, rather than calling getpid (a system
// call each time, a dozen times a payment), tells a forked child that its block is its parent's.
std::atomic<unsigned> forks_seen{1};

void note_fork_in_child() {
    forks_seen.fetch_add(1, std::memory_order_relaxed);
}

unsigned fork_generation() {
    static const bool watching = [] {
        return pthread_atfork(nullptr, nullptr, note_fork_in_child) == 0;
    }();
    CORRIDOR_ASSERT(watching);
    return forks_seen.load(std::memory_order_relaxed);
}

}  // namespace

void os_random::fill(std::span<std::uint8_t> out) {
    if (out.empty()) return;
    if (out.size() > random_block::size / 4) {
        draw(out.data(), out.size());
        return;
    }
    thread_local random_block block;
    unsigned generation = fork_generation();
    if (block.owner != generation || block.size - block.used < out.size()) {
        draw(block.bytes.data(), block.size);
        block.used = 0;
        block.owner = generation;
    }
    std::memcpy(out.data(), block.bytes.data() + block.used, out.size());
    OPENSSL_cleanse(block.bytes.data() + block.used, out.size());
    block.used += out.size();
}

void seeded_random::fill(std::span<std::uint8_t> out) {
    std::lock_guard lock(mutex_);
    for (auto& byte : out) byte = static_cast<std::uint8_t>(engine_() & 0xff);
}

std::string random_hex(random_source& source, std::size_t byte_count) {
    static constexpr char digits[] = "0123456789abcdef";
    std::vector<std::uint8_t> bytes(byte_count);
    source.fill(bytes);
    std::string out;
    out.reserve(byte_count * 2);
    for (auto byte : bytes) {
        out.push_back(digits[byte >> 4]);
        out.push_back(digits[byte & 0xf]);
    }
    return out;
}

std::string random_base32(random_source& source, std::size_t char_count) {
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz234567";
    std::vector<std::uint8_t> bytes(char_count);
    source.fill(bytes);
    std::string out;
    out.reserve(char_count);
    for (auto byte : bytes) out.push_back(alphabet[byte & 31]);
    return out;
}

}  // namespace corridor

#pragma once
// Randomness is injected: production draws from the OS CSPRNG, simulations from a seed.
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <random>
#include <span>
#include <string>

namespace corridor {

class random_source {
public:
    virtual ~random_source() = default;
    virtual void fill(std::span<std::uint8_t> out) = 0;
};

// OpenSSL's CSPRNG; the only source allowed for secrets.
class os_random final : public random_source {
public:
    void fill(std::span<std::uint8_t> out) override;
};

// Deterministic, for tests: the same seed gives the same ids.
class seeded_random final : public random_source {
public:
    explicit seeded_random(std::uint64_t seed) : engine_(seed) {}
    void fill(std::span<std::uint8_t> out) override;

private:
    std::mutex mutex_;
    std::mt19937_64 engine_;
};

std::string random_hex(random_source& source, std::size_t byte_count);
// Lower-case base32 (RFC 4648 alphabet, no padding), for human-facing generated names.
std::string random_base32(random_source& source, std::size_t char_count);

}  // namespace corridor

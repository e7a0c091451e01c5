#include "uma/secp256k1_context.hpp"

#include <array>
#include <cstdint>

#include "ledger/base/assert.hpp"
#include "ledger/base/random.hpp"

namespace corridor::uma {

const secp256k1_context* secp_context() {
    static secp256k1_context* const instance = [] {
        secp256k1_context* created = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
        CORRIDOR_ASSERT(created != nullptr);
        std::array<std::uint8_t, 32> seed{};
        os_random random;
        random.fill(seed);
        CORRIDOR_ASSERT(secp256k1_context_randomize(created, seed.data()) == 1);
        return created;
    }();
    return instance;
}

}  // namespace corridor::uma

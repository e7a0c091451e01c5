#include "rails/rail_sdk/lightning/secp256k1_context.hpp"

namespace corridor::lightning {

const secp256k1_context* secp_context() {
    static secp256k1_context* const context =
        secp256k1_context_create(SECP256K1_CONTEXT_SIGN | SECP256K1_CONTEXT_VERIFY);
    return context;
}

}  // namespace corridor::lightning

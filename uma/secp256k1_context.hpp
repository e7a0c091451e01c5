#pragma once
// The one libsecp256k1 context of uma/ (signing, verifying, key parsing and ECDH for travel-rule
// encryption). Created and randomised against side channels on first use; only read afterwards,
// which libsecp256k1 allows from any number of threads.
#include <secp256k1.h>

namespace corridor::uma {

const secp256k1_context* secp_context();

}  // namespace corridor::uma

#pragma once
// One libsecp256k1 context per process, created on first use. After creation it is only read, which
// libsecp256k1 allows from any number of threads.
#include <secp256k1.h>

namespace corridor::lightning {

const secp256k1_context* secp_context();

}  // namespace corridor::lightning

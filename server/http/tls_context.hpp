#pragma once
// TLS on the listener: the certificate, key and protocol settings the operator configured, loaded
// once at start-up. No Asio or OpenSSL in this header.
#include <memory>

namespace corridor {

struct tls_config;
class tls_context;  // defined in tls_context_detail.hpp, for the transport only

// Loads the PEM certificate chain and private key of `config`; nullptr when TLS is not configured.
// Throws config_error naming tls.certificate_file or tls.private_key_file when a file cannot be
// read, is not PEM, is an encrypted key, or the key does not match the certificate.
std::shared_ptr<tls_context> load_tls_context(const tls_config& config);

}  // namespace corridor

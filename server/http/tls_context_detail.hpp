#pragma once
// The OpenSSL context behind tls_context. Included only by the files of server/http that open TLS
// streams, so the rest of the build never sees Asio's SSL headers.
#include <boost/asio/ssl/context.hpp>
#include <utility>

namespace corridor {

class tls_context {
public:
    explicit tls_context(boost::asio::ssl::context context) : context_(std::move(context)) {}
    boost::asio::ssl::context& asio() { return context_; }

private:
    boost::asio::ssl::context context_;
};

}  // namespace corridor

#pragma once
// Routes by method and path pattern ("/2025-10-13/customers/{customerId}"). A literal segment beats a
// parameter at the same position, so /customers/external-accounts never reaches /customers/{id}.
// Registering the same method and pattern twice is a start-up bug and aborts.
#include <any>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "server/http/http_types.hpp"

namespace corridor {

struct request_context;
using handler_fn = http_response (*)(request_context&);
// Runs on the io thread without a database session; nullopt sends the request to the handler.
using fast_handler_fn = std::optional<http_response> (*)(request_context&);
// Runs before a writer route's handler, on a pool session and outside any transaction, for what
// must not hold up the ledger writer: reading, verifying signatures with keys fetched from other
// servers, asking another provider for an invoice. Its result reaches the handler as
// request_context::prepared; an api_error, or an http_response returned as the result, answers the
// request without running the handler.
using prepare_fn = std::any (*)(request_context&);

enum class access { public_route, authenticated };

struct route_spec {
    http_method method;
    std::string pattern;
    access who = access::authenticated;
    unsigned permission = 0;    // permission bits the token must hold
    bool sandbox_only = false;  // 403 for production credentials
    bool needs_database = true;
    // Money-moving routes run on the ledger writer, inside its batch transaction; nothing a failed
    // request did is kept. Idempotent routes honour the Idempotency-Key header.
    bool on_ledger_writer = false;
    bool idempotent = false;
    // The body is streamed to a file (http_request::body_file) under limits.bulk_upload_bytes_max
    // instead of being read into memory under limits.request_body_bytes_max.
    bool body_to_file = false;
    handler_fn handler = nullptr;
    fast_handler_fn fast = nullptr;
    prepare_fn prepare = nullptr;  // only with on_ledger_writer
};

struct route_match {
    const route_spec* route = nullptr;
    int index = -1;
    std::vector<std::string> params;  // decoded, in pattern order
    std::vector<http_method> allowed;  // when the path matched but the method did not
};

class router {
public:
    void add(route_spec spec);
    route_match match(http_method method, std::string_view path) const;
    const std::vector<route_spec>& routes() const { return routes_; }

private:
    struct compiled {
        std::vector<std::string> segments;  // "{...}" marks a parameter
    };
    std::vector<route_spec> routes_;
    std::vector<compiled> compiled_;
};

// Splits a path into percent-decoded segments; nullopt when a segment is malformed.
std::optional<std::vector<std::string>> split_path(std::string_view path);

}  // namespace corridor

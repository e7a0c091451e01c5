#include "tests/support/store_fixture.hpp"

#include <stdexcept>

namespace corridor::testing {

std::string store_fixture::make_platform(const std::string& uma_domain, const std::string& name) {
    new_platform request;
    request.name = name;
    request.uma_domain = uma_domain;
    request.supported_currencies = {{"USD", 1, 1000000, {"OUTGOING", "INCOMING"}, {}}};
    auto created = create_platform(session(), platforms(), request);
    if (!created) throw std::runtime_error("fixture: cannot create platform " + uma_domain);
    return created.value();
}

}  // namespace corridor::testing

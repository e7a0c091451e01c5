#include "server/api/kyc_page.hpp"

#include <array>

namespace corridor {
namespace {

struct form_field {
    const char* name;
    const char* label;
    const char* type;
    const char* autocomplete;
    bool required;
    int length_max;
};

// What the page collects. Individuals: identity and residence; businesses: the legal entity and its
// registered address. Field names are those of the customer resource, flattened.
constexpr std::array<form_field, 3> individual_fields = {{
    {"fullName", "Full legal name", "text", "name", true, 256},
    {"birthDate", "Date of birth", "date", "bday", true, 10},
    {"nationality", "Nationality (2-letter country code, e.g. US)", "text", "off", true, 2},
}};
constexpr std::array<form_field, 3> business_fields = {{
    {"legalName", "Legal name of the business", "text", "organization", true, 256},
    {"registrationNumber", "Registration number", "text", "off", true, 64},
    {"taxId", "Tax ID", "text", "off", false, 64},
}};
constexpr std::array<form_field, 6> address_fields = {{
    {"line1", "Address", "text", "address-line1", true, 256},
    {"line2", "Address line 2 (optional)", "text", "address-line2", false, 256},
    {"city", "City", "text", "address-level2", true, 256},
    {"state", "State or region", "text", "address-level1", false, 256},
    {"postalCode", "Postal code", "text", "postal-code", true, 32},
    {"country", "Country of residence (2-letter code, e.g. US)", "text", "country", true, 2},
}};

constexpr const char* style = R"(
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1b1f24}
main{max-width:32rem;margin:0 auto;padding:1.25rem}
h1{font-size:1.4rem;margin:.5rem 0 1rem}
p{margin:.25rem 0 1rem}
form{background:#fff;border-radius:.75rem;padding:1.25rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}
fieldset{border:0;margin:0 0 1rem;padding:0}
legend{font-weight:600;margin-bottom:.5rem}
label{display:block;font-size:.9rem;margin:.75rem 0 .25rem}
input{width:100%;font-size:1rem;padding:.7rem .75rem;border:1px solid #b8bec7;border-radius:.5rem;background:#fff}
input:focus{outline:2px solid #2457d6;border-color:#2457d6}
button{width:100%;margin-top:1.25rem;padding:.9rem;font-size:1.05rem;font-weight:600;border:0;border-radius:.5rem;background:#2457d6;color:#fff}
.problem{background:#fdecec;color:#8a1c1c;border-radius:.5rem;padding:.75rem;margin-bottom:1rem}
.note{color:#59616b;font-size:.85rem}
)";

std::string html_page(const std::string& title, const std::string& content) {
    return "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
           "<title>" +
           html_escape(title) + "</title><style>" + style + "</style></head><body><main>" +
           content + "</main></body></html>\n";
}

template <std::size_t count>
std::string inputs(const std::array<form_field, count>& fields,
                   const std::map<std::string, std::string>& values) {
    std::string out;
    for (const auto& field : fields) {
        auto found = values.find(field.name);
        std::string value = found == values.end() ? "" : found->second;
        out += "<label for=\"" + std::string(field.name) + "\">" + html_escape(field.label) +
               "</label>";
        out += "<input id=\"" + std::string(field.name) + "\" name=\"" + field.name + "\" type=\"" +
               field.type + "\" autocomplete=\"" + field.autocomplete + "\" maxlength=\"" +
               std::to_string(field.length_max) + "\" value=\"" + html_escape(value) + "\"" +
               (field.required ? " required" : "") + ">";
    }
    return out;
}

}  // namespace

std::string render_kyc_form(const customer& subject,
                            const std::map<std::string, std::string>& values,
                            const std::string& problem) {
    return render_kyc_form(subject.customer_type, false, values, problem);
}

std::string render_kyc_form(const std::string& customer_type, bool new_person,
                            const std::map<std::string, std::string>& values,
                            const std::string& problem) {
    bool individual = customer_type == "INDIVIDUAL";
    std::string content = "<h1>Verify your identity</h1>";
    content += "<p>We need a few details to verify " +
               std::string(individual ? "who you are" : "your business") +
               " before you can send money. It takes about two minutes.</p>";
    if (new_person) {
        // Without scripts the other kind of form is another page: the link switches to it.
        content += individual ? "<p><a href=\"?type=BUSINESS\">Signing up a business? Use the "
                                "business form.</a></p>"
                              : "<p><a href=\"?type=INDIVIDUAL\">Signing up as a person? Use the "
                                "personal form.</a></p>";
    }
    if (!problem.empty())
        content += "<div class=\"problem\" role=\"alert\">" + html_escape(problem) + "</div>";
    content += "<form method=\"post\" autocomplete=\"on\">";
    if (new_person) {
        content += "<input type=\"hidden\" name=\"customerType\" value=\"" +
                   std::string(individual ? "INDIVIDUAL" : "BUSINESS") + "\">";
    }
    content += "<fieldset><legend>" + std::string(individual ? "About you" : "About the business") +
               "</legend>";
    content += individual ? inputs(individual_fields, values) : inputs(business_fields, values);
    content += "</fieldset><fieldset><legend>" +
               std::string(individual ? "Where you live" : "Registered address") + "</legend>";
    content += inputs(address_fields, values);
    content += "</fieldset><button type=\"submit\">Submit for review</button>";
    content +=
        "<p class=\"note\">Your details are sent only to the service that verifies them.</p>";
    content += "</form>";
    return html_page("Verify your identity", content);
}

std::string render_kyc_message(const std::string& title, const std::string& message) {
    return html_page(title,
                     "<h1>" + html_escape(title) + "</h1><p>" + html_escape(message) + "</p>");
}

}  // namespace corridor

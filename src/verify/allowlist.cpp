#include "verify/allowlist.h"

#include <nlohmann/json.hpp>

#include "verify/allowlist_data.h"  // generated: kAllowlistJson

namespace tritonrl::verify {
namespace {

Status ReadSet(const nlohmann::json& doc, const char* key, NameSet* out) {
  auto it = doc.find(key);
  if (it == doc.end() || !it->is_array()) {
    return Status::InvalidArgument(std::string("allowlist: missing array \"") + key + "\"");
  }
  for (const auto& v : *it) {
    if (!v.is_string()) {
      return Status::InvalidArgument(std::string("allowlist: \"") + key + "\" holds a non-string");
    }
    out->insert(v.get<std::string>());
  }
  return Status::Ok();
}

}  // namespace

Result<Allowlist> ParseAllowlist(std::string_view json_text) {
  nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Status::ParseError("allowlist: not a JSON object");
  }
  Allowlist a;
  TRITONRL_RETURN_IF_ERROR(ReadSet(doc, "torch_functions", &a.torch_functions));
  TRITONRL_RETURN_IF_ERROR(ReadSet(doc, "tensor_methods", &a.tensor_methods));
  TRITONRL_RETURN_IF_ERROR(ReadSet(doc, "tensor_compute_methods", &a.tensor_compute_methods));
  TRITONRL_RETURN_IF_ERROR(ReadSet(doc, "modules", &a.modules));
  TRITONRL_RETURN_IF_ERROR(ReadSet(doc, "triton_names", &a.triton_names));
  TRITONRL_RETURN_IF_ERROR(ReadSet(doc, "aten_ops", &a.aten_ops));
  return a;
}

std::string_view BuiltinAllowlistJson() {
  return kAllowlistJson;
}

const Allowlist& BuiltinAllowlist() {
  // Built once (thread-safe static init) and never modified afterwards.
  static const Allowlist kBuiltin = [] {
    Result<Allowlist> parsed = ParseAllowlist(kAllowlistJson);
    return parsed.ok() ? std::move(parsed).value() : Allowlist{};
  }();
  return kBuiltin;
}

}  // namespace tritonrl::verify

// Attribute maps: names in the order they were first set.
#include "xffi/runtime/attributes.h"

namespace xffi {

AttributeMap& AttributeMap::Set(std::string name, AttrValue value) {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) {
      values_[i] = std::move(value);
      return *this;
    }
  }
  names_.push_back(std::move(name));
  values_.push_back(std::move(value));
  return *this;
}

AttributeMap& AttributeMap::SetCString(std::string name, const char* value) {
  return Set(std::move(name), AttrValue(std::string(value ? value : "")));
}

bool AttributeMap::contains(std::string_view name) const {
  return Find(name) != nullptr;
}

const AttrValue* AttributeMap::Find(std::string_view name) const {
  for (size_t i = 0; i < names_.size(); ++i) {
    if (names_[i] == name) return &values_[i];
  }
  return nullptr;
}

}  // namespace xffi

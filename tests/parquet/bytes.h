// Builds a byte string from integers written as in the specs' examples (tests only).
#pragma once

#include <initializer_list>
#include <string>

namespace tritonrl::parquet {

inline std::string Bytes(std::initializer_list<int> b) {
  std::string s;
  for (int x : b) s.push_back(static_cast<char>(x));
  return s;
}

}  // namespace tritonrl::parquet

// Stand-in for llama.cpp's ggml.h, which common/json.cpp includes for one macro:
// it defines nlohmann's JSON_ASSERT as GGML_ASSERT. The rest of ggml is not needed.
#pragma once

#include <cstdio>
#include <cstdlib>

#define GGML_ASSERT(x)                                                                 \
  do {                                                                                 \
    if (!(x)) {                                                                        \
      std::fprintf(stderr, "%s:%d: GGML_ASSERT(%s) failed\n", __FILE__, __LINE__, #x); \
      std::abort();                                                                    \
    }                                                                                  \
  } while (0)

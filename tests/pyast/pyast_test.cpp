#include <gtest/gtest.h>
TEST(Pyast, Placeholder) {}

// doctest_main.cpp - the shared main() of every per-layer doctest executable.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

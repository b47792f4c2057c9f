/* main.c - the conformance runner: ctest's registry and main(). */
#define CTEST_MAIN
#include "ctest.h"

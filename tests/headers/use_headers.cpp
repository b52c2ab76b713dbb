// use_headers.cpp: use_headers.c compiled as C++ (extern "C" blocks, C++-only warnings).
#include "use_headers.c"

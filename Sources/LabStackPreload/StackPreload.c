// The shim's stack responder (Sources/CLabSupport/StackResponder.c), built alone into the
// shared library `lab watch` preloads into the processes it watches: with LAB_STACKS=on each of
// them answers requests for stacks from its first instruction on. The code lives in the shim;
// this file only compiles it a second time, without the rest of the shim, so that the library
// needs nothing but the C library.
#include "../CLabSupport/StackResponder.c"

// Autorelease pools for the harness's release assertions. On Darwin an object that passed
// through Objective-C code may sit in the calling thread's innermost autorelease pool, which
// holds it until the pool drains: in an XCTest test method, when the method returns, after the
// assertion has judged. The assertion opens a pool of its own around the code that makes the
// object, so what that code autoreleased is let go before the wait. Linux has no Objective-C
// runtime: there the pool is only counted.
#include "CLabSupport.h"
#include <stddef.h>

#if defined(__APPLE__)
// The runtime's entry points for `@autoreleasepool` (what clang emits for it), declared in
// objc4's runtime/objc-internal.h (apple-oss-distributions/objc4) and available since macOS
// 10.7 / iOS 5; libobjc is linked into every Swift binary on Darwin.
extern void *objc_autoreleasePoolPush(void);
extern void objc_autoreleasePoolPop(void *context);
#endif

static _Thread_local long pool_depth;

void *clab_autorelease_pool_push(void) {
    pool_depth++;
#if defined(__APPLE__)
    return objc_autoreleasePoolPush();
#else
    return NULL;
#endif
}

void clab_autorelease_pool_pop(void *pool) {
    if (pool_depth > 0) pool_depth--;
#if defined(__APPLE__)
    objc_autoreleasePoolPop(pool);
#else
    (void)pool;
#endif
}

long clab_autorelease_pool_depth(void) { return pool_depth; }

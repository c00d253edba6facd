/* tier.h — which of V8's execution tiers a JavaScript frame runs in. */
#ifndef V8WALK_TIER_H
#define V8WALK_TIER_H

enum js_tier { TIER_UNKNOWN, TIER_INTERPRETED, TIER_BASELINE, TIER_MAGLEV, TIER_TURBOFAN, TIER_BUILTIN };

#endif
